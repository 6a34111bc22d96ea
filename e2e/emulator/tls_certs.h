// File: e2e/emulator/tls_certs.h
// A throw-away PKI for --tls, made with OpenSSL's library at start (no openssl CLI needed): a
// self-signed CA, a server certificate it signs, for 127.0.0.1 and localhost, and a client
// certificate it signs (CN kube-emulator-admin, for --client-cert-auth). Keys are
// ECDSA P-256; certificates are valid from an hour ago for a year.
// Pure apart from the random numbers OpenSSL draws; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gpuprofile::e2e {

struct TlsMaterial {
  std::string ca_cert_pem;
  std::string server_cert_pem;  // the server certificate, then the CA (the chain to send)
  std::string server_key_pem;   // PKCS#8
  std::string client_cert_pem;  // extendedKeyUsage clientAuth
  std::string client_key_pem;   // PKCS#8
};

// `ip_sans` and `dns_sans` become the server certificate's subjectAltName entries.
absl::StatusOr<TlsMaterial> GenerateTlsMaterial(const std::vector<std::string>& ip_sans,
                                                const std::vector<std::string>& dns_sans);

// 32 random bytes, hex-encoded (bearer tokens).
std::string RandomToken();

}  // namespace gpuprofile::e2e
