// File: controller/kube/credentials.h
// Where a request's credentials come from: a fixed bearer token, a token file that is re-read as
// it rotates (kubelet rewrites projected service-account tokens about every hour), or a
// client.authentication.k8s.io ExecCredential plugin (how EKS, GKE and AKS users authenticate),
// whose token or client certificate is cached until its expirationTimestamp and fetched again
// after that or after the server answered 401.
//
// Thread-safety: every provider is thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/host.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::kube {

struct Credentials {
  std::string bearer_token;  // empty: no Authorization header
  // PEM; both set or both empty (from an exec plugin).
  std::string client_certificate_pem;
  std::string client_key_pem;
};

class CredentialProvider {
 public:
  virtual ~CredentialProvider() = default;
  // The credentials to use now. Errors name the source (file, plugin) and what to do.
  virtual absl::StatusOr<Credentials> Get() = 0;
  // The server rejected the credentials (401): the next Get fetches them again.
  virtual void Invalidate() {}
  // The client certificate of the credentials last returned by Get, if they have one, without
  // fetching anything (the TLS layer asks on every new connection; Get runs before each request).
  virtual std::optional<Credentials> CachedClientCertificate() { return std::nullopt; }
};

class StaticCredentialProvider final : public CredentialProvider {
 public:
  explicit StaticCredentialProvider(Credentials credentials)
      : credentials_(std::move(credentials)) {}
  absl::StatusOr<Credentials> Get() override { return credentials_; }

 private:
  const Credentials credentials_;
};

// Reads the token from `path` (surrounding whitespace trimmed), again once `reread_period` has
// passed or after Invalidate(). A failed re-read keeps the last good token (the kubelet swaps
// the file atomically, so a failure is transient); a failed first read is an error.
class TokenFileCredentialProvider final : public CredentialProvider {
 public:
  TokenFileCredentialProvider(std::string path, FileSystem* fs, runtime::Clock* clock,
                              absl::Duration reread_period = absl::Minutes(1));
  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

 private:
  const std::string path_;
  FileSystem* const fs_;
  runtime::Clock* const clock_;
  const absl::Duration reread_period_;
  absl::Mutex mu_;
  std::optional<std::string> token_ ABSL_GUARDED_BY(mu_);
  absl::Time read_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

// The `exec` section of a kubeconfig user.
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;      // as written; resolved against the kubeconfig's directory if relative
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  std::string interactive_mode;  // Never, IfAvailable, Always (v1 requires it)
  bool provide_cluster_info = false;
};

// What an exec plugin learns about the cluster (spec.cluster), with provideClusterInfo.
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority_data_pem;
};

class ExecCredentialProvider final : public CredentialProvider {
 public:
  // `describe` says where the plugin was configured (e.g. `user "eks" in kubeconfig
  // /home/u/.kube/config`), for messages.
  ExecCredentialProvider(ExecConfig config, ExecClusterInfo cluster, std::string describe,
                         ProcessRunner* runner, runtime::Clock* clock,
                         absl::Duration timeout = absl::Minutes(1));
  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;
  std::optional<Credentials> CachedClientCertificate() override;

 private:
  absl::StatusOr<Credentials> RunPlugin(absl::Time* expiry);

  const ExecConfig config_;
  const ExecClusterInfo cluster_;
  const std::string describe_;
  ProcessRunner* const runner_;
  runtime::Clock* const clock_;
  const absl::Duration timeout_;
  absl::Mutex mu_;
  std::optional<Credentials> cached_ ABSL_GUARDED_BY(mu_);
  std::optional<Credentials> last_certificate_ ABSL_GUARDED_BY(mu_);
  absl::Time expiry_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

// Parses a plugin's stdout (an ExecCredential of `api_version`). Sets `*expiry` from
// status.expirationTimestamp (InfiniteFuture when absent). InvalidArgument naming the field.
absl::StatusOr<Credentials> ParseExecCredential(const std::string& output,
                                                const std::string& api_version,
                                                absl::Time* expiry);

}  // namespace gpuprofile::kube
