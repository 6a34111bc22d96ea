// File: e2e/tests/emulator_shutdown_test.cc
// kube-emulator stops promptly on SIGTERM while clients hold watches and re-watch the moment a
// stream ends, as client-go's reflectors do (issue 15, item 5). Shutdown ends every watch; a
// client that comes back in the window before the listener closes used to get a new watch
// that nothing ever ended, and closing the listener waited for it (past EmulatorProcess's
// 10 s deadline). Plain HTTP and --tls.
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "e2e/tests/raw_http_client.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace emulator_shutdown_test {
namespace {

// Well under EmulatorProcess's 10 s; a quiet emulator stops in a few tens of milliseconds.
constexpr absl::Duration kPrompt = absl::Seconds(3);
constexpr int kWatchers = 6;

// The CA of a --tls emulator, from its --kubeconfig-out.
std::string KubeconfigCa(const std::string& path) {
  const std::string text = ReadFile(path);
  const std::string key = "certificate-authority-data: ";
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  std::string pem;
  absl::Base64Unescape(text.substr(at, text.find('\n', at) - at), &pem);
  return pem;
}
std::string KubeconfigToken(const std::string& path) {
  const std::string text = ReadFile(path);
  const std::string key = "token: ";
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return text.substr(at, text.find('\n', at) - at);
}

// Counts the watches the clients opened, so the test can wait for a number without sleeping.
class Opened {
 public:
  void Add() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
    }
    changed_.notify_all();
  }
  bool AwaitAtLeast(int n, absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                             [&] { return count_ >= n; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int count_ = 0;  // guarded by mu_
};

struct Case {
  const char* name;
  bool tls;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class EmulatorShutdownTest : public ::testing::TestWithParam<Case> {};

TEST_P(EmulatorShutdownTest, ExitsPromptlyWhileClientsReWatch) {
  // A client writing to a connection the server has just closed gets EPIPE, not a signal.
  ::signal(SIGPIPE, SIG_IGN);
  ScratchDir dir;
  std::vector<std::string> args = {"--kubeconfig-out", dir.File("kubeconfig")};
  if (GetParam().tls) args.push_back("--tls");
  EmulatorProcess emulator(args);
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  const std::string ca = GetParam().tls ? KubeconfigCa(dir.File("kubeconfig")) : "";
  const std::string token = KubeconfigToken(dir.File("kubeconfig"));

  // Each client watches, reads until its stream ends, and watches again at once; it stops when
  // it cannot connect any more (the emulator is gone) or when the test ends.
  Opened opened;
  std::atomic<bool> done{false};
  std::vector<std::thread> clients;
  for (int i = 0; i < kWatchers; ++i) {
    clients.emplace_back([&, i] {
      RawHttpClient client(emulator.url(), ca);
      client.SetBearerToken(token);
      const std::string path = i % 2 == 0 ? "/api/v1/namespaces/default/configmaps?watch=1"
                                          : "/api/v1/namespaces?watch=1&allowWatchBookmarks=true";
      while (!done.load()) {
        std::unique_ptr<LineStream> watch = client.Stream(path);
        if (watch == nullptr || watch->status() == 0) return;  // nothing listens any more
        if (watch->status() != 200) continue;                  // refused: try again at once
        opened.Add();
        while (!done.load() && !watch->ended()) watch->NextLine(absl::Milliseconds(100));
      }
    });
  }
  // Every client holds a watch; then all are dropped once and every client is back.
  ASSERT_TRUE(opened.AwaitAtLeast(kWatchers, absl::Seconds(20))) << opened.count();
  RawHttpClient admin(emulator.url(), ca);
  admin.SetBearerToken(token);
  ASSERT_EQ(admin.Request("POST", "/emulator/watches/drop").status, 200);
  ASSERT_TRUE(opened.AwaitAtLeast(2 * kWatchers, absl::Seconds(20))) << opened.count();

  const absl::Time start = absl::Now();
  const int code = emulator.Stop();  // SIGTERM; SIGKILL after 10 s (code -1)
  const absl::Duration took = absl::Now() - start;
  done = true;
  for (std::thread& t : clients) t.join();
  RecordProperty("stop_ms", static_cast<int>(absl::ToInt64Milliseconds(took)));
  EXPECT_EQ(code, 0) << "exit code (-1: still running 10 s after SIGTERM)\n" << emulator.Stderr();
  EXPECT_LT(took, kPrompt) << "kube-emulator took " << took << " to stop";
  std::printf("kube-emulator stopped in %s with %d watch clients (%d watches opened)\n",
              absl::FormatDuration(took).c_str(), kWatchers, opened.count());
}

INSTANTIATE_TEST_SUITE_P(Transports, EmulatorShutdownTest,
                         ::testing::Values(Case{"http", false}, Case{"tls", true}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace emulator_shutdown_test
}  // namespace gpuprofile::e2e::testing
