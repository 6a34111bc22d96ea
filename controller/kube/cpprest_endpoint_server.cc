// File: controller/kube/cpprest_endpoint_server.cc
// EndpointServer over cpprestsdk's http_listener (asio backend), and the transport-free helpers
// of endpoint_server.h. Besides cpprest_transport.cc, the only file of the client that includes
// cpprestsdk. cpprest's U() macro breaks gtest and fmt headers included after it, so it is
// switched off before the first cpprest include (docs/toolchain-and-kubectl.md).
#ifndef _TURN_OFF_PLATFORM_STRING
#define _TURN_OFF_PLATFORM_STRING
#endif

#include <cpprest/http_listener.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/kube/endpoint_server.h"

namespace gpuprofile::kube {

// ---- Pure helpers ----

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's url.QueryUnescape, lenient: '+' is a space, %XX a byte, a malformed escape stays as is.
std::string QueryUnescape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

bool EndpointRequest::HasQuery(absl::string_view key) const {
  return std::any_of(query.begin(), query.end(), [key](const auto& kv) { return kv.first == key; });
}

std::vector<std::string> EndpointRequest::QueryValues(absl::string_view key) const {
  std::vector<std::string> values;
  for (const auto& [k, v] : query) {
    if (k == key) values.push_back(v);
  }
  return values;
}

absl::StatusOr<std::optional<BindAddress>> ParseBindAddress(absl::string_view address) {
  if (address.empty() || address == "0") return std::optional<BindAddress>();
  auto invalid = [address](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bind address \"", address, "\": ", why,
        " (want [host]:port, e.g. \":8080\" or \"127.0.0.1:8081\", or \"0\" to disable)"));
  };
  BindAddress out;
  absl::string_view port_text;
  if (absl::StartsWith(address, "[")) {
    const size_t close = address.find(']');
    if (close == absl::string_view::npos) return invalid("unclosed '['");
    out.host = std::string(address.substr(1, close - 1));
    absl::string_view rest = address.substr(close + 1);
    if (!absl::ConsumePrefix(&rest, ":")) return invalid("missing port");
    port_text = rest;
    if (out.host.empty()) return invalid("empty IPv6 address");
  } else {
    const size_t colon = address.rfind(':');
    if (colon == absl::string_view::npos) return invalid("missing port");
    absl::string_view host = address.substr(0, colon);
    if (absl::StrContains(host, ':')) return invalid("an IPv6 address must be in brackets");
    out.host = host.empty() ? "0.0.0.0" : std::string(host);
    port_text = address.substr(colon + 1);
  }
  int port = -1;
  if (port_text.empty() || !std::all_of(port_text.begin(), port_text.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(port_text, &port) || port > 65535) {
    return invalid(absl::StrCat("port \"", port_text, "\" is not a number from 0 to 65535"));
  }
  out.port = port;
  return std::optional<BindAddress>(out);
}

std::optional<std::string> RouteEndpoint(const EndpointHandlers& handlers, absl::string_view path) {
  if (handlers.count(std::string(path))) return std::string(path);
  std::optional<std::string> best;
  for (const auto& [prefix, handler] : handlers) {
    const std::string under = absl::EndsWith(prefix, "/") ? prefix : prefix + "/";
    if (absl::StartsWith(path, under) && (!best || prefix.size() > best->size())) best = prefix;
  }
  return best;
}

std::vector<std::pair<std::string, std::string>> ParseQuery(absl::string_view raw_query) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view part :
       absl::StrSplit(raw_query, absl::ByAnyChar("&;"), absl::SkipEmpty())) {
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos) {
      out.emplace_back(QueryUnescape(part), "");
    } else {
      out.emplace_back(QueryUnescape(part.substr(0, eq)), QueryUnescape(part.substr(eq + 1)));
    }
  }
  return out;
}

EndpointHandlers MetricsHandlers(const runtime::MetricsRegistry* registry) {
  EndpointHandlers handlers;
  handlers["/metrics"] = [registry](const EndpointRequest& request) {
    if (!request.subpath.empty())
      return EndpointResponse{404, "text/plain; charset=utf-8", "404 page not found\n"};
    return EndpointResponse{200, kMetricsContentType, registry->TextExposition()};
  };
  return handlers;
}

EndpointHandlers ProbeHandlers(const runtime::HealthChecks* healthz,
                               const runtime::HealthChecks* readyz) {
  auto serve = [](const runtime::HealthChecks* checks) {
    return [checks](const EndpointRequest& request) {
      runtime::HealthQuery query;
      query.verbose = request.HasQuery("verbose");
      query.excludes = request.QueryValues("exclude");
      runtime::HealthResponse r = checks->Serve(request.subpath, query);
      return EndpointResponse{r.status, runtime::HealthResponse::kContentType, std::move(r.body)};
    };
  };
  EndpointHandlers handlers;
  handlers["/healthz"] = serve(healthz);
  handlers["/readyz"] = serve(readyz);
  return handlers;
}

// ---- The cpprest server ----

namespace {

namespace http = web::http;
namespace listener_ns = web::http::experimental::listener;

// Binds `host`:0 once to learn a free port (the listener cannot report the port it bound).
absl::StatusOr<int> PickFreePort(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), "0", &hints, &found); rc != 0 || found == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve bind host \"", host, "\": ", ::gai_strerror(rc)));
  }
  int port = -1;
  const int fd = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd >= 0) {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (port <= 0) return absl::UnavailableError(absl::StrCat("cannot bind ", host, ":0"));
  return port;
}

class CpprestEndpointServer final : public EndpointServer {
 public:
  CpprestEndpointServer(EndpointHandlers handlers, std::optional<EndpointTls> tls)
      : handlers_(std::move(handlers)), tls_(std::move(tls)) {}
  ~CpprestEndpointServer() override { Stop(); }

  absl::StatusOr<int> Start(const std::string& bind_address) override {
    if (listener_) {
      return absl::FailedPreconditionError(
          absl::StrCat("endpoint server: already listening on ", url_));
    }
    absl::StatusOr<std::optional<BindAddress>> parsed = ParseBindAddress(bind_address);
    if (!parsed.ok()) return parsed.status();
    if (!parsed->has_value()) return 0;
    const BindAddress& address = **parsed;
    const std::string host =
        absl::StrContains(address.host, ':') ? absl::StrCat("[", address.host, "]") : address.host;
    absl::Status last;
    // With port 0 the chosen port may be taken before the listener binds it: try again.
    for (int attempt = 0; attempt < (address.port == 0 ? 20 : 1); ++attempt) {
      int port = address.port;
      if (port == 0) {
        absl::StatusOr<int> free_port = PickFreePort(address.host);
        if (!free_port.ok()) return free_port.status();
        port = *free_port;
      }
      last = Open(absl::StrCat(tls_ ? "https://" : "http://", host, ":", port));
      if (last.ok()) return port;
    }
    return last;
  }

  void Stop() override {
    if (!listener_) return;
    try {
      listener_->close().wait();
    } catch (...) {
      // Closing failed (already closed by the runtime): nothing left to release.
    }
    listener_.reset();
  }

 private:
  absl::Status Open(const std::string& url) {
    try {
      listener_ns::http_listener_config config;
      if (tls_) {
        // Called once when the listener opens; a certificate or key the library rejects throws
        // there, and open() reports it.
        config.set_ssl_context_callback([this](boost::asio::ssl::context& ctx) {
          ctx.set_options(boost::asio::ssl::context::default_workarounds |
                          boost::asio::ssl::context::no_sslv2 |
                          boost::asio::ssl::context::no_sslv3 |
                          boost::asio::ssl::context::no_tlsv1 |
                          boost::asio::ssl::context::no_tlsv1_1);
          ctx.use_certificate_chain(
              boost::asio::buffer(tls_->cert_chain_pem.data(), tls_->cert_chain_pem.size()));
          ctx.use_private_key(boost::asio::buffer(tls_->key_pem.data(), tls_->key_pem.size()),
                              boost::asio::ssl::context::pem);
        });
      }
      auto listener = std::make_unique<listener_ns::http_listener>(web::uri(url), config);
      listener->support([this](http::http_request request) { Serve(std::move(request)); });
      listener->open().wait();
      listener_ = std::move(listener);
      url_ = url;
      return absl::OkStatus();
    } catch (const std::exception& e) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", url, ": ", e.what()));
    }
  }

  EndpointResponse Dispatch(const http::http_request& request) {
    const std::string method = request.method();
    if (method != http::methods::GET && method != http::methods::HEAD) {
      return {405, "text/plain; charset=utf-8", "405 method not allowed\n"};
    }
    EndpointRequest in;
    in.method = method;
    in.path = web::uri::decode(request.request_uri().path());
    in.query = ParseQuery(request.request_uri().query());
    if (auto it = request.headers().find(http::header_names::authorization);
        it != request.headers().end()) {
      in.authorization = it->second;
    }
    std::optional<std::string> route = RouteEndpoint(handlers_, in.path);
    if (!route) return {404, "text/plain; charset=utf-8", "404 page not found\n"};
    in.subpath = in.path.substr(route->size());
    return handlers_.at(*route)(in);
  }

  void Serve(http::http_request request) {
    EndpointResponse response;
    try {
      response = Dispatch(request);
    } catch (const std::exception& e) {
      response = {500, "text/plain; charset=utf-8",
                  absl::StrCat("internal server error: ", e.what(), "\n")};
    } catch (...) {
      response = {500, "text/plain; charset=utf-8", "internal server error\n"};
    }
    try {
      http::http_response out(static_cast<http::status_code>(response.status));
      if (request.method() != http::methods::HEAD) {
        out.set_body(std::vector<unsigned char>(response.body.begin(), response.body.end()));
      }
      out.headers().set_content_type(response.content_type);
      out.headers().add("X-Content-Type-Options", "nosniff");
      request.reply(out).then([](pplx::task<void> done) {
        try {
          done.get();
        } catch (...) {
          // The client went away before the answer was sent.
        }
      });
    } catch (...) {
      // The client went away while we answered; nothing else to do.
    }
  }

  const EndpointHandlers handlers_;
  const std::optional<EndpointTls> tls_;
  std::string url_;
  std::unique_ptr<listener_ns::http_listener> listener_;
};

}  // namespace

std::unique_ptr<EndpointServer> NewCpprestEndpointServer(EndpointHandlers handlers,
                                                         std::optional<EndpointTls> tls) {
  return std::make_unique<CpprestEndpointServer>(std::move(handlers), std::move(tls));
}

}  // namespace gpuprofile::kube
