// File: e2e/tests/raw_http_client.h
// A deliberately small HTTP/1.1 client over POSIX sockets for the protocol tests: one
// connection per request, Content-Length and chunked bodies, and a line reader for watch
// streams with deadlines (no sleeps). It shares no code with the emulator, so it checks the
// bytes on the wire rather than the emulator's own view of them.
// Thread-compatible.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e::testing {

struct RawResponse {
  int status = 0;                              // 0: connection failed
  std::map<std::string, std::string> headers;  // lower-case names (last one wins)
  std::string body;
  nlohmann::json Json() const;  // discarded value when the body is not JSON
  std::string Header(const std::string& lower) const {
    auto it = headers.find(lower);
    return it == headers.end() ? "" : it->second;
  }
};

// One connection: a TCP socket, with TLS on top for https URLs (OpenSSL, verified against the
// CA the client was given). Defined in the .cc file.
class Connection;

// A chunked response read line by line (one watch event per line).
class LineStream {
 public:
  LineStream(std::unique_ptr<Connection> conn, std::string buffered);
  ~LineStream();
  int status() const { return status_; }
  // The next line within `timeout`; nullopt on timeout or when the stream ended (see ended()).
  std::optional<std::string> NextLine(absl::Duration timeout);
  // The next line parsed as JSON (nullopt as NextLine).
  std::optional<nlohmann::json> NextEvent(absl::Duration timeout);
  bool ended() const { return ended_; }

 private:
  bool Fill(absl::Time deadline);  // reads more raw bytes; false on timeout/EOF
  bool DecodeChunks();             // moves decoded bytes from raw_ to lines_

  std::unique_ptr<Connection> conn_;
  int status_ = 0;
  std::string raw_;
  std::string decoded_;
  bool headers_done_ = false;
  bool ended_ = false;
  bool chunked_ = false;
};

class RawHttpClient {
 public:
  // http://127.0.0.1:PORT, or https:// with `ca_pem` the CA that signed the server certificate.
  explicit RawHttpClient(const std::string& url, std::string ca_pem = "");
  // Sent as `Authorization: Bearer <token>` from now on (empty: no header).
  void SetBearerToken(std::string token) { token_ = std::move(token); }
  // https: accept any server certificate (Prometheus' insecureSkipVerify), for servers whose
  // certificate is self-signed at start.
  void SkipTlsVerification() { skip_verify_ = true; }

  RawResponse Request(const std::string& method, const std::string& path,
                      const std::string& body = "",
                      const std::string& content_type = "application/json",
                      const std::string& accept = "application/json");
  RawResponse Get(const std::string& path) { return Request("GET", path); }
  RawResponse Post(const std::string& path, const nlohmann::json& body) {
    return Request("POST", path, body.dump());
  }
  RawResponse Put(const std::string& path, const nlohmann::json& body) {
    return Request("PUT", path, body.dump());
  }
  RawResponse MergePatch(const std::string& path, const nlohmann::json& patch) {
    return Request("PATCH", path, patch.dump(), "application/merge-patch+json");
  }
  RawResponse Delete(const std::string& path, const nlohmann::json& options = nullptr) {
    return Request("DELETE", path, options.is_null() ? "" : options.dump());
  }
  // Opens a GET whose body is read incrementally (watches). nullptr when it cannot connect.
  std::unique_ptr<LineStream> Stream(const std::string& path);

 private:
  std::unique_ptr<Connection> Connect();
  std::string AuthHeader() const;
  std::string host_;
  int port_ = 0;
  bool tls_ = false;
  std::string ca_pem_;
  std::string token_;
  bool skip_verify_ = false;
};

}  // namespace gpuprofile::e2e::testing
