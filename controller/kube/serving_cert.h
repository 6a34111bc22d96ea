// File: controller/kube/serving_cert.h
// The certificate the operator's HTTPS metrics server presents: read from files (kubebuilder's
// --metrics-cert-path / --metrics-cert-name / --metrics-cert-key, typically a cert-manager
// Secret mounted as tls.crt and tls.key), or, when no files are given, a self-signed one made at
// start with OpenSSL's library, as controller-runtime's metrics server does. A self-signed
// certificate proves nothing to a client: scrapers must then skip verification (Prometheus'
// insecureSkipVerify), so production deployments should mount a real one.
// Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/kube/endpoint_server.h"

namespace gpuprofile::kube {

// An ECDSA P-256 key and a self-signed certificate for it, valid from an hour ago for a year,
// CN the first DNS name, with `dns_names` and `ip_addresses` as subjectAltNames and
// extendedKeyUsage serverAuth. Internal when OpenSSL fails (no entropy, an address it rejects).
absl::StatusOr<EndpointTls> GenerateSelfSignedCert(const std::vector<std::string>& dns_names,
                                                   const std::vector<std::string>& ip_addresses);

// Reads the PEM certificate chain at `cert_file` and the PEM key at `key_file` and checks that
// they parse and that the key belongs to the first certificate. Errors name the file:
// NotFound/PermissionDenied when unreadable, InvalidArgument when not PEM or not a pair.
absl::StatusOr<EndpointTls> LoadServingCert(const std::string& cert_file,
                                            const std::string& key_file);

}  // namespace gpuprofile::kube
