// File: controller/kube/kubeconfig.h
// Finding the API server the way kubectl and controller-runtime do.
//
// Kubeconfig files (YAML or JSON):
//  - `--kubeconfig FILE` (must exist), else `KUBECONFIG` (colon-separated; missing files are
//    skipped, at least one must exist), else `$HOME/.kube/config`;
//  - several files merge with kubectl's rules: for every cluster, user and context name the
//    first file that defines it wins; current-context comes from the first file that sets it;
//  - relative paths (certificate-authority, client-certificate, client-key, tokenFile, an exec
//    command containing '/') are relative to the file that holds them;
//  - the context is `--context` or current-context.
// Clusters: server, certificate-authority(-data), insecure-skip-tls-verify, tls-server-name (only
// when equal to the server URL's host: the transport cannot verify another name). Users: token,
// tokenFile, client-certificate(-data) / client-key(-data), exec plugins. Basic auth,
// auth-provider and proxy-url are refused with what to use instead.
//
// In-cluster: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT, the service-account token
// (re-read as it rotates), its CA and namespace under
// /var/run/secrets/kubernetes.io/serviceaccount/.
//
// LoadClientConfig picks, as controller-runtime's GetConfig does: --kubeconfig, KUBECONFIG,
// in-cluster (when KUBERNETES_SERVICE_HOST is set), $HOME/.kube/config.
//
// Every error names the file, the context, cluster or user, and the field, and says what to do.
// All machine access goes through HostEnv, so everything here is unit-tested with fakes.
// Thread-compatible; the returned providers are thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/kube/client_config.h"
#include "controller/kube/credentials.h"
#include "controller/kube/host.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::kube {

struct KubeconfigCluster {
  std::string name;
  std::string file;  // the kubeconfig that defined it
  std::string server;
  std::string certificate_authority;  // path, resolved against `file`'s directory
  std::string certificate_authority_data;  // decoded (PEM)
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
};

struct KubeconfigUser {
  std::string name;
  std::string file;
  std::string token;
  std::string token_file;  // resolved path
  std::string client_certificate;  // resolved path
  std::string client_certificate_data;  // decoded (PEM)
  std::string client_key;  // resolved path
  std::string client_key_data;  // decoded (PEM)
  std::optional<ExecConfig> exec;  // command resolved when it contains '/'
  bool basic_auth = false;  // username/password present
  std::string auth_provider;  // auth-provider.name, when present
};

struct KubeconfigContext {
  std::string name;
  std::string file;
  std::string cluster;
  std::string user;
  std::string namespace_name;
};

struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters;
  std::map<std::string, KubeconfigUser> users;
  std::map<std::string, KubeconfigContext> contexts;
  std::string current_context;
  std::string current_context_file;  // the file that set current_context
  std::vector<std::string> files;    // the files merged, in order
};

// Parses one kubeconfig; `path` is used in messages and to resolve relative paths.
// InvalidArgument naming the file, entry and field for malformed content, and naming the file
// (and the position) for text over limits::kMaxKubeconfigBytes or nested deeper than
// limits::kMaxNestingDepth (controller/core/input_limits.h).
absl::StatusOr<Kubeconfig> ParseKubeconfig(absl::string_view text, const std::string& path);

// Merges `next` (a later file) into `merged` with kubectl's first-wins rules.
void MergeKubeconfig(const Kubeconfig& next, Kubeconfig* merged);

// Machine access for configuration loading.
struct HostEnv {
  FileSystem* fs = RealFileSystem();
  Environment* env = RealEnvironment();
  ProcessRunner* runner = RealProcessRunner();
  runtime::Clock* clock = runtime::RealClock::Default();
};

struct ConfigFlags {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
};

// Reads and merges the kubeconfig files chosen by `flags` and the environment.
absl::StatusOr<Kubeconfig> LoadKubeconfig(const ConfigFlags& flags, const HostEnv& host);

// The client configuration of `context` (current-context when empty). Reads certificate and key
// files now; token files and exec plugins are read when a request needs them.
absl::StatusOr<ClientConfig> ClientConfigFromKubeconfig(const Kubeconfig& config,
                                                        const std::string& context,
                                                        const HostEnv& host);

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// The in-cluster configuration; FailedPrecondition when not running in a pod.
absl::StatusOr<ClientConfig> InClusterClientConfig(const HostEnv& host);

// The configuration kubectl / controller-runtime would use (see the order above).
absl::StatusOr<ClientConfig> LoadClientConfig(const ConfigFlags& flags, const HostEnv& host);

}  // namespace gpuprofile::kube
