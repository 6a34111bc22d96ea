// File: test/kube/testing/fake_transport.h
// A scripted HttpTransport for unit tests: every request is recorded, and answered by the next
// queued Reply (Push) or, when the queue is empty, by the handler (SetHandler); with neither, a
// test failure and a 599. A streamed Reply delivers its lines, then either ends with
// `stream_end` or, with `hold_open`, blocks until the request is cancelled.
// Thread-safety: thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "controller/kube/http_transport.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube::testing {

struct Reply {
  absl::Status error;      // non-OK: the transport fails with it
  HttpResponse response;   // otherwise, this response
  std::vector<std::string> lines;  // Stream with a 2xx: delivered before the end
  absl::Status stream_end;         // Stream: the result after the lines (OK: server closed)
  bool hold_open = false;          // Stream: after the lines, wait for cancellation
};

inline Reply JsonReply(int status, const nlohmann::json& body, HttpHeaders headers = {}) {
  Reply r;
  r.response.status = status;
  r.response.body = body.dump();
  r.response.headers = std::move(headers);
  return r;
}

// A Status body as the API server sends it.
inline Reply StatusReply(int code, const std::string& reason, const std::string& message,
                         HttpHeaders headers = {}, nlohmann::json details = nullptr) {
  nlohmann::json body = {{"kind", "Status"},     {"apiVersion", "v1"}, {"status", "Failure"},
                         {"message", message},   {"reason", reason},   {"code", code}};
  if (!details.is_null()) body["details"] = details;
  return JsonReply(code, body, std::move(headers));
}

inline Reply ErrorReply(absl::Status error) {
  Reply r;
  r.error = std::move(error);
  return r;
}

// A 200 watch stream of these events.
inline Reply WatchReply(std::vector<nlohmann::json> events, absl::Status end = absl::OkStatus(),
                        bool hold_open = false) {
  Reply r;
  r.response.status = 200;
  for (const nlohmann::json& e : events) r.lines.push_back(e.dump());
  r.stream_end = std::move(end);
  r.hold_open = hold_open;
  return r;
}

class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<Reply(const HttpRequest&)>;

  void Push(Reply reply) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(reply));
  }
  void SetHandler(Handler handler) {
    absl::MutexLock lock(&mu_);
    handler_ = std::move(handler);
  }
  std::vector<HttpRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  size_t request_count() const {
    absl::MutexLock lock(&mu_);
    return requests_.size();
  }
  // Blocks until at least `n` requests were made.
  void WaitForRequests(size_t n) const {
    absl::MutexLock lock(&mu_);
    struct Arg {
      const std::vector<HttpRequest>* r;
      size_t n;
    };
    Arg arg{&requests_, n};
    mu_.Await(absl::Condition(+[](Arg* a) { return a->r->size() >= a->n; }, &arg));
  }

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request, Cancellation* cancel) override {
    Reply reply = Next(request);
    if (!reply.error.ok()) return reply.error;
    return reply.response;
  }

  absl::StatusOr<HttpResponse> Stream(const HttpRequest& request, const LineCallback& on_line,
                                      Cancellation* cancel) override {
    Reply reply = Next(request);
    if (!reply.error.ok()) return reply.error;
    if (reply.response.status < 200 || reply.response.status >= 300) return reply.response;
    HttpResponse head = reply.response;
    head.body.clear();
    for (const std::string& line : reply.lines) {
      if (cancel != nullptr && cancel->cancelled()) return absl::CancelledError("cancelled");
      if (!on_line(line)) return head;
    }
    if (reply.hold_open) {
      absl::Notification cancelled;
      ScopedCancelCallback on_cancel(cancel, [&cancelled] { cancelled.Notify(); });
      cancelled.WaitForNotification();
      return absl::CancelledError("cancelled");
    }
    if (!reply.stream_end.ok()) return reply.stream_end;
    return head;
  }

  std::string host() const override { return "fake:443"; }

 private:
  Reply Next(const HttpRequest& request) {
    Handler handler;
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(request);
      if (!queue_.empty()) {
        Reply r = std::move(queue_.front());
        queue_.pop_front();
        return r;
      }
      handler = handler_;
    }
    if (handler) return handler(request);
    ADD_FAILURE() << "unexpected request " << request.method << " " << request.path;
    Reply r;
    r.response.status = 599;
    return r;
  }

  mutable absl::Mutex mu_;
  std::deque<Reply> queue_ ABSL_GUARDED_BY(mu_);
  Handler handler_ ABSL_GUARDED_BY(mu_);
  std::vector<HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
};

// The value of query parameter `key` in `path` (raw, not decoded), or "" when absent.
inline std::string QueryParam(const std::string& path, const std::string& key) {
  size_t q = path.find('?');
  if (q == std::string::npos) return "";
  std::string query = path.substr(q + 1);
  for (absl::string_view part : absl::StrSplit(query, '&')) {
    if (absl::StartsWith(part, key + "=")) return std::string(part.substr(key.size() + 1));
  }
  return "";
}

inline std::string PathOnly(const std::string& path) { return path.substr(0, path.find('?')); }

}  // namespace gpuprofile::kube::testing
