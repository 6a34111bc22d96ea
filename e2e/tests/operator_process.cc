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
namespace {

std::vector<char*> Argv(const std::vector<std::string>& args) {
  std::vector<char*> out;
  for (const std::string& a : args) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// The exit code of `pid` (128+N for signal N); -2 when it still runs at the deadline; -1 when
// it cannot be waited for.
int WaitFor(pid_t pid, absl::Duration deadline) {
  const absl::Time end = absl::Now() + deadline;
  absl::Duration step = absl::Milliseconds(1);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r < 0) return -1;
    if (absl::Now() >= end) return -2;
    // The child has no other way to tell us it exited: poll with a growing step.
    ::usleep(static_cast<useconds_t>(absl::ToInt64Microseconds(step)));
    step = std::min(step * 2, absl::Milliseconds(20));
  }
}

// Forks and execs argv with stdout and stderr sent to the given files (opened for append when
// `append`); returns the child's pid or -1.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& out_path,
            const std::string& err_path, bool append) {
  const int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), flags, 0644);
    int err = err_path == out_path ? out : ::open(err_path.c_str(), flags, 0644);
    if (out < 0 || err < 0) ::_exit(126);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> a = Argv(argv);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

std::string ControllerPath() { return GPU_PROFILE_CONTROLLER_PATH; }

OperatorProcess::OperatorProcess(std::vector<std::string> args, std::string log_path)
    : args_(std::move(args)), log_path_(std::move(log_path)) {}

OperatorProcess::~OperatorProcess() { Kill(); }

bool OperatorProcess::Start() {
  if (pid_ > 0) return false;
  std::vector<std::string> argv = {ControllerPath(), "run"};
  argv.insert(argv.end(), args_.begin(), args_.end());
  pid_ = Spawn(argv, log_path_, log_path_, /*append=*/true);
  if (pid_ > 0) ++starts_;
  return pid_ > 0;
}

int OperatorProcess::Wait(absl::Duration deadline) {
  if (pid_ <= 0) return -1;
  int code = WaitFor(pid_, deadline);
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
  int code = WaitFor(pid_, absl::Seconds(10));
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
  pid_t pid = Spawn(argv, out_tmpl, err_tmpl, /*append=*/false);
  if (pid > 0) {
    result.exit_code = WaitFor(pid, deadline);
    if (result.exit_code == -2) {
      ::kill(pid, SIGKILL);
      WaitFor(pid, absl::Seconds(10));
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
