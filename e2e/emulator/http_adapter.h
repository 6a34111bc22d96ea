// File: e2e/emulator/http_adapter.h
// The HTTP listener (the only code that knows cpprestsdk). Serves every request with one
// HttpHandler, on cpprestsdk's thread pool; exceptions never leave the adapter (a handler that
// throws produces a 500 Status body).
// Thread-safety: Start/Stop from one thread; the handler is called concurrently.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "e2e/emulator/http_types.h"

namespace gpuprofile::e2e {

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  // "http://127.0.0.1:43121"
  virtual std::string url() const = 0;
  // Stops accepting and closes the listener. Open streams must be closed by their owners first.
  virtual void Stop() = 0;
};

// PEM text for an HTTPS listener.
struct TlsConfig {
  std::string cert_chain_pem;  // server certificate first
  std::string key_pem;
  // When set, the handshake requires a client certificate this CA signed (mutual TLS).
  std::string client_ca_pem;
};

// Listens on host:port (port 0 picks a free port); HTTPS when `tls` is set, with the URL
// "https://...". Unavailable when the address cannot be bound.
absl::StatusOr<std::unique_ptr<HttpServer>> StartHttpServer(const std::string& host, int port,
                                                            HttpHandler handler,
                                                            const TlsConfig* tls = nullptr);

}  // namespace gpuprofile::e2e
