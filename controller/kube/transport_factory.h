// File: controller/kube/transport_factory.h
// Which HttpTransport the commands use: the project's sockets (socket_transport.h, the default)
// or cpprestsdk (cpprest_transport.h), chosen with `run --http-client` so a regression of the
// new transport in some cluster has a way back without a rebuild, and so a benchmark can set the
// two side by side with one binary.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/kube/client_config.h"
#include "controller/kube/http_transport.h"

namespace gpuprofile::kube {

enum class HttpClientKind { kSockets, kCpprest };

// "sockets" or "cpprest"; InvalidArgument otherwise.
absl::StatusOr<HttpClientKind> ParseHttpClientKind(absl::string_view name);

absl::StatusOr<std::unique_ptr<HttpTransport>> NewHttpTransport(
    const ClientConfig& config, HttpClientKind kind = HttpClientKind::kSockets);

}  // namespace gpuprofile::kube
