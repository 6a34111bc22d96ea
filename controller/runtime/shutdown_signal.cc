// File: controller/runtime/shutdown_signal.cc
#include "controller/runtime/shutdown_signal.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::runtime {
namespace {

// State the handler touches: lock-free atomics only (async-signal-safe).
std::atomic<int> g_pipe_write{-1};
std::atomic<int> g_signals_seen{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free ints");

constexpr char kExitNow[] = "second termination signal: exiting now\n";

void HandleSignal(int signal_number) {
  const int saved_errno = errno;
  if (g_signals_seen.fetch_add(1) >= 1) {
    (void)!::write(STDERR_FILENO, kExitNow, sizeof(kExitNow) - 1);
    ::_exit(1);
  }
  const unsigned char byte = static_cast<unsigned char>(signal_number);
  // Non-blocking: if the pipe were full the request is already pending anyway.
  (void)!::write(g_pipe_write.load(), &byte, 1);
  errno = saved_errno;
}

absl::Status SysError(const char* call) {
  return absl::InternalError(
      absl::StrCat("shutdown signal handling: ", call, " failed: ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<ShutdownSignal*> ShutdownSignal::Install() {
  static absl::Mutex install_mu(absl::kConstInit);
  static ShutdownSignal* instance = nullptr;
  absl::MutexLock lock(&install_mu);
  if (instance != nullptr) return instance;

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SysError("pipe2");
  if (::fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) {
    absl::Status status = SysError("fcntl(O_NONBLOCK)");
    ::close(fds[0]);
    ::close(fds[1]);
    return status;
  }
  g_pipe_write.store(fds[1]);
  auto* signal = new ShutdownSignal();  // never destroyed: the handler may run until exit
  std::thread([signal, fd = fds[0]] { signal->ReadPipe(fd); }).detach();

  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = HandleSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT}) {
    if (::sigaction(sig, &action, nullptr) != 0) return SysError("sigaction");
  }
  instance = signal;
  return instance;
}

void ShutdownSignal::ReadPipe(int fd) {
  while (true) {
    unsigned char byte = 0;
    const ssize_t n = ::read(fd, &byte, 1);
    if (n == 1) {
      Request(byte);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return;  // the pipe cannot fail while the process lives; stop reading if it does
    }
  }
}

void ShutdownSignal::Request(int signal_number) {
  absl::MutexLock lock(&mu_);
  if (requested_) return;
  requested_ = true;
  signal_number_ = signal_number;
}

void ShutdownSignal::Notify() { Request(0); }

void ShutdownSignal::Wait() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&requested_));
}

bool ShutdownSignal::WaitUntil(absl::Time deadline, Clock* clock) {
  absl::MutexLock lock(&mu_);
  return clock->AwaitWithDeadline(&mu_, absl::Condition(&requested_), deadline);
}

bool ShutdownSignal::requested() const {
  absl::MutexLock lock(&mu_);
  return requested_;
}

int ShutdownSignal::signal_number() const {
  absl::MutexLock lock(&mu_);
  return signal_number_;
}

void ShutdownSignal::ResetForTesting() {
  absl::MutexLock lock(&mu_);
  requested_ = false;
  signal_number_ = -1;
  g_signals_seen.store(0);
}

absl::Status GracePeriod::Run(std::function<void()> shutdown) {
  struct State {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
  };
  auto state = std::make_shared<State>();
  const absl::Time deadline = clock_->Now() + grace_;
  std::thread worker([state, fn = std::move(shutdown)] {
    fn();
    absl::MutexLock lock(&state->mu);
    state->done = true;
  });
  bool done;
  {
    absl::MutexLock lock(&state->mu);
    done = clock_->AwaitWithDeadline(&state->mu, absl::Condition(&state->done), deadline);
  }
  if (done) {
    worker.join();
    return absl::OkStatus();
  }
  worker.detach();  // `state` is shared, so the worker may finish after we return
  return absl::DeadlineExceededError(absl::StrCat(
      "shutdown did not finish within the grace period of ", absl::FormatDuration(grace_)));
}

}  // namespace gpuprofile::runtime
