// File: e2e/tests/operator_process.h
// Runs the real `gpu-profile-controller` binary for the end-to-end suite: `run` as a child
// process (started, stopped with SIGTERM, killed with SIGKILL, restarted), with its stdout and
// stderr appended to one log file that survives restarts; and the offline subcommands
// (`render`) as commands with a deadline.
// Thread-compatible.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {

// The binary under test (GPU_PROFILE_CONTROLLER_PATH, set by e2e/CMakeLists.txt).
std::string ControllerPath();

class OperatorProcess {
 public:
  // `args` follow `run` (e.g. {"--kubeconfig", path, "--metrics-bind-address", "0"}). The log
  // is appended to, so one file holds every run of this replica.
  OperatorProcess(std::vector<std::string> args, std::string log_path);
  // Kills the process (SIGKILL) if it still runs.
  ~OperatorProcess();
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  // Starts a new run (the previous one must have ended). False when fork/exec failed.
  bool Start();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Waits up to `deadline` for the process to exit; returns its exit code (128+N for signal N),
  // or -2 when it still runs at the deadline (it keeps running).
  int Wait(absl::Duration deadline);
  // SIGTERM, then waits up to `deadline`; on timeout SIGKILL and returns -1.
  int Stop(absl::Duration deadline = absl::Seconds(20));
  // SIGKILL now and reaps the process; returns 128+9 (or -1 when nothing ran).
  int Kill();

  const std::string& log_path() const { return log_path_; }
  // Everything every run of this replica wrote so far.
  std::string Log() const;
  // How many times Start() succeeded.
  int starts() const { return starts_; }

 private:
  std::vector<std::string> args_;
  std::string log_path_;
  pid_t pid_ = -1;
  int starts_ = 0;
};

// Runs `gpu-profile-controller ARGS...` to completion; stdout and stderr are kept apart (render
// prints the objects on stdout and the problems on stderr).
struct ControllerResult {
  int exit_code = -1;  // -1: killed at the deadline or could not start
  std::string out;
  std::string err;
};
ControllerResult RunController(const std::vector<std::string>& args,
                               absl::Duration deadline = absl::Seconds(60));

}  // namespace gpuprofile::e2e::testing
