// File: controller/kube/http1_codec.h
// HTTP/1.1 on the wire for the socket transport: writing a request and reading a response
// (status line, headers, then a body framed by Content-Length, chunked transfer coding or the
// end of the connection), from any source of bytes. No sockets here, so every rule is tested
// with scripted bytes (test/kube/http1_codec_test.cc) and fuzzed (fuzz/http1_response_fuzz.cc).
//
// What a server sends is untrusted: a response head is limited to kMaxHeadBytes, chunk sizes and
// Content-Length are checked for overflow, and the body's total size is limited by the caller;
// every violation is an Unavailable error that says what was wrong (the connection is dropped).
// Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/kube/http_transport.h"

namespace gpuprofile::kube {

// Where response bytes come from. Read returns how many bytes it placed in `buffer` (at most
// `size`, at least 1) or 0 at the end of the stream; errors are the transport's (http_transport.h).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t size) = 0;
};

inline constexpr size_t kMaxHeadBytes = 256 * 1024;

// The request as bytes: request line, Host, the request's headers, Content-Type (when there is a
// body: the request's, else application/json) and Content-Length, then the body. `path_prefix`
// (a server URL's path, "" or "/k8s/clusters/c1") is put before request.path. InvalidArgument
// when the method, the path or a header would break the framing (CR, LF, spaces in the path,
// control characters).
absl::StatusOr<std::string> SerializeRequest(const HttpRequest& request,
                                             absl::string_view host_header,
                                             absl::string_view path_prefix);

// How a response's body ends.
enum class BodyFraming { kNone, kContentLength, kChunked, kUntilClose };

struct ResponseHead {
  int status = 0;
  HttpHeaders headers;
  BodyFraming framing = BodyFraming::kNone;
  uint64_t content_length = 0;  // kContentLength only
  bool keep_alive = true;       // false: the server closes (or must close) the connection after
};

// Reads one response from a source, keeping what it read ahead for the next response on the same
// connection.
class ResponseReader {
 public:
  explicit ResponseReader(ByteSource* source) : source_(source) {}

  // The status line and headers of the next final response (1xx interim responses are skipped).
  // `head_request`: the request was HEAD, so there is no body whatever the headers say.
  absl::StatusOr<ResponseHead> ReadHead(bool head_request);

  // Delivers the body in pieces as it arrives. `on_data` returns false to stop early (the rest
  // is not read; the connection must not be reused). More than `max_bytes` in total is an error.
  absl::Status ReadBody(const ResponseHead& head, uint64_t max_bytes,
                        const std::function<bool(absl::string_view)>& on_data);

  // Whether any byte of a response arrived (a failure before that on a reused connection means
  // the server had closed it while idle).
  bool received_any() const { return received_any_; }
  // Bytes read past the end of the last body: a server that sends them is misbehaving.
  bool has_buffered() const { return pos_ < end_; }

 private:
  absl::Status Fill();  // reads more; the end of the stream is an error here
  absl::StatusOr<absl::string_view> ReadLine(size_t max_bytes, absl::string_view what);
  absl::Status ReadChunked(uint64_t max_bytes,
                           const std::function<bool(absl::string_view)>& on_data);

  ByteSource* source_;
  std::string buffer_;  // storage; the unread bytes are [pos_, end_)
  size_t pos_ = 0;
  size_t end_ = 0;
  bool received_any_ = false;
  bool eof_ = false;
};

// Splits a streamed body into '\n'-terminated lines for HttpTransport::Stream: a trailing '\r' is
// removed, empty lines (a server's keep-alive newlines) are skipped, and a line longer than
// `max_line` is an error. Finish() delivers a last line without a newline.
class LineSplitter {
 public:
  LineSplitter(const LineCallback* on_line, size_t max_line)
      : on_line_(on_line), max_line_(max_line) {}

  // False when the callback asked to stop; error when a line is too long.
  absl::StatusOr<bool> Add(absl::string_view data);
  absl::StatusOr<bool> Finish();

 private:
  bool Deliver(absl::string_view line);

  const LineCallback* on_line_;
  size_t max_line_;
  std::string partial_;
};

}  // namespace gpuprofile::kube
