// File: test/testing/emulator_process.h
// Starts kube-emulator as a child process on 127.0.0.1:0, reads the URL it prints, and stops
// it (SIGTERM, then SIGKILL after a deadline) when destroyed. Also: a scratch directory per
// test and a runner for external commands (kubectl) with a deadline.
// Thread-compatible.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace gpuprofile::e2e::testing {

class EmulatorProcess {
 public:
  // `args` are extra flags (e.g. {"--kube-version", "1.32"}).
  explicit EmulatorProcess(std::vector<std::string> args);
  ~EmulatorProcess();
  EmulatorProcess(const EmulatorProcess&) = delete;
  EmulatorProcess& operator=(const EmulatorProcess&) = delete;

  bool ok() const { return !url_.empty(); }
  const std::string& url() const { return url_; }
  // What the emulator wrote to stderr so far (for failure messages).
  std::string Stderr() const;
  // Sends SIGTERM and waits (deadline 10 s); returns the exit status (-1 on timeout).
  int Stop();

 private:
  pid_t pid_ = -1;
  std::string url_;
  std::string stderr_path_;
};

// A fresh directory under $TMPDIR, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  void Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;  // -1: killed at the deadline or could not start
  std::string out;     // stdout and stderr, interleaved
};

// Runs argv with a deadline; kills the process group when it passes.
CommandResult RunCommand(const std::vector<std::string>& argv, absl::Duration deadline);

// Forks and execs argv (searched on PATH) in a process group of its own, stdout to `out_path`
// and stderr to `err_path` (one file when equal), truncated or appended; returns the pid.
pid_t SpawnProcess(const std::vector<std::string>& argv, const std::string& out_path,
                   const std::string& err_path, bool append);
// Waits for `pid` to exit, without killing it: its exit code (128+N for signal N), -2 when it
// still runs at the deadline, -1 when it cannot be waited for.
int WaitForExit(pid_t pid, absl::Duration deadline);

// Starts argv in the background (output to `log_path`); returns its pid.
pid_t StartBackground(const std::vector<std::string>& argv, const std::string& log_path);
// Waits for a background process until the deadline, then kills it; returns its exit code
// (-1 when killed).
int WaitBackground(pid_t pid, absl::Duration deadline);

std::string ReadFile(const std::string& path);

// Polls `check` every 50 ms until it holds or `deadline` passes; returns whether it held. For
// state another process owns (an emulator, the operator binary, a container), which has no way
// to tell the test it changed.
bool PollUntil(const std::function<bool()>& check, absl::Duration deadline);

// The directory of the kubectl dispatcher found on PATH (symlinks followed), where the pinned
// kubectl.1.NN binaries live; "" when there is none.
std::string KubectlDir();

}  // namespace gpuprofile::e2e::testing
