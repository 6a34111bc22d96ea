// File: controller/kube/serving_cert.cc
#include "controller/kube/serving_cert.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::kube {
namespace {

struct ServingKeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct ServingCertFree {
  void operator()(X509* p) const { X509_free(p); }
};
struct ServingBioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using ServingKey = std::unique_ptr<EVP_PKEY, ServingKeyFree>;
using ServingX509 = std::unique_ptr<X509, ServingCertFree>;
using ServingBio = std::unique_ptr<BIO, ServingBioFree>;

// The oldest queued OpenSSL error as text (and the queue cleared).
std::string ServingOpenSslReason() {
  char buf[256] = {0};
  const unsigned long code = ERR_get_error();
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return buf[0] != '\0' ? std::string(buf) : "unknown OpenSSL error";
}

absl::Status SelfSignedError(absl::string_view step) {
  return absl::InternalError(
      absl::StrCat("self-signed metrics certificate: ", step, ": ", ServingOpenSslReason()));
}

std::string ServingBioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

absl::Status AddServingExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return SelfSignedError(absl::StrCat("extension \"", value, "\""));
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok == 1 ? absl::OkStatus() : SelfSignedError("X509_add_ext");
}

absl::StatusOr<std::string> ReadServingFile(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    const std::string reason = std::strerror(err);
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat("metrics ", what, " ", path, ": ", reason));
    }
    if (err == EACCES) {
      return absl::PermissionDeniedError(absl::StrCat("metrics ", what, " ", path, ": ", reason));
    }
    return absl::UnavailableError(absl::StrCat("metrics ", what, " ", path, ": ", reason));
  }
  // A certificate chain or key is a few KiB; refuse anything absurd rather than read it whole.
  constexpr std::streamsize kMaxBytes = 1 << 20;
  std::string text(static_cast<size_t>(kMaxBytes) + 1, '\0');
  in.read(text.data(), kMaxBytes + 1);
  text.resize(static_cast<size_t>(in.gcount()));
  if (static_cast<std::streamsize>(text.size()) > kMaxBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics ", what, " ", path, ": larger than 1 MiB"));
  }
  return text;
}

}  // namespace

absl::StatusOr<EndpointTls> GenerateSelfSignedCert(const std::vector<std::string>& dns_names,
                                                   const std::vector<std::string>& ip_addresses) {
  ServingKey key(EVP_EC_gen("P-256"));
  if (!key) return SelfSignedError("EC key generation");
  ServingX509 cert(X509_new());
  if (!cert) return SelfSignedError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return SelfSignedError("RAND_bytes");
  serial[0] &= 0x7f;  // a positive serial number
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  if (bn == nullptr || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) == nullptr) {
    BN_free(bn);
    return SelfSignedError("serial number");
  }
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  const std::string cn = dns_names.empty() ? "gpu-profile-operator-metrics" : dns_names.front();
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  std::vector<std::string> sans;
  for (const std::string& dns : dns_names) sans.push_back("DNS:" + dns);
  for (const std::string& ip : ip_addresses) sans.push_back("IP:" + ip);
  absl::Status s = AddServingExtension(cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  if (s.ok()) {
    s = AddServingExtension(cert.get(), NID_key_usage, "critical,digitalSignature");
  }
  if (s.ok()) s = AddServingExtension(cert.get(), NID_ext_key_usage, "serverAuth");
  if (s.ok()) s = AddServingExtension(cert.get(), NID_subject_key_identifier, "hash");
  if (s.ok() && !sans.empty()) {
    s = AddServingExtension(cert.get(), NID_subject_alt_name, absl::StrJoin(sans, ","));
  }
  if (!s.ok()) return s;
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) return SelfSignedError("X509_sign");

  ServingBio cert_bio(BIO_new(BIO_s_mem()));
  ServingBio key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio || PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr,
                               nullptr) != 1) {
    return SelfSignedError("PEM encoding");
  }
  return EndpointTls{ServingBioText(cert_bio.get()), ServingBioText(key_bio.get())};
}

absl::StatusOr<EndpointTls> LoadServingCert(const std::string& cert_file,
                                            const std::string& key_file) {
  absl::StatusOr<std::string> cert_pem = ReadServingFile(cert_file, "certificate");
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ReadServingFile(key_file, "key");
  if (!key_pem.ok()) return key_pem.status();
  ServingBio cert_bio(BIO_new_mem_buf(cert_pem->data(), static_cast<int>(cert_pem->size())));
  ServingX509 leaf(cert_bio ? PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)
                            : nullptr);
  if (!leaf) {
    return absl::InvalidArgumentError(absl::StrCat("metrics certificate ", cert_file,
                                                   ": no PEM certificate (",
                                                   ServingOpenSslReason(), ")"));
  }
  ServingBio key_bio(BIO_new_mem_buf(key_pem->data(), static_cast<int>(key_pem->size())));
  ServingKey key(key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr)
                         : nullptr);
  if (!key) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics key ", key_file, ": no PEM private key (", ServingOpenSslReason(), ")"));
  }
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat("metrics key ", key_file,
                                                   " does not belong to the certificate ",
                                                   cert_file));
  }
  return EndpointTls{*std::move(cert_pem), *std::move(key_pem)};
}

}  // namespace gpuprofile::kube
