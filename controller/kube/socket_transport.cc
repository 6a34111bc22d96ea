// File: controller/kube/socket_transport.cc
#include "controller/kube/socket_transport.h"

#include <csignal>
#include <mutex>  // NOLINT(build/c++11): std::call_once
#include <string>
#include <utility>
#include <vector>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "controller/kube/http1_codec.h"
#include "controller/kube/socket_connection.h"

namespace gpuprofile::kube {
namespace {

constexpr size_t kMaxIdleConnections = 32;
constexpr uint64_t kMaxBodyBytes = uint64_t{1} << 30;
constexpr size_t kMaxStreamedLine = size_t{64} << 20;
constexpr absl::Duration kMaxConnectTimeout = absl::Seconds(30);

struct ServerUrl {
  bool tls = false;
  std::string host;         // without IPv6 brackets
  std::string port;
  std::string host_header;  // as in the URL: "[::1]:6443", "api.example.com"
  std::string path_prefix;  // "" or "/k8s/clusters/c1" (no trailing slash)
};

absl::StatusOr<ServerUrl> ParseServerUrl(const std::string& server) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("server URL \"", server, "\" ", why));
  };
  ServerUrl url;
  absl::string_view rest = server;
  if (absl::ConsumePrefix(&rest, "https://")) {
    url.tls = true;
  } else if (!absl::ConsumePrefix(&rest, "http://")) {
    return invalid("must start with https:// or http://");
  }
  const size_t slash = rest.find('/');
  absl::string_view authority = rest.substr(0, slash);
  if (slash != absl::string_view::npos) {
    absl::string_view path = rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?# ") != absl::string_view::npos) {
      return invalid("is not valid: a query, fragment or space in its path");
    }
    url.path_prefix = std::string(path);
  }
  if (authority.find('@') != absl::string_view::npos) {
    return invalid("is not valid: credentials in the URL are not supported");
  }
  url.host_header = std::string(authority);
  absl::string_view port;
  if (absl::StartsWith(authority, "[")) {
    const size_t close = authority.find(']');
    if (close == absl::string_view::npos) return invalid("is not valid: unclosed [");
    url.host = std::string(authority.substr(1, close - 1));
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty() && !absl::ConsumePrefix(&after, ":")) return invalid("is not valid");
    port = after;
  } else {
    const size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != absl::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return invalid("has no host");
  int port_number = 0;
  if (!port.empty() && (!absl::SimpleAtoi(port, &port_number) || port_number <= 0 ||
                        port_number > 65535)) {
    return invalid("is not valid: bad port");
  }
  url.port = port.empty() ? (url.tls ? "443" : "80") : std::string(port);
  return url;
}

bool Idempotent(absl::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS";
}

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};

absl::StatusOr<std::unique_ptr<SSL_CTX, SslCtxFree>> NewSslContext(const TlsConfig& tls) {
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (ctx == nullptr) return absl::InternalError("cannot create a TLS context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // A server that closes without close_notify ends the stream (HTTP frames its own messages).
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  if (tls.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_default_verify_paths(ctx.get());
  }
  if (!tls.ca_pem.empty()) {
    BIO* bio = BIO_new_mem_buf(tls.ca_pem.data(), static_cast<int>(tls.ca_pem.size()));
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      if (X509_STORE_add_cert(store, cert) == 1) ++added;
      X509_free(cert);
    }
    BIO_free(bio);
    ERR_clear_error();
    if (added == 0) {
      return absl::InvalidArgumentError(
          "the certificate authority is not a valid PEM certificate");
    }
  }
  if (!tls.client_certificate_pem.empty()) {
    absl::Status s = CheckClientCertificate(
        ctx.get(), ClientCertificate{tls.client_certificate_pem, tls.client_key_pem});
    if (!s.ok()) return s;
  }
  return ctx;
}

class SocketTransport final : public ExecutingTransport {
 public:
  SocketTransport(ServerUrl url, SocketTransportOptions options,
                  std::unique_ptr<SSL_CTX, SslCtxFree> ctx)
      : url_(std::move(url)), options_(std::move(options)), ctx_(std::move(ctx)) {
    endpoint_.host = url_.host;
    endpoint_.port = url_.port;
    endpoint_.tls = url_.tls;
    endpoint_.verify_name = options_.tls.server_name;
    const bool ipv6 = url_.host.find(':') != std::string::npos;
    host_ = absl::StrCat(ipv6 ? "[" : "", url_.host, ipv6 ? "]" : "", ":", url_.port);
  }

  std::string host() const override { return host_; }

 private:
  struct Acquired {
    std::unique_ptr<SocketConnection> connection;
    bool reused = false;
  };

  absl::StatusOr<Acquired> Acquire(absl::Duration timeout) {
    {
      absl::MutexLock lock(&mu_);
      while (!idle_.empty()) {
        std::unique_ptr<SocketConnection> c = std::move(idle_.back());
        idle_.pop_back();
        if (c->IdleAndOpen()) return Acquired{std::move(c), true};
      }
    }
    ClientCertificate cert{options_.tls.client_certificate_pem, options_.tls.client_key_pem};
    if (options_.client_certificates != nullptr) {
      std::optional<Credentials> c = options_.client_certificates->CachedClientCertificate();
      if (c && !c->client_certificate_pem.empty()) {
        cert = ClientCertificate{c->client_certificate_pem, c->client_key_pem};
      }
    }
    absl::StatusOr<std::unique_ptr<SocketConnection>> dialed = SocketConnection::Dial(
        endpoint_, ctx_.get(), cert, std::min(timeout, kMaxConnectTimeout));
    if (!dialed.ok()) return dialed.status();
    return Acquired{*std::move(dialed), false};
  }

  void Release(std::unique_ptr<SocketConnection> connection) {
    absl::MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(connection));
  }

  absl::StatusOr<HttpResponse> Execute(const HttpRequest& request, const LineCallback* on_line,
                                       Cancellation* cancel) override {
    auto cancelled = [&] { return cancel != nullptr && cancel->cancelled(); };
    absl::StatusOr<std::string> bytes = SerializeRequest(request, url_.host_header,
                                                         url_.path_prefix);
    if (!bytes.ok()) return bytes.status();
    for (int attempt = 0;; ++attempt) {
      if (cancelled()) return absl::CancelledError("request cancelled");
      absl::StatusOr<Acquired> acquired = Acquire(request.timeout);
      if (!acquired.ok()) return acquired.status();
      SocketConnection& conn = *acquired->connection;
      conn.set_idle_timeout(request.timeout);
      ResponseReader reader(&conn);
      Outcome outcome;
      absl::StatusOr<HttpResponse> result;
      {
        ScopedCancelCallback on_cancel(cancel, conn.Interrupter());
        result = Exchange(request, *bytes, on_line, reader, conn, &outcome);
      }
      // After the callback is gone; a Cancel() that raced with its removal may still shut the
      // socket down, so a cancelled call never hands its connection to the pool.
      if (cancelled()) return absl::CancelledError("request cancelled");
      if (result.ok()) {
        if (outcome.reusable) Release(std::move(acquired->connection));
        return result;
      }
      const bool stale = acquired->reused && !reader.received_any() &&
                         absl::IsUnavailable(result.status()) &&
                         (Idempotent(request.method) || !outcome.wrote);
      if (stale && attempt == 0) continue;  // the server closed the idle connection: redial
      return result;
    }
  }

  struct Outcome {
    bool wrote = false;     // the whole request went out
    bool reusable = false;  // the response ended cleanly and the server keeps the connection
  };

  // One request and its response on `conn`.
  static absl::StatusOr<HttpResponse> Exchange(const HttpRequest& request,
                                               const std::string& bytes,
                                               const LineCallback* on_line,
                                               ResponseReader& reader, SocketConnection& conn,
                                               Outcome* outcome) {
    if (absl::Status s = conn.WriteAll(bytes); !s.ok()) return s;
    outcome->wrote = true;
    absl::StatusOr<ResponseHead> head = reader.ReadHead(request.method == "HEAD");
    if (!head.ok()) return head.status();
    HttpResponse out;
    out.status = head->status;
    out.headers = std::move(head->headers);
    const bool success = out.status >= 200 && out.status < 300;
    bool complete = true;
    if (on_line == nullptr || !success) {
      if (head->framing == BodyFraming::kContentLength &&
          head->content_length <= kMaxBodyBytes) {
        out.body.reserve(static_cast<size_t>(head->content_length));
      }
      absl::Status s = reader.ReadBody(*head, kMaxBodyBytes, [&](absl::string_view piece) {
        out.body.append(piece.data(), piece.size());
        return true;
      });
      if (!s.ok()) return s;
    } else {
      LineSplitter lines(on_line, kMaxStreamedLine);
      absl::Status failure;
      absl::Status s = reader.ReadBody(*head, UINT64_MAX, [&](absl::string_view piece) {
        absl::StatusOr<bool> go_on = lines.Add(piece);
        if (!go_on.ok()) failure = go_on.status();
        complete = go_on.ok() && *go_on;
        return complete;
      });
      if (!failure.ok()) return failure;
      if (!s.ok()) return s;
      if (complete) {
        absl::StatusOr<bool> last = lines.Finish();
        if (!last.ok()) return last.status();
      }
    }
    outcome->reusable = complete && head->keep_alive && !reader.has_buffered();
    return out;
  }

  const ServerUrl url_;
  const SocketTransportOptions options_;
  const std::unique_ptr<SSL_CTX, SslCtxFree> ctx_;
  SocketEndpoint endpoint_;
  std::string host_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<SocketConnection>> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpTransport>> NewSocketTransport(
    const SocketTransportOptions& options) {
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { std::signal(SIGPIPE, SIG_IGN); });
  absl::StatusOr<ServerUrl> url = ParseServerUrl(options.server);
  if (!url.ok()) return url.status();
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx;
  if (url->tls) {
    absl::StatusOr<std::unique_ptr<SSL_CTX, SslCtxFree>> made = NewSslContext(options.tls);
    if (!made.ok()) return made.status();
    ctx = *std::move(made);
  }
  return std::unique_ptr<HttpTransport>(
      new SocketTransport(*std::move(url), options, std::move(ctx)));
}

}  // namespace gpuprofile::kube
