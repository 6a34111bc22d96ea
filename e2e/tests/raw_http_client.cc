// File: e2e/tests/raw_http_client.cc
#include "e2e/tests/raw_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpuprofile::e2e::testing {

class Connection {
 public:
  explicit Connection(int fd) : fd_(fd) {}
  ~Connection() {
    if (ssl_) {
      SSL_shutdown(ssl_);
      SSL_free(ssl_);
    }
    if (ctx_) SSL_CTX_free(ctx_);
    ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // TLS 1.2+ with the server certificate checked against `ca_pem` and `host` (an IP address),
  // or, with `verify` false, not checked at all.
  bool StartTls(const std::string& ca_pem, const std::string& host, bool verify) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ctx_) return false;
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    if (!verify) {
      SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
      ssl_ = SSL_new(ctx_);
      if (!ssl_) return false;
      SSL_set_fd(ssl_, fd_);
      return SSL_connect(ssl_) == 1;
    }
    BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
    X509* ca = bio ? PEM_read_bio_X509(bio, nullptr, nullptr, nullptr) : nullptr;
    if (bio) BIO_free(bio);
    if (!ca) return false;
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_), ca);
    X509_free(ca);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    if (!ssl_) return false;
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
    SSL_set_fd(ssl_, fd_);
    return SSL_connect(ssl_) == 1;
  }

  bool SendAll(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ssl_ ? SSL_write(ssl_, data.data() + sent, static_cast<int>(data.size() - sent))
                       : ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  // Waits until data can be read or the deadline passes.
  bool Wait(absl::Time deadline) {
    if (ssl_ && SSL_pending(ssl_) > 0) return true;
    pollfd p{fd_, POLLIN, 0};
    int wait = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    return wait > 0 && ::poll(&p, 1, wait) > 0;
  }
  ssize_t Recv(char* buf, size_t size) {
    if (!ssl_) return ::recv(fd_, buf, size, 0);
    int n = SSL_read(ssl_, buf, static_cast<int>(size));
    return n > 0 ? n : -1;
  }

 private:
  int fd_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

namespace {

// Parses the status line and headers at the start of `raw`; returns the header length (0 when
// incomplete).
size_t ParseHead(const std::string& raw, int* status, std::map<std::string, std::string>* headers) {
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  std::vector<std::string> lines = absl::StrSplit(raw.substr(0, end), "\r\n");
  if (lines.empty()) return 0;
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  if (first.size() >= 2) absl::SimpleAtoi(first[1], status);
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    (*headers)[name] = value;
  }
  return end + 4;
}

// Decodes complete chunks from `raw` into `out`; returns false when the final chunk was seen.
bool DecodeChunked(std::string& raw, std::string& out) {
  for (;;) {
    size_t line_end = raw.find("\r\n");
    if (line_end == std::string::npos) return true;
    size_t size = std::strtoul(raw.substr(0, line_end).c_str(), nullptr, 16);
    if (raw.size() < line_end + 2 + size + 2) return true;
    if (size == 0) {
      raw.clear();
      return false;
    }
    out += raw.substr(line_end + 2, size);
    raw.erase(0, line_end + 2 + size + 2);
  }
}

}  // namespace

nlohmann::json RawResponse::Json() const { return nlohmann::json::parse(body, nullptr, false); }

RawHttpClient::RawHttpClient(const std::string& url, std::string ca_pem)
    : tls_(url.rfind("https://", 0) == 0), ca_pem_(std::move(ca_pem)) {
  std::string rest = url.substr(url.find("://") + 3);
  size_t colon = rest.rfind(':');
  host_ = rest.substr(0, colon);
  port_ = std::atoi(rest.substr(colon + 1).c_str());
}

std::string RawHttpClient::AuthHeader() const {
  return token_.empty() ? "" : absl::StrCat("Authorization: Bearer ", token_, "\r\n");
}

std::unique_ptr<Connection> RawHttpClient::Connect() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return nullptr;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto conn = std::make_unique<Connection>(fd);
  if (tls_ && !conn->StartTls(ca_pem_, host_, !skip_verify_)) return nullptr;
  return conn;
}

RawResponse RawHttpClient::Request(const std::string& method, const std::string& path,
                                   const std::string& body, const std::string& content_type,
                                   const std::string& accept) {
  RawResponse response;
  std::unique_ptr<Connection> conn = Connect();
  if (!conn) return response;
  std::string request =
      absl::StrCat(method, " ", path, " HTTP/1.1\r\nHost: ", host_, ":", port_,
                   "\r\nAccept: ", accept, "\r\nConnection: close\r\n", AuthHeader());
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    absl::StrAppend(&request, "Content-Type: ", content_type, "\r\nContent-Length: ", body.size(),
                    "\r\n");
  }
  absl::StrAppend(&request, "\r\n", body);
  if (!conn->SendAll(request)) return response;
  std::string raw;
  size_t head = 0;
  char buf[65536];
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  for (;;) {
    if (head == 0) head = ParseHead(raw, &response.status, &response.headers);
    if (head > 0) {
      std::string rest = raw.substr(head);
      if (response.Header("transfer-encoding") == "chunked") {
        std::string decoded;
        if (!DecodeChunked(rest, decoded)) {
          response.body = decoded;
          break;
        }
      } else if (!response.Header("content-length").empty()) {
        size_t length = std::strtoul(response.Header("content-length").c_str(), nullptr, 10);
        if (rest.size() >= length) {
          response.body = rest.substr(0, length);
          break;
        }
      }
    }
    if (!conn->Wait(deadline)) break;
    ssize_t n = conn->Recv(buf, sizeof(buf));
    if (n <= 0) {
      if (head > 0) response.body = raw.substr(head);
      break;
    }
    raw.append(buf, static_cast<size_t>(n));
  }
  return response;
}

std::unique_ptr<LineStream> RawHttpClient::Stream(const std::string& path) {
  std::unique_ptr<Connection> conn = Connect();
  if (!conn) return nullptr;
  std::string request = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: ", host_, ":", port_,
                                     "\r\nAccept: application/json\r\n", AuthHeader(), "\r\n");
  if (!conn->SendAll(request)) return nullptr;
  return std::make_unique<LineStream>(std::move(conn), "");
}

LineStream::LineStream(std::unique_ptr<Connection> conn, std::string buffered)
    : conn_(std::move(conn)), raw_(std::move(buffered)) {
  Fill(absl::Now() + absl::Seconds(10));
}

LineStream::~LineStream() = default;

bool LineStream::Fill(absl::Time deadline) {
  char buf[65536];
  for (;;) {
    if (!headers_done_) {
      std::map<std::string, std::string> headers;
      size_t head = ParseHead(raw_, &status_, &headers);
      if (head > 0) {
        headers_done_ = true;
        chunked_ = headers["transfer-encoding"] == "chunked";
        raw_.erase(0, head);
        DecodeChunks();
        return true;
      }
    }
    if (ended_) return false;
    if (!conn_->Wait(deadline)) return false;
    ssize_t n = conn_->Recv(buf, sizeof(buf));
    if (n <= 0) {
      ended_ = true;
      if (!chunked_) decoded_ += raw_;
      return false;
    }
    raw_.append(buf, static_cast<size_t>(n));
    if (headers_done_) {
      DecodeChunks();
      return true;
    }
  }
}

bool LineStream::DecodeChunks() {
  if (!chunked_) {
    decoded_ += raw_;
    raw_.clear();
    return true;
  }
  if (!DecodeChunked(raw_, decoded_)) ended_ = true;
  return true;
}

std::optional<std::string> LineStream::NextLine(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    size_t nl = decoded_.find('\n');
    if (nl != std::string::npos) {
      std::string line = decoded_.substr(0, nl);
      decoded_.erase(0, nl + 1);
      return line;
    }
    if (ended_ || absl::Now() >= deadline) return std::nullopt;
    if (!Fill(deadline) && ended_ && decoded_.find('\n') == std::string::npos) return std::nullopt;
  }
}

std::optional<nlohmann::json> LineStream::NextEvent(absl::Duration timeout) {
  std::optional<std::string> line = NextLine(timeout);
  if (!line) return std::nullopt;
  return nlohmann::json::parse(*line, nullptr, false);
}

}  // namespace gpuprofile::e2e::testing
