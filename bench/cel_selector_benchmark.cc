// File: bench/cel_selector_benchmark.cc
// Throughput of a typical GpuProfile selector over 100,000 devices, against a hand-written C++
// predicate of the same logic reading the same device representation (the CEL device value),
// measured in the same run so that the ratio holds on a noisy machine.
//
// The selector: the driver-and-type guard, memory >= 40Gi via compareTo(quantity()), compute
// capability >= 8.0 via compareTo(semver()), and the product in a list, with the presence
// checks the profile compiler emits.
//
// BM_PairedRatio is the figure the target is set on (CEL / hand-written <= 1.3): it alternates
// one CEL pass and one hand-written pass over the same devices, times each on the thread's CPU
// clock (time the machine gives to other processes is not counted) and reports the median of
// the per-pair ratios, so that load which comes and goes hits both sides alike.
//
// Run: build/bench/cel_selector_benchmark --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
// or, for the targets against the previous main's figures: python3 bench/figures.py cel
#include <time.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "controller/cel/environment.h"
#include "controller/cel/library_values.h"
#include "controller/cel/program.h"
#include "controller/dra_cel/device_value.h"

namespace gpuprofile::cel {
namespace {

constexpr int kDevices = 100000;

constexpr char kSelector[] =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu' && "
    "'memory' in device.capacity['gpu.nvidia.com'] && "
    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0 && "
    "'cudaComputeCapability' in device.attributes['gpu.nvidia.com'] && "
    "device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo(semver('8.0.0')) >= 0 "
    "&& 'productName' in device.attributes['gpu.nvidia.com'] && "
    "device.attributes['gpu.nvidia.com'].productName in "
    "['NVIDIA A100-SXM4-40GB', 'NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA L40S']";

dra::AttributeValue Str(absl::string_view s) { return dra::AttributeValue::String(s); }
dra::AttributeValue Ver(absl::string_view s) { return dra::AttributeValue::Version(s); }

// A mixed fleet: NVIDIA A100 / H100 / L40S / T4 GPUs and MIG devices, plus another vendor.
const std::vector<Value>& Fleet() {
  static const std::vector<Value>* const kFleet = [] {
    struct Kind {
      const char* driver;
      const char* type;
      const char* product;
      const char* cc;
      const char* memory;
    };
    const Kind kinds[] = {
        {"gpu.nvidia.com", "gpu", "NVIDIA A100-SXM4-40GB", "8.0.0", "40Gi"},
        {"gpu.nvidia.com", "gpu", "NVIDIA H100 80GB HBM3", "9.0.0", "80Gi"},
        {"gpu.nvidia.com", "gpu", "NVIDIA L40S", "8.9.0", "46068Mi"},
        {"gpu.nvidia.com", "gpu", "Tesla T4", "7.5.0", "15360Mi"},
        {"gpu.nvidia.com", "mig", "NVIDIA A100-SXM4-40GB", "8.0.0", "4864Mi"},
        {"gpu.amd.com", "amdgpu", "AMD Instinct MI300X", nullptr, "192Gi"},
    };
    std::mt19937 rng(42);
    DeviceValueBuilder builder;
    auto* out = new std::vector<Value>();
    out->reserve(kDevices);
    for (int i = 0; i < kDevices; ++i) {
      const Kind& k = kinds[rng() % (sizeof(kinds) / sizeof(kinds[0]))];
      const std::string node = "node-" + std::to_string(i / 8);
      dra::DeviceBuilder b("gpu-" + std::to_string(i % 8));
      b.Driver(k.driver).Pool(node, 0).Node(node);
      b.Attribute("type", Str(k.type));
      b.Attribute("productName", Str(k.product));
      b.Attribute("uuid", Str("GPU-" + std::to_string(rng())));
      b.Attribute("brand", Str("Nvidia"));
      b.Attribute("driverVersion", Ver("550.127.8"));
      b.Attribute("resource.kubernetes.io/pcieRoot", Str("pci0000:00"));
      b.Attribute("resource.kubernetes.io/pciBusID",
                  Str("0000:" + std::to_string(10 + i % 8) + ":00.0"));
      if (k.cc != nullptr) b.Attribute("cudaComputeCapability", Ver(k.cc));
      b.Capacity("memory", *Quantity::Parse(k.memory));
      const dra::Device d = b.Build();
      out->push_back(builder.Build(d));
    }
    return out;
  }();
  return *kFleet;
}

std::shared_ptr<const Program> CompiledSelector() {
  CompileOptions options;
  options.require_bool_result = true;
  auto program =
      Compile(kSelector, Environment::ForDeviceSelectors(KubeVersion::Newest()), options);
  if (!program.ok()) {
    fprintf(stderr, "selector does not compile: %s\n", program.status().ToString().c_str());
    std::abort();
  }
  return *program;
}

void BM_CelSelector(benchmark::State& state) {
  const absl::Span<const Value> fleet =
      absl::MakeConstSpan(Fleet()).first(static_cast<size_t>(state.range(0)));
  std::shared_ptr<const Program> program = CompiledSelector();
  int64_t matched = 0;
  for (auto _ : state) {
    for (const Value& device : fleet) {
      Value v = program->Evaluate({device});
      matched += v.IsTrue();
    }
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(fleet.size()));
}
BENCHMARK(BM_CelSelector)->Arg(kDevices)->Arg(1000)->Unit(benchmark::kMillisecond);

// The same logic written by hand against the same device value.
bool HandWritten(const Value& device, const Quantity& min_memory, const Semver& min_cc) {
  const MapValue& fields = device.map_value();
  std::optional<Value> driver = fields.FindString("driver");
  if (!driver || driver->string_value() != "gpu.nvidia.com") return false;
  std::optional<Value> attrs =
      fields.FindString("attributes")->map_value().FindString("gpu.nvidia.com");
  std::optional<Value> type = attrs->map_value().FindString("type");
  if (!type || type->kind() != ValueKind::kString || type->string_value() != "gpu") return false;
  std::optional<Value> caps =
      fields.FindString("capacity")->map_value().FindString("gpu.nvidia.com");
  std::optional<Value> memory = caps->map_value().FindString("memory");
  if (!memory || AsQuantity(*memory)->Compare(min_memory) < 0) return false;
  std::optional<Value> cc = attrs->map_value().FindString("cudaComputeCapability");
  if (!cc || AsSemver(*cc) == nullptr || AsSemver(*cc)->Compare(min_cc) < 0) return false;
  std::optional<Value> product = attrs->map_value().FindString("productName");
  if (!product || product->kind() != ValueKind::kString) return false;
  absl::string_view p = product->string_value();
  return p == "NVIDIA A100-SXM4-40GB" || p == "NVIDIA A100-SXM4-80GB" ||
         p == "NVIDIA H100 80GB HBM3" || p == "NVIDIA L40S";
}

void BM_HandWrittenPredicate(benchmark::State& state) {
  const absl::Span<const Value> fleet =
      absl::MakeConstSpan(Fleet()).first(static_cast<size_t>(state.range(0)));
  const Quantity min_memory = *Quantity::Parse("40Gi");
  const Semver min_cc = *Semver::ParseStrict("8.0.0");
  int64_t matched = 0;
  for (auto _ : state) {
    for (const Value& device : fleet) matched += HandWritten(device, min_memory, min_cc);
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(fleet.size()));
}
BENCHMARK(BM_HandWrittenPredicate)->Arg(kDevices)->Arg(1000)->Unit(benchmark::kMillisecond);

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Pairs of passes (CEL, then hand-written) over the first range(0) devices; each pass repeats
// the fleet until it has made 100,000 evaluations, so that a pass lasts tens of milliseconds.
void BM_PairedRatio(benchmark::State& state) {
  const absl::Span<const Value> fleet =
      absl::MakeConstSpan(Fleet()).first(static_cast<size_t>(state.range(0)));
  const int repeat = std::max<int>(1, kDevices / static_cast<int>(fleet.size()));
  std::shared_ptr<const Program> program = CompiledSelector();
  const Quantity min_memory = *Quantity::Parse("40Gi");
  const Semver min_cc = *Semver::ParseStrict("8.0.0");
  std::vector<double> ratios, cel_ns, hand_ns;
  int64_t cel_matched = 0, hand_matched = 0;
  for (auto _ : state) {
    const double t0 = ThreadCpuSeconds();
    for (int r = 0; r < repeat; ++r) {
      for (const Value& device : fleet) cel_matched += program->Evaluate({device}).IsTrue();
    }
    const double t1 = ThreadCpuSeconds();
    for (int r = 0; r < repeat; ++r) {
      for (const Value& device : fleet) hand_matched += HandWritten(device, min_memory, min_cc);
    }
    const double t2 = ThreadCpuSeconds();
    const double evaluations = static_cast<double>(repeat) * static_cast<double>(fleet.size());
    cel_ns.push_back((t1 - t0) * 1e9 / evaluations);
    hand_ns.push_back((t2 - t1) * 1e9 / evaluations);
    ratios.push_back((t1 - t0) / (t2 - t1));
  }
  if (cel_matched != hand_matched) state.SkipWithError("CEL and the hand-written predicate disagree");
  state.counters["cel_ns"] = Median(cel_ns);
  state.counters["hand_ns"] = Median(hand_ns);
  state.counters["ratio"] = Median(ratios);
}
BENCHMARK(BM_PairedRatio)->Arg(kDevices)->Arg(1000)->Iterations(21)->Unit(benchmark::kMillisecond);

// Both must agree on every device, or the comparison means nothing.
void BM_AgreementCheck(benchmark::State& state) {
  const std::vector<Value>& fleet = Fleet();
  std::shared_ptr<const Program> program = CompiledSelector();
  const Quantity min_memory = *Quantity::Parse("40Gi");
  const Semver min_cc = *Semver::ParseStrict("8.0.0");
  int64_t disagreements = 0, matched = 0;
  for (auto _ : state) {
    for (const Value& device : fleet) {
      bool cel = program->Evaluate({device}).IsTrue();
      matched += cel;
      disagreements += cel != HandWritten(device, min_memory, min_cc);
    }
  }
  state.counters["disagreements"] = static_cast<double>(disagreements);
  state.counters["matched_per_pass"] =
      static_cast<double>(matched) / static_cast<double>(state.iterations());
  if (disagreements != 0) state.SkipWithError("CEL and the hand-written predicate disagree");
}
BENCHMARK(BM_AgreementCheck)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuprofile::cel

BENCHMARK_MAIN();
