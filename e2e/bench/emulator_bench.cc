// File: e2e/bench/emulator_bench.cc
// The kube-emulator benchmark of issue 4, as a client of an emulator that e2e/bench/run.sh
// started (seeded with 5,000 ResourceSlices, --state off). Prints one JSON line:
//   list_ms        a full list of the slices read by the raw HTTP client (median of 5)
//   writes_per_s   sequential slice creations while 100 watchers read every event
//   p50_ms/p99_ms  delivery latency of those events over all watchers (write sent → line read)
//   idle_watch_kib emulator RSS growth for 1,000 idle watches
// Usage: e2e_emulator_bench URL PID [WRITES]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "e2e/tests/raw_http_client.h"

namespace gpuprofile::e2e::testing {
namespace {

long RssKib(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

nlohmann::json Slice(const std::string& name, int64_t sent_ns) {
  nlohmann::json devices = nlohmann::json::array();
  for (int d = 0; d < 8; ++d) {
    devices.push_back(
        {{"name", absl::StrCat("gpu-", d)},
         {"attributes",
          {{"model", {{"string", "H100-SXM5-80GB"}}},
           {"uuid", {{"string", absl::StrCat("GPU-", name, "-", d, "-0000-1111-2222")}}},
           {"index", {{"int", d}}},
           {"driverVersion", {{"version", "550.54.15"}}},
           {"cudaComputeCapability", {{"version", "9.0.0"}}},
           {"pcieRoot", {{"string", absl::StrCat("pci0000:", d)}}}}},
         {"capacity", {{"memory", {{"value", "80Gi"}}}, {"sm", {{"value", "132"}}}}}});
  }
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceSlice"},
      {"metadata", {{"name", name}, {"annotations", {{"bench/sent-ns", std::to_string(sent_ns)}}}}},
      {"spec",
       {{"driver", "gpu.example.com"},
        {"nodeName", name},
        {"pool", {{"name", name}, {"generation", 1}, {"resourceSliceCount", 1}}},
        {"devices", devices}}}};
}

int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: e2e_emulator_bench URL PID [WRITES]\n");
    return 2;
  }
  std::string url = argv[1];
  std::string pid = argv[2];
  int writes = 2000;
  if (argc > 3 && !absl::SimpleAtoi(argv[3], &writes)) return 2;
  RawHttpClient http(url);
  const std::string slices = "/apis/resource.k8s.io/v1/resourceslices";

  // 1. Full list.
  std::vector<double> list_ms;
  std::string rv;
  size_t items = 0;
  for (int i = 0; i < 5; ++i) {
    absl::Time start = absl::Now();
    RawResponse r = http.Get(slices);
    list_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (r.status != 200) {
      std::fprintf(stderr, "list: %d\n", r.status);
      return 1;
    }
    if (i == 0) {
      nlohmann::json list = r.Json();
      items = list["items"].size();
      rv = list["metadata"]["resourceVersion"];
    }
  }
  std::sort(list_ms.begin(), list_ms.end());

  // 2. 100 line-splitting watchers; sequential writes; delivery latency.
  constexpr int kWatchers = 100;
  std::vector<std::unique_ptr<LineStream>> streams;
  for (int i = 0; i < kWatchers; ++i) {
    streams.push_back(http.Stream(slices + "?watch=1&resourceVersion=" + rv));
    if (!streams.back() || streams.back()->status() != 200) {
      std::fprintf(stderr, "watch %d failed\n", i);
      return 1;
    }
  }
  std::vector<std::vector<int64_t>> latencies(kWatchers);
  std::atomic<int> done{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < kWatchers; ++i) {
    readers.emplace_back([&, i] {
      int seen = 0;
      const std::string key = "\"bench/sent-ns\":\"";
      while (seen < writes) {
        std::optional<std::string> line = streams[i]->NextLine(absl::Seconds(30));
        if (!line) break;
        int64_t now = NowNs();
        size_t at = line->find(key);
        if (at == std::string::npos) continue;
        int64_t sent = std::atoll(line->c_str() + at + key.size());
        latencies[i].push_back(now - sent);
        ++seen;
      }
      done.fetch_add(1);
    });
  }
  absl::Time start = absl::Now();
  int failed = 0;
  for (int w = 0; w < writes; ++w) {
    RawResponse r = http.Post(slices, Slice(absl::StrCat("bench-", w), NowNs()));
    if (r.status != 201) ++failed;
  }
  double write_s = absl::ToDoubleSeconds(absl::Now() - start);
  for (std::thread& t : readers) t.join();
  std::vector<int64_t> all;
  size_t complete = 0;
  for (const auto& l : latencies) {
    all.insert(all.end(), l.begin(), l.end());
    if (static_cast<int>(l.size()) == writes) ++complete;
  }
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? -1.0 : all[static_cast<size_t>(p * (all.size() - 1))] / 1e6;
  };
  streams.clear();

  // 3. 1,000 idle watches.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  long before = RssKib(pid);
  std::vector<std::unique_ptr<LineStream>> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.push_back(http.Stream(
        "/api/v1/namespaces/kube-public/configmaps?watch=1&resourceVersion=" + std::to_string(1)));
    if (!idle.back()) {
      std::fprintf(stderr, "idle watch %d failed\n", i);
      return 1;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  long after = RssKib(pid);

  nlohmann::json out = {{"items", items},
                        {"list_ms", list_ms[list_ms.size() / 2]},
                        {"writes", writes},
                        {"write_failures", failed},
                        {"writes_per_s", writes / write_s},
                        {"watchers_complete", complete},
                        {"p50_ms", pct(0.5)},
                        {"p99_ms", pct(0.99)},
                        {"rss_before_idle_kib", before},
                        {"rss_after_idle_kib", after},
                        {"idle_watch_kib", after - before}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace gpuprofile::e2e::testing

int main(int argc, char** argv) { return gpuprofile::e2e::testing::Run(argc, argv); }
