// File: e2e/emulator/tls_certs.cc
#include "e2e/emulator/tls_certs.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::e2e {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Bio = std::unique_ptr<BIO, BioFree>;

absl::Status OpenSslError(const std::string& what) {
  char buf[256] = {0};
  unsigned long code = ERR_get_error();
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  return absl::InternalError(absl::StrCat("TLS setup: ", what, ": ", buf));
}

Pkey NewKey() { return Pkey(EVP_EC_gen("P-256")); }

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return OpenSslError(absl::StrCat("extension ", value));
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok == 1 ? absl::OkStatus() : OpenSslError("X509_add_ext");
}

// A certificate for `key` named `cn`, signed by `issuer_key` (issuer nullptr: self-signed).
enum class Usage { kCa, kServer, kClient };

absl::StatusOr<Cert> MakeCert(EVP_PKEY* key, const std::string& cn, X509* issuer,
                              EVP_PKEY* issuer_key, Usage usage,
                              const std::vector<std::string>& ip_sans,
                              const std::vector<std::string>& dns_sans) {
  Cert cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return OpenSslError("RAND_bytes");
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  absl::Status s = AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (s.ok() && issuer) {
    s = AddExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  if (s.ok() && usage == Usage::kCa) {
    s = AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    if (s.ok()) s = AddExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else if (s.ok()) {
    s = AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    if (s.ok()) s = AddExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    if (s.ok()) {
      s = AddExtension(cert.get(), signer, NID_ext_key_usage,
                       usage == Usage::kClient ? "clientAuth" : "serverAuth");
    }
    std::vector<std::string> sans;
    for (const std::string& ip : ip_sans) sans.push_back("IP:" + ip);
    for (const std::string& dns : dns_sans) sans.push_back("DNS:" + dns);
    if (s.ok() && !sans.empty()) {
      s = AddExtension(cert.get(), signer, NID_subject_alt_name, absl::StrJoin(sans, ","));
    }
  }
  if (!s.ok()) return s;
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return OpenSslError("X509_sign");
  return cert;
}

absl::StatusOr<std::string> CertPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return OpenSslError("PEM_write_bio_X509");
  return BioText(bio.get());
}

absl::StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpenSslError("PEM_write_bio_PrivateKey");
  }
  return BioText(bio.get());
}

}  // namespace

absl::StatusOr<TlsMaterial> GenerateTlsMaterial(const std::vector<std::string>& ip_sans,
                                                const std::vector<std::string>& dns_sans) {
  Pkey ca_key = NewKey();
  Pkey server_key = NewKey();
  if (!ca_key || !server_key) return OpenSslError("EC key generation");
  absl::StatusOr<Cert> ca =
      MakeCert(ca_key.get(), "kube-emulator-ca", nullptr, ca_key.get(), Usage::kCa, {}, {});
  if (!ca.ok()) return ca.status();
  absl::StatusOr<Cert> server = MakeCert(server_key.get(), "kube-emulator", ca->get(), ca_key.get(),
                                         Usage::kServer, ip_sans, dns_sans);
  if (!server.ok()) return server.status();
  Pkey client_key = NewKey();
  if (!client_key) return OpenSslError("EC key generation");
  absl::StatusOr<Cert> client = MakeCert(client_key.get(), "kube-emulator-admin", ca->get(),
                                         ca_key.get(), Usage::kClient, {}, {});
  if (!client.ok()) return client.status();
  absl::StatusOr<std::string> client_pem = CertPem(client->get());
  if (!client_pem.ok()) return client_pem.status();
  absl::StatusOr<std::string> client_key_pem = KeyPem(client_key.get());
  if (!client_key_pem.ok()) return client_key_pem.status();
  TlsMaterial out;
  absl::StatusOr<std::string> ca_pem = CertPem(ca->get());
  absl::StatusOr<std::string> server_pem = CertPem(server->get());
  if (!ca_pem.ok()) return ca_pem.status();
  if (!server_pem.ok()) return server_pem.status();
  out.ca_cert_pem = *ca_pem;
  out.server_cert_pem = *server_pem + *ca_pem;
  absl::StatusOr<std::string> server_key_pem = KeyPem(server_key.get());
  if (!server_key_pem.ok()) return server_key_pem.status();
  out.server_key_pem = *server_key_pem;
  out.client_cert_pem = *client_pem;
  out.client_key_pem = *client_key_pem;
  return out;
}

std::string RandomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace gpuprofile::e2e
