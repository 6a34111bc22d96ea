// File: test/testing/emulator_process.cc
#include "test/testing/emulator_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {
namespace {

std::vector<char*> Argv(const std::vector<std::string>& args) {
  std::vector<char*> out;
  for (const std::string& a : args) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// In a forked child, before exec: the child gets SIGKILL when the test process dies, so a test
// that crashes or is killed by ctest's timeout leaves no kube-emulator or operator running
// (destructors do not run then). The parent may already be gone before prctl: check.
void DieWithParent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
}

}  // namespace

int WaitForExit(pid_t pid, absl::Duration deadline) {
  absl::Time end = absl::Now() + deadline;
  absl::Duration step = absl::Milliseconds(1);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r < 0) return -1;
    if (absl::Now() >= end) return -2;
    // Polling with a deadline: the child has no other way to tell us it exited.
    ::usleep(static_cast<useconds_t>(absl::ToInt64Microseconds(step)));
    step = std::min(step * 2, absl::Milliseconds(50));
  }
}

bool PollUntil(const std::function<bool()>& check, absl::Duration deadline) {
  const absl::Time end = absl::Now() + deadline;
  while (absl::Now() < end) {
    if (check()) return true;
    ::usleep(50 * 1000);
  }
  return check();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

EmulatorProcess::EmulatorProcess(std::vector<std::string> args) {
  char tmpl[] = "/tmp/kube-emulator-stderr-XXXXXX";
  int err_fd = ::mkstemp(tmpl);
  stderr_path_ = tmpl;
  int out[2];
  if (::pipe(out) != 0) return;
  // Where e2e/CMakeLists.txt builds kube-emulator; through test_paths.h, so that no absolute path
  // lands in a compile definition.
  std::vector<std::string> argv = {::gpuprofile::testing::BinaryDir() + "/e2e/kube-emulator",
                                   "--listen", "127.0.0.1:0"};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    DieWithParent(parent);
    ::dup2(out[1], 1);
    ::dup2(err_fd, 2);
    ::close(out[0]);
    ::close(out[1]);
    std::vector<char*> a = Argv(argv);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err_fd);
  std::string line;
  absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (line.find('\n') == std::string::npos) {
    pollfd p{out[0], POLLIN, 0};
    int wait = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (wait <= 0 || ::poll(&p, 1, wait) <= 0) break;
    char buf[256];
    ssize_t n = ::read(out[0], buf, sizeof(buf));
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  if (line.rfind("http", 0) == 0 && line.find('\n') != std::string::npos) {
    url_ = line.substr(0, line.find('\n'));
  }
}

EmulatorProcess::~EmulatorProcess() {
  Stop();
  if (!stderr_path_.empty()) ::unlink(stderr_path_.c_str());
}

std::string EmulatorProcess::Stderr() const { return ReadFile(stderr_path_); }

int EmulatorProcess::Stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int code = WaitForExit(pid_, absl::Seconds(10));
  if (code == -2) {
    ::kill(pid_, SIGKILL);
    WaitForExit(pid_, absl::Seconds(10));
    code = -1;
  }
  pid_ = -1;
  return code;
}

ScratchDir::ScratchDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = absl::StrCat(base ? base : "/tmp", "/e2e-XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data())) path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

void ScratchDir::Write(const std::string& name, const std::string& text) const {
  std::ofstream out(File(name));
  out << text;
}

pid_t SpawnProcess(const std::vector<std::string>& argv, const std::string& out_path,
                   const std::string& err_path, bool append) {
  const int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    DieWithParent(parent);
    ::setpgid(0, 0);
    int out = ::open(out_path.c_str(), flags, 0644);
    int err = err_path == out_path ? out : ::open(err_path.c_str(), flags, 0644);
    if (out < 0 || err < 0) ::_exit(126);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> a = Argv(argv);
    ::execvp(a[0], a.data());
    ::_exit(127);
  }
  return pid;
}

pid_t StartBackground(const std::vector<std::string>& argv, const std::string& log_path) {
  return SpawnProcess(argv, log_path, log_path, /*append=*/false);
}

int WaitBackground(pid_t pid, absl::Duration deadline) {
  int code = WaitForExit(pid, deadline);
  if (code == -2) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    WaitForExit(pid, absl::Seconds(10));
    return -1;
  }
  return code;
}

CommandResult RunCommand(const std::vector<std::string>& argv, absl::Duration deadline) {
  char tmpl[] = "/tmp/e2e-cmd-XXXXXX";
  int fd = ::mkstemp(tmpl);
  ::close(fd);
  pid_t pid = StartBackground(argv, tmpl);
  CommandResult r;
  r.exit_code = WaitBackground(pid, deadline);
  r.out = ReadFile(tmpl);
  ::unlink(tmpl);
  return r;
}

std::string KubectlDir() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::filesystem::path candidate = std::filesystem::path(dir) / "kubectl";
    std::error_code ec;
    if (!dir.empty() && std::filesystem::exists(candidate, ec)) {
      return std::filesystem::canonical(candidate, ec).parent_path().string();
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

}  // namespace gpuprofile::e2e::testing
