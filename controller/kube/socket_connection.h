// File: controller/kube/socket_connection.h
// One TCP connection to the API server, plain or TLS (OpenSSL), read and written by the calling
// thread itself: a request costs the system calls it needs and no hand-off between threads
// (cpprestsdk's task continuations cost the operator half its CPU in context switches when it
// created 20,000 templates; docs/performance.md).
//
// The socket is non-blocking and every wait is a poll() bounded by the idle timeout, so a
// silent server gives DeadlineExceeded, never a hang. Interrupt() (from a Cancellation, on any
// thread) shuts the socket down, which wakes a blocked poll at once.
// Thread-safety: one thread uses a connection at a time; Interrupt() may race with it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/http1_codec.h"

typedef struct ssl_ctx_st SSL_CTX;  // NOLINT: OpenSSL's own spelling, to keep it out of here
typedef struct ssl_st SSL;          // NOLINT

namespace gpuprofile::kube {

// Where to connect and what to verify.
struct SocketEndpoint {
  std::string host;  // DNS name or IP address (IPv6 without brackets)
  std::string port;
  bool tls = false;
  // The name the server certificate must carry (DNS name or IP address); also sent as SNI when
  // it is a DNS name.
  std::string verify_name;
};

// Client certificate and key PEM for one connection (mutual TLS); empty: none.
struct ClientCertificate {
  std::string certificate_pem;  // the certificate, then any intermediates
  std::string key_pem;
};

// Whether `cert` loads (certificate chain and matching key) in `ctx`: InvalidArgument naming
// which part does not, so a bad kubeconfig fails when the transport is made.
absl::Status CheckClientCertificate(SSL_CTX* ctx, const ClientCertificate& cert);

class SocketConnection final : public ByteSource {
 public:
  // Resolves, connects and (for TLS) completes the handshake within `timeout`. `ssl_ctx` must be
  // non-null for TLS and outlive the connection. Unavailable (with the cause: refused, resolve
  // failure, certificate problem) or DeadlineExceeded.
  static absl::StatusOr<std::unique_ptr<SocketConnection>> Dial(
      const SocketEndpoint& endpoint, SSL_CTX* ssl_ctx, const ClientCertificate& client_cert,
      absl::Duration timeout);

  ~SocketConnection() override;
  SocketConnection(const SocketConnection&) = delete;
  SocketConnection& operator=(const SocketConnection&) = delete;

  // The idle timeout of the reads and writes that follow.
  void set_idle_timeout(absl::Duration timeout) { idle_timeout_ = timeout; }

  absl::Status WriteAll(absl::string_view data);
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override;

  // Whether an idle connection is still good to send on: nothing to read (the server neither
  // closed it nor sent bytes nobody asked for) and no error.
  bool IdleAndOpen();

  // Wakes and fails the current and every later Read/WriteAll. Thread-safe, any time.
  void Interrupt();
  // A callable for Cancellation::Register that stays safe after the connection is gone.
  std::function<void()> Interrupter() const;

 private:
  // The fd and whether it is shut down, shared with Interrupter()s that may outlive us.
  struct Shared {
    absl::Mutex mu;
    int fd ABSL_GUARDED_BY(mu) = -1;
    bool interrupted ABSL_GUARDED_BY(mu) = false;
  };

  SocketConnection(int fd, std::shared_ptr<Shared> shared) : fd_(fd), shared_(std::move(shared)) {}
  // Waits until the socket is readable (`events` POLLIN) or writable (POLLOUT).
  absl::Status Wait(short events, absl::Duration timeout, absl::string_view doing);  // NOLINT
  absl::Status Handshake(const SocketEndpoint& endpoint, SSL_CTX* ctx,
                         const ClientCertificate& client_cert, absl::Duration timeout);
  bool interrupted() const;

  const int fd_;
  std::shared_ptr<Shared> shared_;
  SSL* ssl_ = nullptr;
  absl::Duration idle_timeout_ = absl::Seconds(30);
};

}  // namespace gpuprofile::kube
