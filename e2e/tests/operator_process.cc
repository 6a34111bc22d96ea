// File: e2e/tests/operator_process.cc
#include "e2e/tests/operator_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/time/clock.h"

namespace gpuprofile::e2e::testing {

std::string ControllerPath() { return GPU_PROFILE_CONTROLLER_PATH; }

OperatorProcess::OperatorProcess(std::vector<std::string> args, std::string log_path)
    : args_(std::move(args)), log_path_(std::move(log_path)) {}

OperatorProcess::~OperatorProcess() { Kill(); }

bool OperatorProcess::Start() {
  if (pid_ > 0) return false;
  std::vector<std::string> argv = {ControllerPath(), "run"};
  argv.insert(argv.end(), args_.begin(), args_.end());
  pid_ = SpawnProcess(argv, log_path_, log_path_, /*append=*/true);
  if (pid_ > 0) ++starts_;
  return pid_ > 0;
}

int OperatorProcess::Wait(absl::Duration deadline) {
  if (pid_ <= 0) return -1;
  int code = WaitForExit(pid_, deadline);
  if (code != -2) pid_ = -1;
  return code;
}

int OperatorProcess::Stop(absl::Duration deadline) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int code = Wait(deadline);
  if (code == -2) {
    Kill();
    return -1;
  }
  return code;
}

int OperatorProcess::Kill() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGKILL);
  int code = WaitForExit(pid_, absl::Seconds(10));
  pid_ = -1;
  return code;
}

std::string OperatorProcess::Log() const { return ReadFile(log_path_); }

ControllerResult RunController(const std::vector<std::string>& args, absl::Duration deadline) {
  char out_tmpl[] = "/tmp/e2e-controller-out-XXXXXX";
  char err_tmpl[] = "/tmp/e2e-controller-err-XXXXXX";
  int out_fd = ::mkstemp(out_tmpl);
  int err_fd = ::mkstemp(err_tmpl);
  if (out_fd >= 0) ::close(out_fd);
  if (err_fd >= 0) ::close(err_fd);
  std::vector<std::string> argv = {ControllerPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  ControllerResult result;
  pid_t pid = SpawnProcess(argv, out_tmpl, err_tmpl, /*append=*/false);
  if (pid > 0) {
    result.exit_code = WaitForExit(pid, deadline);
    if (result.exit_code == -2) {
      ::kill(pid, SIGKILL);
      WaitForExit(pid, absl::Seconds(10));
      result.exit_code = -1;
    }
  }
  result.out = ReadFile(out_tmpl);
  result.err = ReadFile(err_tmpl);
  ::unlink(out_tmpl);
  ::unlink(err_tmpl);
  return result;
}

}  // namespace gpuprofile::e2e::testing
