// File: controller/kube/http_transport.h
// The HTTP seam between the Kubernetes client and a concrete HTTP library: one request in, one
// response out, plus a streaming call for watches that hands the body over line by line. Only
// cpprest_transport.cc implements it against a real network; tests use a scripted fake
// (test/kube/testing/fake_transport.h). Nothing here knows about Kubernetes: status bodies,
// retries and authentication belong to the REST client above.
//
// Errors of Send/Stream are transport failures only (an HTTP 4xx/5xx is a response, not an
// error):
//   Unavailable        connecting, TLS handshake, reading or writing failed;
//   DeadlineExceeded   nothing was received for `timeout` (an idle timeout, not a total one);
//   Cancelled          the request's Cancellation fired;
//   InvalidArgument    the request cannot be sent (malformed URL, bad header).
//
// Thread-safety: HttpTransport implementations are thread-safe (any number of concurrent calls,
// including Streams). Cancellation is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpuprofile::kube {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  // Path and query relative to the server URL, e.g. "/api/v1/namespaces?limit=500". A server
  // URL with a path prefix (https://host/k8s/clusters/c1) is prepended by the transport.
  std::string path;
  HttpHeaders headers;
  std::string body;
  // Idle timeout: the request fails when nothing arrives for this long. Must be > 0.
  absl::Duration timeout = absl::Seconds(30);
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  // The first header named `name` (case-insensitive), or "" when absent.
  std::string Header(absl::string_view name) const;
};

// A one-shot, thread-safe cancellation signal. A transport registers a callback for the
// duration of a call; Cancel() runs the registered callbacks (once) and makes every later
// registration run at once.
class Cancellation {
 public:
  Cancellation() = default;
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  void Cancel();
  bool cancelled() const;

  // Runs `callback` on Cancel() (or now, on the calling thread, if already cancelled). Returns an
  // id for Unregister. Callbacks run outside the internal lock and must not block for long.
  int64_t Register(std::function<void()> callback);
  // After this returns the callback will not be started (it may be running on another thread if
  // Cancel() raced with this call).
  void Unregister(int64_t id);

 private:
  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, std::function<void()>> callbacks_ ABSL_GUARDED_BY(mu_);
};

// Registers a callback for the lifetime of the object.
class ScopedCancelCallback {
 public:
  ScopedCancelCallback(Cancellation* cancel, std::function<void()> callback)
      : cancel_(cancel), id_(cancel ? cancel->Register(std::move(callback)) : 0) {}
  ~ScopedCancelCallback() {
    if (cancel_) cancel_->Unregister(id_);
  }
  ScopedCancelCallback(const ScopedCancelCallback&) = delete;
  ScopedCancelCallback& operator=(const ScopedCancelCallback&) = delete;

 private:
  Cancellation* cancel_;
  int64_t id_;
};

// Called once per '\n'-terminated line of a streamed body (without the newline; a last line
// without a newline is delivered too). Return false to stop reading: Stream then returns OK.
using LineCallback = std::function<bool(absl::string_view line)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Sends `request` and reads the whole response. `cancel` may be null.
  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request,
                                            Cancellation* cancel = nullptr) = 0;

  // Sends `request`; when the response status is 2xx, delivers the body line by line to
  // `on_line` as it arrives and returns the response (with an empty body) once the server ends
  // the stream or `on_line` returns false. Any other status is returned with its whole body and
  // `on_line` is not called. A failure mid-stream (idle timeout, reset, cancellation) is an
  // error status even though lines were delivered before it.
  virtual absl::StatusOr<HttpResponse> Stream(const HttpRequest& request,
                                              const LineCallback& on_line,
                                              Cancellation* cancel = nullptr) = 0;

  // "host:port" of the server, for metrics labels and messages.
  virtual std::string host() const = 0;
};

// For transports whose Send and Stream are one code path: a request, then the body either
// collected (on_line null) or handed over line by line.
class ExecutingTransport : public HttpTransport {
 public:
  absl::StatusOr<HttpResponse> Send(const HttpRequest& request,
                                    Cancellation* cancel = nullptr) final {
    return Execute(request, nullptr, cancel);
  }
  absl::StatusOr<HttpResponse> Stream(const HttpRequest& request, const LineCallback& on_line,
                                      Cancellation* cancel = nullptr) final {
    return Execute(request, &on_line, cancel);
  }

 protected:
  virtual absl::StatusOr<HttpResponse> Execute(const HttpRequest& request,
                                               const LineCallback* on_line,
                                               Cancellation* cancel) = 0;
};

}  // namespace gpuprofile::kube
