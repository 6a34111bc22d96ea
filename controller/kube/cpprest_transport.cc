// File: controller/kube/cpprest_transport.cc
// The only file of the client that includes cpprestsdk. cpprest's U() macro breaks gtest and
// fmt headers included after it, so it is switched off before the first cpprest include.
#ifndef _TURN_OFF_PLATFORM_STRING
#define _TURN_OFF_PLATFORM_STRING
#endif

#include "controller/kube/cpprest_transport.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/ssl.hpp>
#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace gpuprofile::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

constexpr int kAsioOperationAborted = 125;  // ECANCELED: our cancellation token fired
constexpr int kTimedOut = 110;              // ETIMEDOUT: cpprest's idle timer

absl::Status MapHttpException(const http::http_exception& e, bool cancelled) {
  const int code = e.error_code().value();
  if (cancelled || code == kAsioOperationAborted) {
    return absl::CancelledError("request cancelled");
  }
  std::string what = e.what();
  if (code == kTimedOut) {
    return absl::DeadlineExceededError(
        absl::StrCat("no data from the server within the idle timeout (", what, ")"));
  }
  // A TLS alert read after the handshake (TLS 1.3 servers reject a missing client certificate
  // then) reaches us as a failed read carrying OpenSSL's packed error code.
  const auto openssl_code = static_cast<unsigned long>(code);  // NOLINT(runtime/int): OpenSSL's
  const bool openssl_error = code > 0 && ERR_GET_LIB(openssl_code) == ERR_LIB_SSL;
  if (openssl_error) {
    if (const char* reason = ERR_reason_error_string(openssl_code)) {
      what = absl::StrCat(what, ": ", reason);
    }
    if (ERR_GET_REASON(openssl_code) == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED) {
      return absl::UnavailableError(absl::StrCat(
          "the server requires a client certificate (", what,
          "): set client-certificate and client-key (or their -data forms) for the user in the "
          "kubeconfig"));
    }
  }
  if (openssl_error || absl::StrContains(what, "SSL") || absl::StrContains(what, "handshake")) {
    return absl::UnavailableError(absl::StrCat(
        "TLS handshake with the server failed (", what, ", code ", code,
        "): check the cluster's certificate-authority (the server certificate must be signed by "
        "it and name the host in the server URL) and, for mutual TLS, the client certificate"));
  }
  return absl::UnavailableError(
      absl::StrCat(what, " (code ", code, " ", e.error_code().message(), ")"));
}

// Checks that PEM material loads, so mistakes surface when the transport is made, not as a
// handshake failure on some later connection.
absl::Status CheckPem(const TlsConfig& tls) {
  try {
    boost::asio::ssl::context ctx(boost::asio::ssl::context::sslv23);
    if (!tls.ca_pem.empty()) {
      try {
        ctx.add_certificate_authority(boost::asio::buffer(tls.ca_pem));
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(
            absl::StrCat("the certificate authority is not a valid PEM certificate: ", e.what()));
      }
    }
    if (!tls.client_certificate_pem.empty()) {
      try {
        ctx.use_certificate_chain(boost::asio::buffer(tls.client_certificate_pem));
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(
            absl::StrCat("the client certificate is not a valid PEM certificate: ", e.what()));
      }
      try {
        ctx.use_private_key(boost::asio::buffer(tls.client_key_pem),
                            boost::asio::ssl::context::pem);
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the client key is not a valid PEM private key matching the certificate: ",
            e.what()));
      }
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot create a TLS context: ", e.what()));
  }
  return absl::OkStatus();
}

class CpprestTransport final : public ExecutingTransport {
 public:
  CpprestTransport(web::uri base, CpprestTransportOptions options)
      : base_(std::move(base)), options_(std::move(options)) {
    host_ = base_.port() > 0 ? absl::StrCat(base_.host(), ":", base_.port()) : base_.host();
  }

  std::string host() const override { return host_; }

 private:
  std::shared_ptr<client::http_client> ClientFor(absl::Duration timeout) {
    const int64_t micros = std::max<int64_t>(absl::ToInt64Microseconds(timeout), 1000);
    absl::MutexLock lock(&mu_);
    auto it = clients_.find(micros);
    if (it != clients_.end()) return it->second;
    client::http_client_config config;
    config.set_timeout(std::chrono::microseconds(micros));
    if (options_.tls.insecure_skip_verify) config.set_validate_certificates(false);
    const TlsConfig tls = options_.tls;
    std::shared_ptr<CredentialProvider> dynamic = options_.client_certificates;
    config.set_ssl_context_callback([tls, dynamic](boost::asio::ssl::context& ctx) {
      // Runs on a cpprest thread for each new connection: nothing may escape from here. PEM
      // errors were ruled out in NewCpprestTransport; a failure shows up as a handshake error.
      try {
        if (!tls.ca_pem.empty()) ctx.add_certificate_authority(boost::asio::buffer(tls.ca_pem));
        std::string cert = tls.client_certificate_pem;
        std::string key = tls.client_key_pem;
        if (dynamic != nullptr) {
          std::optional<Credentials> c = dynamic->CachedClientCertificate();
          if (c && !c->client_certificate_pem.empty()) {
            cert = c->client_certificate_pem;
            key = c->client_key_pem;
          }
        }
        if (!cert.empty()) {
          ctx.use_certificate_chain(boost::asio::buffer(cert));
          ctx.use_private_key(boost::asio::buffer(key), boost::asio::ssl::context::pem);
        }
      } catch (...) {
      }
    });
    auto created = std::make_shared<client::http_client>(base_, config);
    clients_.emplace(micros, created);
    return created;
  }

  absl::StatusOr<HttpResponse> Execute(const HttpRequest& request, const LineCallback* on_line,
                                       Cancellation* cancel) override {
    pplx::cancellation_token_source cts;
    ScopedCancelCallback on_cancel(cancel, [cts]() mutable { cts.cancel(); });
    auto was_cancelled = [&] { return cancel != nullptr && cancel->cancelled(); };
    try {
      std::shared_ptr<client::http_client> http_client = ClientFor(request.timeout);
      http::http_request req(http::method(request.method));
      req.set_request_uri(web::uri(request.path));
      std::string content_type = "application/json";
      for (const auto& [key, value] : request.headers) {
        if (absl::EqualsIgnoreCase(key, "Content-Type")) {
          content_type = value;
        } else {
          req.headers().add(key, value);
        }
      }
      if (!request.body.empty()) req.set_body(request.body, content_type);
      if (was_cancelled()) return absl::CancelledError("request cancelled");
      http::http_response resp = http_client->request(req, cts.get_token()).get();
      HttpResponse out;
      out.status = resp.status_code();
      for (const auto& [key, value] : resp.headers()) out.headers.emplace_back(key, value);
      const bool success = out.status >= 200 && out.status < 300;
      if (on_line == nullptr || !success) {
        std::vector<unsigned char> body = resp.extract_vector().get();
        out.body.assign(body.begin(), body.end());
        return out;
      }
      concurrency::streams::istream body = resp.body();
      for (;;) {
        concurrency::streams::container_buffer<std::vector<uint8_t>> line;
        const size_t n = body.read_line(line).get();
        const std::vector<uint8_t>& bytes = line.collection();
        if (n == 0 && bytes.empty()) {
          if (body.is_eof()) break;
          continue;  // an empty line (keep-alive newline)
        }
        absl::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (!(*on_line)(text)) {
          cts.cancel();  // closes the connection instead of draining a stream nobody reads
          break;
        }
      }
      return out;
    } catch (const http::http_exception& e) {
      return MapHttpException(e, was_cancelled());
    } catch (const pplx::task_canceled&) {
      return absl::CancelledError("request cancelled");
    } catch (const web::uri_exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid request URL \"", request.path, "\": ", e.what()));
    } catch (const std::exception& e) {
      if (was_cancelled()) return absl::CancelledError("request cancelled");
      return absl::UnavailableError(absl::StrCat("HTTP request failed: ", e.what()));
    } catch (...) {
      return absl::UnknownError("HTTP request failed with an unknown exception");
    }
  }

  const web::uri base_;
  const CpprestTransportOptions options_;
  std::string host_;
  absl::Mutex mu_;
  std::map<int64_t, std::shared_ptr<client::http_client>> clients_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(
    const CpprestTransportOptions& options) {
  web::uri base;
  try {
    base = web::uri(options.server);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL \"", options.server, "\" is not valid: ", e.what()));
  }
  if (base.scheme() != "https" && base.scheme() != "http") {
    return absl::InvalidArgumentError(absl::StrCat(
        "server URL \"", options.server, "\" must start with https:// or http://"));
  }
  if (base.host().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL \"", options.server, "\" has no host"));
  }
  std::string host = base.host();
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!options.tls.server_name.empty() && options.tls.server_name != host) {
    return absl::UnimplementedError(absl::StrCat(
        "TLS server name \"", options.tls.server_name, "\" differs from the URL host \"", host,
        "\"; this client verifies the certificate against the URL host only"));
  }
  if (absl::Status pem = CheckPem(options.tls); !pem.ok()) return pem;
  return std::unique_ptr<HttpTransport>(new CpprestTransport(std::move(base), options));
}

absl::StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(const ClientConfig& config) {
  CpprestTransportOptions options;
  options.server = config.server;
  options.tls = config.tls;
  options.client_certificates = config.credentials;
  return NewCpprestTransport(options);
}

}  // namespace gpuprofile::kube
