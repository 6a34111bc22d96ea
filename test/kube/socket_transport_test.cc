// File: test/kube/socket_transport_test.cc
// The socket transport against a scripted TCP server on 127.0.0.1 (each connection runs a
// handler over the raw socket): keep-alive reuse, a pooled connection the server closed while
// idle, a silent server (idle timeout), cancellation of a stream that never ends, streamed lines,
// and hostile responses. TLS, watches and the API itself are covered against kube-emulator
// (https_emulator_test.cc, rest_client_emulator_test.cc, watcher_emulator_test.cc).
#include "controller/kube/socket_transport.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace socket_transport_test {
namespace {

// Reads one request head (up to the blank line) and its Content-Length body; "" at EOF.
std::string ReadRequest(int fd) {
  std::string data;
  char c;
  while (data.find("\r\n\r\n") == std::string::npos) {
    if (::recv(fd, &c, 1, 0) != 1) return "";
    data += c;
  }
  const size_t at = data.find("Content-Length: ");
  if (at != std::string::npos) {
    size_t n = std::stoul(data.substr(at + 16));
    while (n-- > 0 && ::recv(fd, &c, 1, 0) == 1) data += c;
  }
  return data;
}

void SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Accepts connections on 127.0.0.1 and runs `handler` for each on its own thread.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::function<void(int fd, int connection)> handler)
      : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listen_fd_, 16);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] {
      for (int n = 0;; ++n) {
        int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd < 0) return;
        connections_.fetch_add(1);
        absl::MutexLock lock(&mu_);
        threads_.emplace_back([this, fd, n] {
          handler_(fd, n);
          ::close(fd);
        });
      }
    });
  }
  ~ScriptedServer() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    acceptor_.join();
    absl::MutexLock lock(&mu_);
    for (std::thread& t : threads_) t.join();
  }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  int connections() const { return connections_.load(); }

 private:
  std::function<void(int, int)> handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  absl::Mutex mu_;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

std::unique_ptr<HttpTransport> TransportFor(const std::string& url) {
  SocketTransportOptions options;
  options.server = url;
  absl::StatusOr<std::unique_ptr<HttpTransport>> t = NewSocketTransport(options);
  EXPECT_OK(t);
  return t.ok() ? *std::move(t) : nullptr;
}

HttpRequest Get(std::string path, absl::Duration timeout = absl::Seconds(10)) {
  HttpRequest r;
  r.path = std::move(path);
  r.timeout = timeout;
  return r;
}

TEST(SocketTransportTest, KeepAliveReusesOneConnection) {
  ScriptedServer server([](int fd, int) {
    for (int i = 0;; ++i) {
      std::string request = ReadRequest(fd);
      if (request.empty()) return;
      const std::string body = absl::StrCat("{\"n\":", i, "}");
      SendAll(fd, absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", body.size(), "\r\n\r\n",
                               body));
    }
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(HttpResponse r, t->Send(Get("/n")));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, absl::StrCat("{\"n\":", i, "}"));
  }
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(t->host(), server.url().substr(7));
}

// The server answers one request per connection and closes it (as an idle timeout would): the
// pooled connection is seen closed and the next request goes out on a new one.
TEST(SocketTransportTest, AConnectionTheServerClosedIsNotReused) {
  absl::Notification closed_first;
  ScriptedServer server([&](int fd, int n) {
    if (ReadRequest(fd).empty()) return;
    SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    if (n == 0) {
      ::shutdown(fd, SHUT_RDWR);
      closed_first.Notify();
    }
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  ASSERT_OK(t->Send(Get("/a")));
  closed_first.WaitForNotification();
  HttpRequest post = Get("/b");
  post.method = "POST";  // not idempotent: must not rely on a retry
  post.body = "{}";
  ASSERT_OK_AND_ASSIGN(HttpResponse r, t->Send(post));
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(server.connections(), 2);
}

TEST(SocketTransportTest, ASilentServerIsADeadlineNotAHang) {
  absl::Notification done;
  ScriptedServer server([&](int fd, int) {
    ReadRequest(fd);
    done.WaitForNotificationWithTimeout(absl::Seconds(10));
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  const absl::Time start = absl::Now();
  absl::StatusOr<HttpResponse> r = t->Send(Get("/slow", absl::Milliseconds(200)));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("idle timeout"), absl::string_view::npos) << r.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  done.Notify();
}

TEST(SocketTransportTest, StreamDeliversLinesAndCancellationEndsIt) {
  absl::Notification done;
  ScriptedServer server([&](int fd, int) {
    ReadRequest(fd);
    SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    SendAll(fd, "8\r\n{\"a\":1}\n\r\n");
    SendAll(fd, "4\r\n{\"b\"\r\n4\r\n:2}\n\r\n");
    done.WaitForNotificationWithTimeout(absl::Seconds(10));  // then silence, stream open
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  Cancellation cancel;
  std::vector<std::string> lines;
  absl::Notification two;
  std::thread canceller([&] {
    two.WaitForNotification();
    cancel.Cancel();
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<HttpResponse> r = t->Stream(
      Get("/watch", absl::Seconds(30)),
      [&](absl::string_view line) {
        lines.emplace_back(line);
        if (lines.size() == 2) two.Notify();
        return true;
      },
      &cancel);
  canceller.join();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled) << r.status();
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  done.Notify();
}

TEST(SocketTransportTest, AStreamThatFailsReturnsItsStatusWholeBody) {
  ScriptedServer server([](int fd, int) {
    ReadRequest(fd);
    SendAll(fd, "HTTP/1.1 410 Gone\r\nContent-Length: 15\r\n\r\n{\"code\":410}\n\n\n");
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  int calls = 0;
  ASSERT_OK_AND_ASSIGN(HttpResponse r, t->Stream(Get("/watch"), [&](absl::string_view) {
    ++calls;
    return true;
  }));
  EXPECT_EQ(r.status, 410);
  EXPECT_EQ(r.body, "{\"code\":410}\n\n\n");
  EXPECT_EQ(calls, 0);
}

TEST(SocketTransportTest, HostileResponsesAreErrorsAndTheConnectionIsDropped) {
  ScriptedServer server([](int fd, int n) {
    if (ReadRequest(fd).empty()) return;
    if (n == 0) {
      SendAll(fd, "HTTP/1.1 200 OK\r\nX: " + std::string(400 * 1024, 'a'));
    } else {
      SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    }
  });
  std::unique_ptr<HttpTransport> t = TransportFor(server.url());
  absl::StatusOr<HttpResponse> bad = t->Send(Get("/x"));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnavailable) << bad.status();
  EXPECT_NE(bad.status().message().find("too long"), absl::string_view::npos) << bad.status();
  ASSERT_OK_AND_ASSIGN(HttpResponse good, t->Send(Get("/y")));
  EXPECT_EQ(good.body, "ok");
  EXPECT_EQ(server.connections(), 2);
}

TEST(SocketTransportTest, BadUrlsAndRefusedConnections) {
  for (const char* url : {"ftp://h", "https://", "http://[::1", "http://h:99999",
                          "http://u:p@h", "http://h/x?y"}) {
    SocketTransportOptions options;
    options.server = url;
    absl::StatusOr<std::unique_ptr<HttpTransport>> t = NewSocketTransport(options);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << url;
  }
  int port;
  {
    ScriptedServer server([](int, int) {});
    port = std::stoi(server.url().substr(server.url().rfind(':') + 1));
  }
  std::unique_ptr<HttpTransport> t = TransportFor(absl::StrCat("http://127.0.0.1:", port));
  absl::StatusOr<HttpResponse> r = t->Send(Get("/"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
  EXPECT_NE(r.status().message().find("cannot connect"), absl::string_view::npos) << r.status();
}

TEST(SocketTransportTest, APathPrefixAndIpv6HostAreKept) {
  SocketTransportOptions options;
  options.server = "http://[::1]:1/k8s/clusters/c1/";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HttpTransport> t, NewSocketTransport(options));
  EXPECT_EQ(t->host(), "[::1]:1");
  std::string seen;
  absl::Notification read;
  ScriptedServer server([&](int fd, int) {
    seen = ReadRequest(fd);
    read.Notify();
    SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  });
  std::unique_ptr<HttpTransport> prefixed = TransportFor(server.url() + "/k8s/clusters/c1/");
  ASSERT_OK(prefixed->Send(Get("/api/v1/nodes")));
  read.WaitForNotification();
  EXPECT_EQ(seen.rfind("GET /k8s/clusters/c1/api/v1/nodes HTTP/1.1\r\n", 0), 0u) << seen;
}

}  // namespace
}  // namespace socket_transport_test
}  // namespace gpuprofile::kube
