// File: controller/kube/socket_connection.cc
#include "controller/kube/socket_connection.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"

namespace gpuprofile::kube {
namespace {

std::string Errno(int err) { return std::strerror(err); }

bool IsIpAddress(const std::string& host) {
  in6_addr v6;
  in_addr v4;
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

// OpenSSL's queued errors as one string (and the queue emptied, so the next call starts clean).
std::string SslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {  // NOLINT(runtime/int): OpenSSL's type
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

// Whether OpenSSL's queue holds the TLS 1.3 alert a server sends when it wanted a client
// certificate (it arrives with the first read, after the handshake looked complete).
bool CertificateRequiredAlert() {
  unsigned long e = ERR_peek_error();  // NOLINT(runtime/int)
  return e != 0 && ERR_GET_LIB(e) == ERR_LIB_SSL &&
         ERR_GET_REASON(e) == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED;
}

absl::Status CertificateRequiredError() {
  SslErrors();
  return absl::UnavailableError(
      "the server requires a client certificate (TLS alert certificate required): set "
      "client-certificate and client-key (or their -data forms) for the user in the kubeconfig");
}

absl::Status LoadClientCertificate(SSL* ssl, const ClientCertificate& cert) {
  BIO* bio = BIO_new_mem_buf(cert.certificate_pem.data(),
                             static_cast<int>(cert.certificate_pem.size()));
  X509* leaf = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  bool ok = leaf != nullptr && SSL_use_certificate(ssl, leaf) == 1;
  X509_free(leaf);
  while (ok) {
    X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    if (extra == nullptr) break;
    ok = SSL_add0_chain_cert(ssl, extra) == 1;
    if (!ok) X509_free(extra);
  }
  BIO_free(bio);
  ERR_clear_error();  // the loop above ends on a "no start line" error by design
  if (!ok) {
    return absl::InvalidArgumentError("the client certificate is not a valid PEM certificate");
  }
  bio = BIO_new_mem_buf(cert.key_pem.data(), static_cast<int>(cert.key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  ok = key != nullptr && SSL_use_PrivateKey(ssl, key) == 1 && SSL_check_private_key(ssl) == 1;
  EVP_PKEY_free(key);
  if (!ok) {
    SslErrors();
    return absl::InvalidArgumentError(
        "the client key is not a valid PEM private key matching the certificate");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckClientCertificate(SSL_CTX* ctx, const ClientCertificate& cert) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return absl::InternalError(absl::StrCat("cannot set up TLS: ", SslErrors()));
  absl::Status loaded = LoadClientCertificate(ssl, cert);
  SSL_free(ssl);
  return loaded;
}

absl::StatusOr<std::unique_ptr<SocketConnection>> SocketConnection::Dial(
    const SocketEndpoint& endpoint, SSL_CTX* ssl_ctx, const ClientCertificate& client_cert,
    absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  const std::string where = absl::StrCat(endpoint.host, ":", endpoint.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  if (int rc = getaddrinfo(endpoint.host.c_str(), endpoint.port.c_str(), &hints, &addresses);
      rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve ", endpoint.host, ": ", gai_strerror(rc)));
  }
  std::string last_error = "no address";
  int fd = -1;
  for (addrinfo* a = addresses; a != nullptr && fd < 0; a = a->ai_next) {
    int s = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (s < 0) {
      last_error = Errno(errno);
      continue;
    }
    if (::connect(s, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last_error = Errno(errno);
      ::close(s);
      continue;
    }
    pollfd p{s, POLLOUT, 0};
    const int ms = static_cast<int>(
        std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now())));
    int ready;
    do {
      ready = ::poll(&p, 1, ms);
    } while (ready < 0 && errno == EINTR);
    int err = 0;
    socklen_t len = sizeof(err);
    if (ready == 0) {
      ::close(s);
      freeaddrinfo(addresses);
      return absl::DeadlineExceededError(absl::StrCat("connecting to ", where, " timed out"));
    }
    if (ready < 0 || ::getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      last_error = Errno(err != 0 ? err : errno);
      ::close(s);
      continue;
    }
    fd = s;
  }
  freeaddrinfo(addresses);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot connect to ", where, ": ", last_error));
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // requests are one write each
  auto shared = std::make_shared<Shared>();
  {
    absl::MutexLock lock(&shared->mu);
    shared->fd = fd;
  }
  std::unique_ptr<SocketConnection> conn(new SocketConnection(fd, std::move(shared)));
  if (endpoint.tls) {
    if (absl::Status s = conn->Handshake(endpoint, ssl_ctx, client_cert,
                                         std::max(deadline - absl::Now(), absl::Milliseconds(1)));
        !s.ok()) {
      return s;
    }
  }
  return conn;
}

absl::Status SocketConnection::Handshake(const SocketEndpoint& endpoint, SSL_CTX* ctx,
                                         const ClientCertificate& client_cert,
                                         absl::Duration timeout) {
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return absl::InternalError(absl::StrCat("cannot set up TLS: ", SslErrors()));
  }
  const std::string& name = endpoint.verify_name.empty() ? endpoint.host : endpoint.verify_name;
  if (IsIpAddress(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_, name.c_str());
    SSL_set1_host(ssl_, name.c_str());
  }
  if (!client_cert.certificate_pem.empty()) {
    if (absl::Status s = LoadClientCertificate(ssl_, client_cert); !s.ok()) return s;
  }
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    ERR_clear_error();
    const int rc = SSL_connect(ssl_);
    if (rc == 1) return absl::OkStatus();
    const int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      if (absl::Status s = Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                                deadline - absl::Now(), "the TLS handshake");
          !s.ok()) {
        return s;
      }
      continue;
    }
    std::string detail;
    const long verify = SSL_get_verify_result(ssl_);  // NOLINT(runtime/int): OpenSSL's type
    if (verify != X509_V_OK) {
      detail = absl::StrCat("certificate verify failed: ", X509_verify_cert_error_string(verify));
      SslErrors();
    } else {
      detail = SslErrors();
      if (detail.empty()) detail = err == SSL_ERROR_SYSCALL ? Errno(errno) : "connection closed";
    }
    if (interrupted()) return absl::CancelledError("request cancelled");
    return absl::UnavailableError(absl::StrCat(
        "TLS handshake with the server failed (", detail,
        "): check the cluster's certificate-authority (the server certificate must be signed by "
        "it and name the host in the server URL) and, for mutual TLS, the client certificate"));
  }
}

SocketConnection::~SocketConnection() {
  absl::MutexLock lock(&shared_->mu);
  if (ssl_ != nullptr) SSL_free(ssl_);
  ::close(fd_);
  shared_->fd = -1;
}

bool SocketConnection::interrupted() const {
  absl::MutexLock lock(&shared_->mu);
  return shared_->interrupted;
}

void SocketConnection::Interrupt() { Interrupter()(); }

std::function<void()> SocketConnection::Interrupter() const {
  return [shared = shared_] {
    absl::MutexLock lock(&shared->mu);
    shared->interrupted = true;
    if (shared->fd >= 0) ::shutdown(shared->fd, SHUT_RDWR);
  };
}

absl::Status SocketConnection::Wait(short events, absl::Duration timeout,  // NOLINT
                                    absl::string_view doing) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    pollfd p{fd_, events, 0};
    const int ms = static_cast<int>(std::clamp<int64_t>(
        absl::ToInt64Milliseconds(absl::Ceil(deadline - absl::Now(), absl::Milliseconds(1))), 0,
        INT32_MAX));
    const int ready = ::poll(&p, 1, ms);
    if (ready > 0) return absl::OkStatus();  // readable, writable, hung up or failed: look
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return absl::UnavailableError(absl::StrCat("poll: ", Errno(errno)));
    if (interrupted()) return absl::CancelledError("request cancelled");
    return absl::DeadlineExceededError(absl::StrCat(
        "no data from the server within the idle timeout (", absl::FormatDuration(timeout),
        ") during ", doing));
  }
}

absl::Status SocketConnection::WriteAll(absl::string_view data) {
  while (!data.empty()) {
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(
                                                     data.size(), 1 << 30)));
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      const int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        if (absl::Status s = Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, idle_timeout_,
                                  "sending the request");
            !s.ok()) {
          return s;
        }
        continue;
      }
      if (interrupted()) return absl::CancelledError("request cancelled");
      std::string detail = SslErrors();
      return absl::UnavailableError(absl::StrCat(
          "sending the request failed: ", detail.empty() ? Errno(errno) : detail));
    }
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (absl::Status s = Wait(POLLOUT, idle_timeout_, "sending the request"); !s.ok()) return s;
      continue;
    }
    if (interrupted()) return absl::CancelledError("request cancelled");
    return absl::UnavailableError(absl::StrCat("sending the request failed: ", Errno(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> SocketConnection::Read(char* buffer, size_t size) {
  for (;;) {
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int n = SSL_read(ssl_, buffer, static_cast<int>(std::min<size_t>(size, 1 << 30)));
      if (n > 0) return static_cast<size_t>(n);
      const int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        if (absl::Status s = Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, idle_timeout_,
                                  "reading the response");
            !s.ok()) {
          return s;
        }
        continue;
      }
      if (interrupted()) return absl::CancelledError("request cancelled");
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (CertificateRequiredAlert()) return CertificateRequiredError();
      std::string detail = SslErrors();
      if (err == SSL_ERROR_SYSCALL && detail.empty()) {
        if (errno == 0) return 0;  // the peer closed without close_notify
        detail = Errno(errno);
      }
      return absl::UnavailableError(absl::StrCat("reading the response failed: ", detail));
    }
    const ssize_t n = ::recv(fd_, buffer, size, 0);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) {
      if (interrupted()) return absl::CancelledError("request cancelled");
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (absl::Status s = Wait(POLLIN, idle_timeout_, "reading the response"); !s.ok()) {
        return s;
      }
      continue;
    }
    if (interrupted()) return absl::CancelledError("request cancelled");
    return absl::UnavailableError(absl::StrCat("reading the response failed: ", Errno(errno)));
  }
}

bool SocketConnection::IdleAndOpen() {
  if (interrupted()) return false;
  pollfd p{fd_, POLLIN, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, 0);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) return ssl_ == nullptr || SSL_pending(ssl_) == 0;
  if (ready < 0 || ssl_ == nullptr || (p.revents & (POLLHUP | POLLERR)) != 0) return false;
  // TLS: the readable bytes may be records that carry no data (TLS 1.3 session tickets).
  ERR_clear_error();
  char byte;
  const int n = SSL_read(ssl_, &byte, 1);
  if (n > 0) return false;
  const bool open = SSL_get_error(ssl_, n) == SSL_ERROR_WANT_READ;
  ERR_clear_error();
  return open;
}

}  // namespace gpuprofile::kube
