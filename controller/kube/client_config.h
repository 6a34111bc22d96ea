// File: controller/kube/client_config.h
// Everything needed to talk to one API server, however it was found (kubeconfig or in-cluster):
// the server URL, TLS settings with certificates already loaded into memory, and a credential
// provider. Built by kubeconfig.h; consumed by cpprest_transport.h (URL, TLS) and rest_client.h
// (credentials).
// Value types; thread-compatible (the provider itself is thread-safe).
#pragma once

#include <memory>
#include <string>

#include "controller/kube/credentials.h"

namespace gpuprofile::kube {

struct TlsConfig {
  std::string ca_pem;                  // empty: the system trust store
  std::string client_certificate_pem;  // with client_key_pem: mutual TLS
  std::string client_key_pem;
  bool insecure_skip_verify = false;
  // Expected name on the server certificate when it differs from the URL's host. The cpprest
  // transport cannot override the verified name: it refuses a value other than the URL host.
  std::string server_name;
};

struct ClientConfig {
  std::string server;  // "https://10.0.0.1:443", possibly with a path prefix
  TlsConfig tls;
  // Null: no credentials. A provider's cached client certificate (exec plugins) is used on
  // every new TLS connection.
  std::shared_ptr<CredentialProvider> credentials;
  std::string namespace_name = "default";  // the context's namespace (or the pod's in-cluster)
  // Where the configuration came from, for log lines: `context "kind-dev" in kubeconfig
  // /home/u/.kube/config` or `in-cluster (service account)`.
  std::string source;
};

}  // namespace gpuprofile::kube
