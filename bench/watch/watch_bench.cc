// File: bench/watch/watch_bench.cc
// The client benchmark of issue 5: list + watch of the ResourceSlices of a kube-emulator that
// bench/watch/run.sh started (seeded with 5,000 slices of 8 devices), with the ResourceSlice
// informer the operator ships (reconciler::NewResourceSliceInformer: Watcher + Reflector with
// the simdjson raw decoder, falling back to the DOM path) over HTTP. Prints one JSON line:
//   slices, sync_ms          slices cached, and the time from starting the watcher to HasSynced
//   json_bytes_per_slice     compact JSON of the cached objects without managedFields (mean)
//   heap_bytes_per_slice     malloc'd bytes the filled store holds per slice (mallinfo2 delta)
//   rss_bytes_per_slice      the same as an RSS delta
//   memory_ratio             heap_bytes_per_slice / json_bytes_per_slice (target <= 1.0)
//   updates, update_errors   merge patches sent by the writer thread at --rate per second for
//                            --seconds (each sets spec.pool.generation to its send time, in
//                            Unix nanoseconds: the handler reads it from the decoded slice)
//   live_events, live_events_per_s, p50_ms, p99_ms, max_ms
//                            MODIFIED events the handler (an informer handler) saw, and the
//                            latency from sending the patch to the handler
//   decode_lines             recorded event lines (a watch's initial ADDED events: real server
//                            output), decoded on this one thread, each figure the median of 5
//                            passes, in CPU time of the thread:
//   fast_events_per_s        the operator's slice informer (Watcher envelope + raw decoder +
//                            store + handlers) over an in-memory transport replaying the lines
//                            (a second time: each event replaces its slice, as updates do)
//   dom_parse_events_per_s   nlohmann::json::parse of each line (the issue's baseline)
//   dom_decode_events_per_s  nlohmann::json::parse + DecodeSlice (the watcher's former path)
//   fast_vs_dom_parse        fast_events_per_s / dom_parse_events_per_s
//   fallbacks                events the raw decoder handed to the DOM path
// Usage: watch_bench URL [--rate N] [--seconds S] [--decode-lines N] [--save-lines FILE]
//        watch_bench --lines FILE   (the decode comparison only, over saved lines)
// With WATCH_BENCH_FAST_ONLY set, the baselines are skipped (to profile the fast path alone).
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "controller/dra/resource_slice.h"
#include "controller/kube/socket_transport.h"
#include "controller/kube/informer.h"
#include "controller/kube/rest_client.h"
#include "controller/kube/watcher.h"
#include "controller/reconciler/cluster_cache.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {
namespace {

const ResourcePath kSlices{"resource.k8s.io", "v1", "resourceslices", "", "", ""};
constexpr dra::DraApiVersion kVersion = dra::DraApiVersion::kV1;  // kSlices' version

std::unique_ptr<Informer<dra::ResourceSlice>> NewSliceInformer(RestClient* client) {
  return reconciler::NewResourceSliceInformer(client, WatcherOptions{}, kVersion);
}

int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int64_t HeapBytes() {
  malloc_trim(0);
  struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

int64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "VmRSS:")) return std::atoll(line.c_str() + 6) * 1024;
  }
  return -1;
}

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Answers the list with an empty ResourceSliceList and the watch with the recorded lines, twice,
// then holds the stream open until cancelled. Measures the thread CPU time the second round takes
// (the watcher's work on the lines, on the transport's calling thread).
class ReplayTransport final : public HttpTransport {
 public:
  explicit ReplayTransport(const std::vector<std::string>* lines) : lines_(lines) {}

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request, Cancellation* cancel) override {
    HttpResponse r;
    r.status = 200;
    r.body = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSliceList",)"
             R"("metadata":{"resourceVersion":"1"},"items":[]})";
    return r;
  }

  absl::StatusOr<HttpResponse> Stream(const HttpRequest& request, const LineCallback& on_line,
                                      Cancellation* cancel) override {
    HttpResponse head;
    head.status = 200;
    if (!done_.HasBeenNotified()) {
      // A first round fills the store; the second, measured, replaces every slice (the steady
      // state of a watch: each event's predecessor is freed).
      for (const std::string& line : *lines_) on_line(line);
      const double start = ThreadCpuSeconds();
      for (const std::string& line : *lines_) {
        if (!on_line(line)) break;
      }
      cpu_seconds_ = ThreadCpuSeconds() - start;
      done_.Notify();
    }
    absl::Notification cancelled;
    ScopedCancelCallback on_cancel(cancel, [&cancelled] { cancelled.Notify(); });
    cancelled.WaitForNotification();
    return absl::CancelledError("cancelled");
  }

  std::string host() const override { return "replay"; }

  // Waits until the lines were delivered; returns the CPU seconds they took.
  double Wait() {
    done_.WaitForNotification();
    return cpu_seconds_;
  }

 private:
  const std::vector<std::string>* const lines_;
  absl::Notification done_;
  double cpu_seconds_ = 0;  // written before done_ is notified
};

// Events per CPU-second of the shipped path: a fresh slice informer fed the lines by a
// ReplayTransport (its thread runs the watcher, so the transport measures the informer's work).
double FastPass(const std::vector<std::string>& lines, int64_t* fallbacks) {
  ReplayTransport transport(&lines);
  RestClientOptions client_options;
  client_options.qps = 0;
  RestClient client(&transport, client_options);
  std::unique_ptr<Informer<dra::ResourceSlice>> informer = NewSliceInformer(&client);
  informer->Start();
  const double cpu = transport.Wait();
  informer->Stop();
  *fallbacks = informer->raw_fallbacks();
  if (informer->watcher().stats().events != 2 * static_cast<int64_t>(lines.size())) {
    std::fprintf(stderr, "fast pass applied %lld of %zu events\n",
                 static_cast<long long>(informer->watcher().stats().events), lines.size());
  }
  return lines.size() / cpu;
}

double DomPass(const std::vector<std::string>& lines, bool decode) {
  size_t ok = 0;
  const double start = ThreadCpuSeconds();
  for (const std::string& line : lines) {
    nlohmann::json event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!decode) {
      ok += event.is_object() ? 1 : 0;
      continue;
    }
    absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(event["object"]);
    if (slice.ok()) {
      auto shared = std::make_shared<const dra::ResourceSlice>(*std::move(slice));
      ok += shared->devices.empty() ? 0 : 1;
    }
  }
  const double cpu = ThreadCpuSeconds() - start;
  if (ok != lines.size()) std::fprintf(stderr, "dom pass: %zu of %zu ok\n", ok, lines.size());
  return lines.size() / cpu;
}

// The one-thread decode comparison over `lines` (median of 5 passes each).
nlohmann::json DecodeFigures(const std::vector<std::string>& lines) {
  double line_bytes = 0;
  for (const std::string& line : lines) line_bytes += line.size();
  std::vector<double> fast, dom_parse, dom_decode;
  int64_t fallbacks = 0;
  for (int pass = 0; pass < 5; ++pass) {
    fast.push_back(FastPass(lines, &fallbacks));
    if (getenv("WATCH_BENCH_FAST_ONLY") != nullptr) continue;  // for profiling the fast path
    dom_parse.push_back(DomPass(lines, /*decode=*/false));
    dom_decode.push_back(DomPass(lines, /*decode=*/true));
  }

  return {
      {"decode_lines", lines.size()},
      {"line_bytes", line_bytes / lines.size()},
      {"fast_events_per_s", Median(fast)},
      {"dom_parse_events_per_s", Median(dom_parse)},
      {"dom_decode_events_per_s", Median(dom_decode)},
      {"fast_vs_dom_parse", Median(fast) / Median(dom_parse)},
      {"fallbacks", fallbacks},
  };
}

int Run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: watch_bench URL [--rate N] [--seconds S] [--decode-lines N]\n");
    return 2;
  }
  const std::string url = argv[1];
  int rate = 100, seconds = 20, decode_lines = 5000;
  std::string save_lines;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--save-lines") {
      save_lines = argv[i + 1];
      continue;
    }
    int* target = flag == "--rate"           ? &rate
                  : flag == "--seconds"      ? &seconds
                  : flag == "--decode-lines" ? &decode_lines
                                             : nullptr;
    if (target == nullptr || !absl::SimpleAtoi(argv[i + 1], target)) {
      std::fprintf(stderr, "bad flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (url == "--lines") {  // offline: the decode comparison over a file of event lines
    std::ifstream file(argc > 2 ? argv[2] : "");
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    if (lines.empty()) return 1;
    std::printf("%s\n", DecodeFigures(lines).dump().c_str());
    return 0;
  }
  SocketTransportOptions transport_options;
  transport_options.server = url;
  absl::StatusOr<std::unique_ptr<HttpTransport>> transport = NewSocketTransport(transport_options);
  if (!transport.ok()) {
    std::fprintf(stderr, "%s\n", transport.status().ToString().c_str());
    return 1;
  }
  RestClientOptions client_options;
  client_options.qps = 0;  // the benchmark's writes must not wait for a client-side limiter
  RestClient client(transport->get(), client_options);
  RestClient writer_client(transport->get(), client_options);

  // 1. List + watch until synced; memory of the filled store.
  const int64_t heap_before = HeapBytes();
  const int64_t rss_before = RssBytes();
  std::unique_ptr<Informer<dra::ResourceSlice>> informer = NewSliceInformer(&client);
  absl::Mutex mu;
  std::vector<int64_t> latencies_ns;
  latencies_ns.reserve(static_cast<size_t>(rate) * seconds + 16);
  std::atomic<bool> measuring{false};
  // A modification: both set (an informer announces every change as before, after).
  informer->AddHandler([&](const dra::ResourceSlice* before, const dra::ResourceSlice* after) {
    if (before == nullptr || after == nullptr || !measuring.load()) return;
    const int64_t latency = NowNs() - after->pool_generation;
    absl::MutexLock lock(&mu);
    latencies_ns.push_back(latency);
  });
  const absl::Time start = absl::Now();
  informer->Start();
  if (!informer->WaitForSync(absl::Now() + absl::Minutes(5))) {
    std::fprintf(stderr, "not synced: %s\n", informer->watcher().last_error().ToString().c_str());
    informer->Stop();
    return 1;
  }
  const double sync_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  const size_t slices = informer->store().Size();
  std::fprintf(stderr, "synced %zu slices in %.0f ms\n", slices, sync_ms);
  const int64_t heap_bytes = HeapBytes() - heap_before;
  const int64_t rss_bytes = RssBytes() - rss_before;

  // Compact JSON of the same objects, without managedFields.
  std::vector<std::string> names;
  double json_bytes = 0;
  {
    absl::StatusOr<ObjectList> list = client.ListAll(kSlices, {});
    if (!list.ok()) {
      std::fprintf(stderr, "list: %s\n", list.status().ToString().c_str());
      return 1;
    }
    for (nlohmann::json& item : list->items) {
      if (item.contains("metadata")) item["metadata"].erase("managedFields");
      json_bytes += item.dump().size();
      names.push_back(item["metadata"]["name"].get<std::string>());
    }
    json_bytes /= std::max<size_t>(list->items.size(), 1);
  }

  // 2. The writer: merge patches at `rate` per second for `seconds`.
  measuring = true;
  const int total = rate * seconds;
  std::atomic<int> update_errors{0};
  const int64_t events_before = informer->watcher().stats().events;
  const absl::Time live_start = absl::Now();
  std::thread writer([&] {
    for (int i = 0; i < total; ++i) {
      const absl::Time at = live_start + absl::Seconds(1) * i / rate;
      absl::SleepFor(at - absl::Now());
      const nlohmann::json patch = {{"spec", {{"pool", {{"generation", NowNs()}}}}}};
      if (!writer_client
               .Patch(kSlices.WithName(names[static_cast<size_t>(i) % names.size()]),
                      PatchType::kMerge, patch)
               .ok()) {
        ++update_errors;
      }
    }
  });
  writer.join();
  const int expected = total - update_errors.load();
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (absl::Now() < give_up) {
    {
      absl::MutexLock lock(&mu);
      if (static_cast<int>(latencies_ns.size()) >= expected) break;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  const double live_seconds = absl::ToDoubleSeconds(absl::Now() - live_start);
  measuring = false;
  std::vector<int64_t> latencies;
  {
    absl::MutexLock lock(&mu);
    latencies = latencies_ns;
  }
  const int64_t live_events = informer->watcher().stats().events - events_before;
  informer->Stop();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies.empty() ? -1.0
                             : latencies[static_cast<size_t>(p * (latencies.size() - 1))] / 1e6;
  };

  std::fprintf(stderr, "live: %zu updates handled in %.1f s\n", latencies.size(), live_seconds);
  // 3. Decode throughput on one thread, over recorded lines: a watch's initial ADDED events.
  std::vector<std::string> lines;
  {
    Cancellation cancel;
    WatchOptions watch;
    watch.allow_bookmarks = false;
    watch.timeout_seconds = 120;
    absl::Status s = client.Watch(
        kSlices, watch,
        [&](absl::string_view line) {
          // The type may come first or last (the emulator sorts the members).
          if (absl::StrContains(line.substr(0, 32), "\"ADDED\"") ||
              absl::StrContains(line.substr(line.size() > 32 ? line.size() - 32 : 0),
                                "\"ADDED\"")) {
            lines.emplace_back(line);
          }
          return static_cast<int>(lines.size()) < decode_lines;
        },
        &cancel);
    if (lines.empty()) {
      std::fprintf(stderr, "no lines recorded: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  nlohmann::json out = DecodeFigures(lines);
  if (!save_lines.empty()) {
    std::ofstream file(save_lines);
    for (const std::string& line : lines) file << line << "\n";
  }
  out.update({
      {"slices", slices},
      {"sync_ms", sync_ms},
      {"json_bytes_per_slice", json_bytes},
      {"heap_bytes_per_slice", static_cast<double>(heap_bytes) / std::max<size_t>(slices, 1)},
      {"rss_bytes_per_slice", static_cast<double>(rss_bytes) / std::max<size_t>(slices, 1)},
      {"memory_ratio", heap_bytes / std::max<double>(slices, 1) / json_bytes},
      {"updates", total},
      {"update_errors", update_errors.load()},
      {"live_events", live_events},
      {"live_seconds", live_seconds},
      {"live_events_per_s", live_events / live_seconds},
      {"handled_updates", latencies.size()},
      {"p50_ms", pct(0.5)},
      {"p99_ms", pct(0.99)},
      {"max_ms", pct(1.0)},
  });
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace gpuprofile::kube

int main(int argc, char** argv) { return gpuprofile::kube::Run(argc, argv); }
