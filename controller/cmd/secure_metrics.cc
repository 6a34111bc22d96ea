// File: controller/cmd/secure_metrics.cc
#include "controller/cmd/secure_metrics.h"

#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/kube/serving_cert.h"

namespace gpuprofile::cmd {

std::vector<FlagSpec> SecureMetricsFlagSpecs() {
  return {{{"--metrics-secure"}, false},
          {{"--metrics-cert-path"}},
          {{"--metrics-cert-name"}},
          {{"--metrics-cert-key"}}};
}

absl::StatusOr<SecureMetricsFlags> ParseSecureMetricsFlags(const ParsedArgs& parsed) {
  SecureMetricsFlags f;
  f.secure = parsed.Get("--metrics-secure", "false") == "true";
  f.cert_path = parsed.Get("--metrics-cert-path");
  f.cert_name = parsed.Get("--metrics-cert-name", f.cert_name);
  f.cert_key = parsed.Get("--metrics-cert-key", f.cert_key);
  for (const char* flag : {"--metrics-cert-path", "--metrics-cert-name", "--metrics-cert-key"}) {
    if (parsed.Has(flag) && !f.secure) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": only with --metrics-secure (plain HTTP uses no certificate)"));
    }
  }
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{
                                        "--metrics-cert-name", &f.cert_name},
                                    {"--metrics-cert-key", &f.cert_key}}) {
    if (value->empty() || absl::StrContains(*value, '/')) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": \"", *value, "\" is not a file name in --metrics-cert-path"));
    }
  }
  return f;
}

absl::StatusOr<MetricsServing> BuildMetricsServing(const SecureMetricsFlags& flags,
                                                   const runtime::MetricsRegistry* registry,
                                                   kube::RestClient* client, const Logger* log) {
  MetricsServing out;
  out.handlers = kube::MetricsHandlers(registry);
  if (!flags.secure) return out;
  if (flags.cert_path.empty()) {
    // As controller-runtime: a self-signed certificate when none is mounted.
    std::vector<std::string> names = {"localhost"};
    char host[256] = {0};
    if (gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' &&
        std::string(host) != "localhost") {
      names.emplace_back(host);
    }
    absl::StatusOr<kube::EndpointTls> generated =
        kube::GenerateSelfSignedCert(names, {"127.0.0.1", "::1"});
    if (!generated.ok()) return generated.status();
    out.tls = *std::move(generated);
    log->Info("metrics: serving HTTPS with a self-signed certificate (none given with "
              "--metrics-cert-path); clients cannot verify it");
  } else {
    const std::string dir = absl::EndsWith(flags.cert_path, "/")
                                ? flags.cert_path
                                : absl::StrCat(flags.cert_path, "/");
    absl::StatusOr<kube::EndpointTls> loaded =
        kube::LoadServingCert(dir + flags.cert_name, dir + flags.cert_key);
    if (!loaded.ok()) return loaded.status();
    out.tls = *std::move(loaded);
    log->Info("metrics: serving HTTPS with the given certificate",
              {{"cert", dir + flags.cert_name}, {"key", dir + flags.cert_key}});
  }
  kube::MetricsAuthOptions options;
  options.client = client;
  options.log_error = [log](const std::string& message, const LogFields& fields) {
    log->Error(message, fields);
  };
  out.auth = std::make_unique<kube::MetricsAuthorizer>(std::move(options));
  out.handlers = kube::WithMetricsAuth(std::move(out.handlers), out.auth.get());
  return out;
}

}  // namespace gpuprofile::cmd
