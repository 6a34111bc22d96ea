// File: e2e/emulator/http_types.h
// The emulator's view of HTTP, independent of any library: a request, a complete response, and a
// stream for responses that never end on their own (watches). Only http_adapter.cc maps these to
// cpprestsdk.
// Thread-safety: HttpRequest/HttpResponse are values; StreamSink implementations are thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuprofile::e2e {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // decoded path, without the query
  // Decoded query parameters; the first value wins when a key repeats.
  std::map<std::string, std::string> query;
  // Header names lower-cased.
  std::map<std::string, std::string> headers;
  std::string body;

  std::string Query(const std::string& key) const {
    auto it = query.find(key);
    return it == query.end() ? std::string() : it->second;
  }
  bool HasQuery(const std::string& key) const { return query.count(key) > 0; }
  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// A chunked response body that is written while the client reads it. Write returns false once
// the client has gone away (or after Close); the writer must then stop.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual bool Write(std::string_view data) = 0;
  // Ends the response (the final zero-length chunk). Idempotent.
  virtual void Close() = 0;
  // Never blocks on a write in progress.
  virtual bool alive() const = 0;
  // Bytes written but not yet taken by the transport (a client that does not read lets them
  // pile up). 0 when unknown.
  virtual size_t buffered() const { return 0; }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, the body is a stream: the adapter sends the status and headers, then calls this
  // once with the sink the handler (or anyone it hands the sink to) writes to.
  std::function<void(std::shared_ptr<StreamSink>)> stream;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace gpuprofile::e2e
