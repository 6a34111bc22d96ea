// File: e2e/emulator/http_adapter.cc
// Built with _TURN_OFF_PLATFORM_STRING (e2e/CMakeLists.txt): cpprest's U() macro breaks gtest/fmt.
#include "e2e/emulator/http_adapter.h"

#include <arpa/inet.h>
#include <cpprest/http_listener.h>
#include <cpprest/producerconsumerstream.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <exception>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::e2e {
namespace {

namespace http = web::http;
namespace listener_ns = web::http::experimental::listener;
using Buffer = concurrency::streams::producer_consumer_buffer<uint8_t>;

// Go's url.QueryUnescape: '+' is a space, %XX a byte; a malformed escape is kept as is.
std::string QueryUnescape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string PathUnescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

class CpprestSink final : public StreamSink {
 public:
  explicit CpprestSink(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) {}

  bool Write(std::string_view data) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_.load()) return false;
    try {
      buffer_->putn_nocopy(reinterpret_cast<const uint8_t*>(data.data()), data.size()).wait();
      buffer_->sync().wait();  // without this the listener holds partial 4 KiB chunks back
      return true;
    } catch (...) {
      alive_ = false;
      return false;
    }
  }
  void Close() override {
    alive_ = false;
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    try {
      buffer_->close(std::ios_base::out).wait();
    } catch (...) {
    }
  }
  bool alive() const override { return alive_.load(); }
  size_t buffered() const override {
    try {
      return buffer_->in_avail();
    } catch (...) {
      return 0;
    }
  }
  // The reply finished or failed (client gone): no more writes.
  void MarkDead() { alive_ = false; }

 private:
  std::mutex mu_;  // one write or close at a time
  std::shared_ptr<Buffer> buffer_;
  std::atomic<bool> alive_{true};
  bool closed_ = false;
};

HttpRequest Convert(const http::http_request& req) {
  HttpRequest out;
  out.method = req.method();
  const web::uri& uri = req.request_uri();
  out.path = PathUnescape(uri.path());
  std::string query = uri.query();
  size_t start = 0;
  while (start <= query.size() && !query.empty()) {
    size_t amp = query.find('&', start);
    std::string part =
        query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string key = QueryUnescape(part.substr(0, eq));
      std::string value = eq == std::string::npos ? "" : QueryUnescape(part.substr(eq + 1));
      out.query.emplace(std::move(key), std::move(value));
    }
    if (amp == std::string::npos) break;
    start = amp + 1;
  }
  for (const auto& [name, value] : req.headers()) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[lower] = value;
  }
  return out;
}

std::string InternalErrorBody(const std::string& what) {
  std::string escaped;
  for (char c : what) {
    if (c == '"' || c == '\\') escaped += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) escaped += c;
  }
  return absl::StrCat(
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")", escaped,
      R"(","reason":"InternalError","code":500})");
}

int PickFreePort(const std::string& host) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    ::close(fd);
    return -1;
  }
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
  }
  ::close(fd);
  return port;
}

class CpprestServer final : public HttpServer {
 public:
  CpprestServer(std::string url, HttpHandler handler, const TlsConfig* tls)
      : url_(std::move(url)), handler_(std::move(handler)) {
    if (tls) tls_ = *tls;
  }

  absl::Status Open() {
    try {
      listener_ns::http_listener_config config;
      if (!tls_.key_pem.empty()) {
        config.set_ssl_context_callback([this](boost::asio::ssl::context& ctx) {
          ctx.set_options(
              boost::asio::ssl::context::default_workarounds | boost::asio::ssl::context::no_sslv2 |
              boost::asio::ssl::context::no_sslv3 | boost::asio::ssl::context::no_tlsv1 |
              boost::asio::ssl::context::no_tlsv1_1);
          ctx.use_certificate_chain(
              boost::asio::buffer(tls_.cert_chain_pem.data(), tls_.cert_chain_pem.size()));
          ctx.use_private_key(boost::asio::buffer(tls_.key_pem.data(), tls_.key_pem.size()),
                              boost::asio::ssl::context::pem);
          if (!tls_.client_ca_pem.empty()) {
            ctx.add_certificate_authority(
                boost::asio::buffer(tls_.client_ca_pem.data(), tls_.client_ca_pem.size()));
            ctx.set_verify_mode(boost::asio::ssl::verify_peer |
                                boost::asio::ssl::verify_fail_if_no_peer_cert);
          }
        });
      }
      listener_ = std::make_unique<listener_ns::http_listener>(web::uri(url_), config);
      listener_->support([this](http::http_request req) { Serve(std::move(req)); });
      listener_->open().wait();
      return absl::OkStatus();
    } catch (const std::exception& e) {
      listener_.reset();
      return absl::UnavailableError(absl::StrCat("cannot listen on ", url_, ": ", e.what()));
    }
  }

  std::string url() const override { return url_; }

  void Stop() override {
    if (!listener_) return;
    try {
      listener_->close().wait();
    } catch (...) {
    }
    listener_.reset();
  }

  ~CpprestServer() override { Stop(); }

 private:
  void Serve(http::http_request req) {
    HttpResponse response;
    try {
      HttpRequest request = Convert(req);
      std::vector<unsigned char> body = req.extract_vector().get();
      request.body.assign(body.begin(), body.end());
      response = handler_(request);
    } catch (const std::exception& e) {
      response = HttpResponse{};
      response.status = 500;
      response.body = InternalErrorBody(e.what());
    } catch (...) {
      response = HttpResponse{};
      response.status = 500;
      response.body = InternalErrorBody("unknown error");
    }
    try {
      http::http_response out(static_cast<http::status_code>(response.status));
      for (const auto& [name, value] : response.headers) out.headers().add(name, value);
      if (response.stream) {
        auto buffer = std::make_shared<Buffer>();
        auto sink = std::make_shared<CpprestSink>(buffer);
        out.set_body(concurrency::streams::istream(*buffer), response.content_type);
        out.headers().set_content_type(response.content_type);
        // The stream is registered before the status line goes out: once a client sees 200,
        // its watch gets every later event (and is ended by a drop).
        response.stream(sink);
        req.reply(out).then([sink, buffer](pplx::task<void> t) {
          try {
            t.get();
          } catch (...) {
          }
          sink->MarkDead();
        });
        return;
      }
      std::vector<unsigned char> bytes(response.body.begin(), response.body.end());
      out.set_body(std::move(bytes));
      out.headers().set_content_type(response.content_type);
      req.reply(out).then([](pplx::task<void> t) {
        try {
          t.get();
        } catch (...) {
        }
      });
    } catch (...) {
      // The client went away while we answered; nothing else to do.
    }
  }

  std::string url_;
  HttpHandler handler_;
  TlsConfig tls_;
  std::unique_ptr<listener_ns::http_listener> listener_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> StartHttpServer(const std::string& host, int port,
                                                            HttpHandler handler,
                                                            const TlsConfig* tls) {
  absl::Status last = absl::UnavailableError("no port");
  for (int attempt = 0; attempt < (port == 0 ? 20 : 1); ++attempt) {
    int chosen = port == 0 ? PickFreePort(host) : port;
    if (chosen <= 0) return absl::UnavailableError(absl::StrCat("cannot bind ", host, ":0"));
    auto server = std::make_unique<CpprestServer>(
        absl::StrCat(tls ? "https://" : "http://", host, ":", chosen), handler, tls);
    last = server->Open();
    if (last.ok()) return std::unique_ptr<HttpServer>(std::move(server));
  }
  return last;
}

}  // namespace gpuprofile::e2e
