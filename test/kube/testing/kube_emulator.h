// File: test/kube/testing/kube_emulator.h
// A kube-emulator child process (test/testing/emulator_process.h, on 127.0.0.1:0) with a real
// cpprest transport and RestClient pointed at it, plus the emulator's admin endpoints (faults,
// dropping watches, compaction). For integration tests of controller/kube over real HTTP.
// Thread-compatible (the client and transport are thread-safe).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/kube/http_transport.h"
#include "controller/kube/rest_client.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::kube::testing {

class KubeEmulator {
 public:
  // Starts the emulator with `args`; check ok() (a failure message is in error()).
  explicit KubeEmulator(std::vector<std::string> args = {});
  ~KubeEmulator();

  bool ok() const { return transport_ != nullptr; }
  std::string error() const;
  const std::string& url() const { return process_.url(); }
  HttpTransport* transport() { return transport_.get(); }

  // A new client with test-friendly retry backoff (1 ms .. 20 ms).
  std::unique_ptr<RestClient> NewClient(RestClientOptions options = {});
  // The shared default client.
  RestClient* client() { return client_.get(); }

  // POST /emulator/faults with `spec` (empty clears every fault).
  absl::Status SetFaults(const std::string& spec);
  // POST /emulator/watches/drop: ends every open watch now.
  absl::Status DropWatches();
  // POST /emulator/compact: every earlier resourceVersion becomes too old (410).
  absl::Status Compact();

 private:
  absl::Status Admin(const std::string& path, const std::string& body);

  e2e::testing::EmulatorProcess process_;
  std::string error_;
  std::unique_ptr<HttpTransport> transport_;
  std::unique_ptr<RestClient> client_;
};

}  // namespace gpuprofile::kube::testing
