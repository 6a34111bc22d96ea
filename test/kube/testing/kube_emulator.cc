// File: test/kube/testing/kube_emulator.cc
#include "test/kube/testing/kube_emulator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/kube/socket_transport.h"

namespace gpuprofile::kube::testing {

KubeEmulator::KubeEmulator(std::vector<std::string> args) : process_(std::move(args)) {
  if (!process_.ok()) {
    error_ = absl::StrCat("kube-emulator did not start: ", process_.Stderr());
    return;
  }
  SocketTransportOptions options;
  options.server = process_.url();
  absl::StatusOr<std::unique_ptr<HttpTransport>> transport = NewSocketTransport(options);
  if (!transport.ok()) {
    error_ = std::string(transport.status().message());
    return;
  }
  transport_ = *std::move(transport);
  client_ = NewClient();
}

KubeEmulator::~KubeEmulator() {
  if (client_) client_->Stop();
  client_.reset();
  transport_.reset();
}

std::string KubeEmulator::error() const { return error_; }

std::unique_ptr<RestClient> KubeEmulator::NewClient(RestClientOptions options) {
  options.retry_backoff = {absl::Milliseconds(1), absl::Milliseconds(20), 2.0, 1.0};
  return std::make_unique<RestClient>(transport_.get(), std::move(options));
}

absl::Status KubeEmulator::Admin(const std::string& path, const std::string& body) {
  HttpRequest request;
  request.method = "POST";
  request.path = path;
  request.body = body;
  request.headers = {{"Content-Type", "text/plain"}};
  absl::StatusOr<HttpResponse> response = transport_->Send(request);
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return absl::InternalError(
        absl::StrCat("POST ", path, ": ", response->status, " ", response->body));
  }
  return absl::OkStatus();
}

absl::Status KubeEmulator::SetFaults(const std::string& spec) {
  return Admin("/emulator/faults", spec);
}
absl::Status KubeEmulator::DropWatches() { return Admin("/emulator/watches/drop", ""); }
absl::Status KubeEmulator::Compact() { return Admin("/emulator/compact", ""); }

}  // namespace gpuprofile::kube::testing
