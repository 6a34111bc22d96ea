// File: controller/kube/host.cc
#include "controller/kube/host.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "controller/core/input_limits.h"

extern char** environ;

namespace gpuprofile::kube {
namespace {

absl::Status ErrnoStatus(int err, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

class PosixFileSystem final : public FileSystem {
 public:
  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, path);
    std::string out;
    char buf[8192];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(fd);
        return ErrnoStatus(err, path);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
      // Every file the client reads (kubeconfig, token, certificates) is small; a path such as
      // /dev/zero must not exhaust memory before the callers' own size checks run.
      if (out.size() > limits::kMaxKubeconfigBytes) {
        ::close(fd);
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": larger than ", limits::kMaxKubeconfigBytes >> 20,
            " MiB, more than any kubeconfig, token or certificate file (input_limits.h)"));
      }
    }
    ::close(fd);
    return out;
  }
};

class PosixEnvironment final : public Environment {
 public:
  std::optional<std::string> Get(const std::string& name) override {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
};

class PosixProcessRunner final : public ProcessRunner {
 public:
  absl::StatusOr<ProcessResult> Run(const std::vector<std::string>& argv,
                                    const std::vector<std::pair<std::string, std::string>>& extra,
                                    absl::Duration timeout) override {
    if (argv.empty()) return absl::InvalidArgumentError("no command to run");
    std::map<std::string, std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const char* eq = std::strchr(*e, '=');
      if (eq == nullptr) continue;
      env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
    }
    for (const auto& [key, value] : extra) env[key] = value;
    std::vector<std::string> env_strings;
    for (const auto& [key, value] : env) env_strings.push_back(absl::StrCat(key, "=", value));
    std::vector<char*> envp;
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    for (std::string& s : args) argp.push_back(s.data());
    argp.push_back(nullptr);

    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe");
    if (::pipe2(err, O_CLOEXEC) != 0) {
      int e = errno;
      ::close(out[0]);
      ::close(out[1]);
      return ErrnoStatus(e, "pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    pid_t pid = -1;
    int rc = ::posix_spawnp(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
      ::close(out[0]);
      ::close(err[0]);
      return ErrnoStatus(rc, absl::StrCat("running \"", argv[0], "\""));
    }
    ProcessResult result;
    const absl::Time deadline = absl::Now() + timeout;
    bool timed_out = false;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
      const int64_t wait_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
      if (wait_ms <= 0) {
        timed_out = true;
        break;
      }
      int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(wait_ms, 1 << 30)));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || fds[i].revents == 0) continue;
        char buf[4096];
        ssize_t r = ::read(fds[i].fd, buf, sizeof(buf));
        if (r > 0) {
          // Output past the exec plugin limit is drained and dropped: the caller's size check
          // (one byte over the limit is kept) then rejects it, and memory stays bounded.
          std::string& text = i == 0 ? result.stdout_text : result.stderr_text;
          if (text.size() <= limits::kMaxExecCredentialBytes) {
            text.append(buf, std::min(static_cast<size_t>(r),
                                      limits::kMaxExecCredentialBytes + 1 - text.size()));
          }
        } else if (r == 0 || errno != EINTR) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      }
    }
    for (pollfd& p : fds) {
      if (p.fd >= 0) ::close(p.fd);
    }
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
      return absl::DeadlineExceededError(
          absl::StrCat("\"", argv[0], "\" did not finish within ", absl::FormatDuration(timeout)));
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (result.exit_code == 127 && result.stdout_text.empty()) {
      return absl::NotFoundError(absl::StrCat("command \"", argv[0], "\" not found"));
    }
    return result;
  }
};

}  // namespace

FileSystem* RealFileSystem() {
  static FileSystem* const fs = new PosixFileSystem();
  return fs;
}

Environment* RealEnvironment() {
  static Environment* const env = new PosixEnvironment();
  return env;
}

ProcessRunner* RealProcessRunner() {
  static ProcessRunner* const runner = new PosixProcessRunner();
  return runner;
}

}  // namespace gpuprofile::kube
