// File: controller/kube/credentials.cc
#include "controller/kube/credentials.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/core/input_limits.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {
namespace {

constexpr size_t kMaxStderrInMessage = 512;

bool SupportedExecApiVersion(const std::string& v) {
  return v == "client.authentication.k8s.io/v1" || v == "client.authentication.k8s.io/v1beta1";
}

std::string Trimmed(std::string s) {
  absl::StripAsciiWhitespace(&s);
  return s;
}

}  // namespace

TokenFileCredentialProvider::TokenFileCredentialProvider(std::string path, FileSystem* fs,
                                                         runtime::Clock* clock,
                                                         absl::Duration reread_period)
    : path_(std::move(path)), fs_(fs), clock_(clock), reread_period_(reread_period) {}

absl::StatusOr<Credentials> TokenFileCredentialProvider::Get() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  if (!token_ || now - read_at_ >= reread_period_) {
    absl::StatusOr<std::string> text = fs_->ReadFile(path_);
    std::string token = text.ok() ? Trimmed(*text) : "";
    if (text.ok() && !token.empty()) {
      token_ = token;
      read_at_ = now;
    } else if (!token_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot read the bearer token from ", path_, ": ",
          text.ok() ? "the file is empty" : std::string(text.status().message()),
          " (check the tokenFile path, or that the service-account token is mounted)"));
    }
  }
  Credentials c;
  c.bearer_token = *token_;
  return c;
}

void TokenFileCredentialProvider::Invalidate() {
  absl::MutexLock lock(&mu_);
  read_at_ = absl::InfinitePast();
}

ExecCredentialProvider::ExecCredentialProvider(ExecConfig config, ExecClusterInfo cluster,
                                               std::string describe, ProcessRunner* runner,
                                               runtime::Clock* clock, absl::Duration timeout)
    : config_(std::move(config)),
      cluster_(std::move(cluster)),
      describe_(std::move(describe)),
      runner_(runner),
      clock_(clock),
      timeout_(timeout) {}

absl::StatusOr<Credentials> ExecCredentialProvider::Get() {
  absl::MutexLock lock(&mu_);
  if (cached_ && clock_->Now() < expiry_) return *cached_;
  absl::Time expiry = absl::InfiniteFuture();
  absl::StatusOr<Credentials> fresh = RunPlugin(&expiry);
  if (!fresh.ok()) return fresh.status();
  cached_ = *fresh;
  expiry_ = expiry;
  if (!fresh->client_certificate_pem.empty()) last_certificate_ = *fresh;
  return *fresh;
}

std::optional<Credentials> ExecCredentialProvider::CachedClientCertificate() {
  absl::MutexLock lock(&mu_);
  return last_certificate_;
}

void ExecCredentialProvider::Invalidate() {
  absl::MutexLock lock(&mu_);
  cached_.reset();
}

absl::StatusOr<Credentials> ExecCredentialProvider::RunPlugin(absl::Time* expiry) {
  const std::string what = absl::StrCat("exec credential plugin \"", config_.command, "\" (",
                                        describe_, ")");
  if (!SupportedExecApiVersion(config_.api_version)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": exec.apiVersion \"", config_.api_version,
        "\" is not supported; use client.authentication.k8s.io/v1 (or v1beta1)"));
  }
  if (config_.interactive_mode == "Always") {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": exec.interactiveMode is Always, but the operator has no terminal; configure a "
              "non-interactive plugin (interactiveMode: Never or IfAvailable)"));
  }
  nlohmann::json spec = {{"interactive", false}};
  if (config_.provide_cluster_info) {
    nlohmann::json cluster = {{"server", cluster_.server}};
    if (!cluster_.tls_server_name.empty()) cluster["tls-server-name"] = cluster_.tls_server_name;
    if (cluster_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!cluster_.certificate_authority_data_pem.empty()) {
      // []byte in the Go type, so base64 on the wire, as in a kubeconfig.
      cluster["certificate-authority-data"] =
          absl::Base64Escape(cluster_.certificate_authority_data_pem);
    }
    spec["cluster"] = cluster;
  }
  nlohmann::json exec_info = {
      {"apiVersion", config_.api_version}, {"kind", "ExecCredential"}, {"spec", spec}};
  std::vector<std::pair<std::string, std::string>> env = config_.env;
  env.emplace_back("KUBERNETES_EXEC_INFO", exec_info.dump());
  std::vector<std::string> argv = {config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  const std::string hint =
      config_.install_hint.empty() ? "" : absl::StrCat("\n", config_.install_hint);
  absl::StatusOr<ProcessResult> result = runner_->Run(argv, env, timeout_);
  if (!result.ok()) {
    if (absl::IsNotFound(result.status())) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, ": the command was not found; install it or fix exec.command", hint));
    }
    return absl::Status(result.status().code(),
                        absl::StrCat(what, ": ", result.status().message(), hint));
  }
  if (result->exit_code != 0) {
    std::string stderr_text = Trimmed(result->stderr_text.substr(0, kMaxStderrInMessage));
    return absl::UnauthenticatedError(absl::StrCat(
        what, " exited with code ", result->exit_code,
        stderr_text.empty() ? "" : absl::StrCat(": ", stderr_text),
        "; run it by hand (", absl::StrJoin(argv, " "), ") to see why", hint));
  }
  absl::StatusOr<Credentials> parsed =
      ParseExecCredential(result->stdout_text, config_.api_version, expiry);
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(),
                        absl::StrCat(what, " printed an unusable ExecCredential: ",
                                     parsed.status().message()));
  }
  return parsed;
}

absl::StatusOr<Credentials> ParseExecCredential(const std::string& output,
                                                const std::string& api_version,
                                                absl::Time* expiry) {
  *expiry = absl::InfiniteFuture();
  if (absl::Status s = limits::CheckJsonText(output, "stdout", limits::kMaxExecCredentialBytes);
      !s.ok()) {
    return s;
  }
  nlohmann::json j = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return absl::InvalidArgumentError("stdout is not a JSON object");
  auto str = [&](const nlohmann::json& o, const char* key) -> std::string {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (str(j, "kind") != "ExecCredential") {
    return absl::InvalidArgumentError("kind must be \"ExecCredential\"");
  }
  if (str(j, "apiVersion") != api_version) {
    return absl::InvalidArgumentError(absl::StrCat("apiVersion is \"", str(j, "apiVersion"),
                                                   "\", but the kubeconfig asked for \"",
                                                   api_version, "\""));
  }
  auto status = j.find("status");
  if (status == j.end() || !status->is_object()) {
    return absl::InvalidArgumentError("status is missing");
  }
  Credentials c;
  c.bearer_token = str(*status, "token");
  c.client_certificate_pem = str(*status, "clientCertificateData");
  c.client_key_pem = str(*status, "clientKeyData");
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty()) {
    return absl::InvalidArgumentError(
        "status.clientCertificateData and status.clientKeyData must be given together");
  }
  if (c.bearer_token.empty() && c.client_certificate_pem.empty()) {
    return absl::InvalidArgumentError(
        "status has neither token nor clientCertificateData/clientKeyData");
  }
  const std::string expiration = str(*status, "expirationTimestamp");
  if (!expiration.empty()) {
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, expiration, expiry, &err)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "status.expirationTimestamp \"", expiration, "\" is not an RFC 3339 time: ", err));
    }
  }
  return c;
}

}  // namespace gpuprofile::kube
