// File: controller/kube/host.h
// What client configuration needs from the machine — reading files, environment variables and
// running credential plugins — behind small interfaces, so that kubeconfig loading, in-cluster
// configuration, token-file rotation and exec plugins are unit-tested with in-memory fakes
// (test/kube/testing/fake_host.h) and the real implementations stay a few lines each.
//
// Thread-safety: implementations are thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gpuprofile::kube {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // The whole file. NotFound when it does not exist; InvalidArgument when it is larger than
  // limits::kMaxKubeconfigBytes (every file the client reads is small); the mapped errno
  // otherwise. Messages name the path.
  virtual absl::StatusOr<std::string> ReadFile(const std::string& path) = 0;
};

class Environment {
 public:
  virtual ~Environment() = default;
  // The variable's value; nullopt when unset (an empty value is returned as "").
  virtual std::optional<std::string> Get(const std::string& name) = 0;
};

struct ProcessResult {
  int exit_code = 0;  // 128 + signal when killed by a signal
  // Each holds at most limits::kMaxExecCredentialBytes + 1 bytes: what came after is dropped, so
  // a size check on the text still sees that the output was too long.
  std::string stdout_text;
  std::string stderr_text;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs argv[0] (looked up on PATH when it has no '/') with the caller's environment plus
  // `extra_env` (later entries win), stdin from /dev/null, and collects its output. NotFound
  // when the command does not exist; DeadlineExceeded (after killing it) when it runs longer
  // than `timeout`.
  virtual absl::StatusOr<ProcessResult> Run(
      const std::vector<std::string>& argv,
      const std::vector<std::pair<std::string, std::string>>& extra_env,
      absl::Duration timeout) = 0;
};

// Process-wide real implementations, never destroyed.
FileSystem* RealFileSystem();
Environment* RealEnvironment();
ProcessRunner* RealProcessRunner();

}  // namespace gpuprofile::kube
