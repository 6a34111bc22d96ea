// File: bench/desired_state_benchmark.cc
// What one ResourceSlice change costs the operator's desired state, at the operator benchmark's
// size (bench/operator: 5,000 slices x 8 GPUs, 100 profiles, 200 namespaces, 20,000 templates
// already in the cache), against recomputing everything from scratch in the same run.
//
//   python3 bench/operator/generate.py build/bench-operator-5000-200
//   build/bench/desired_state_benchmark --data build/bench-operator-5000-200
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Each iteration replaces one slice (alternately by a version with one device more and back)
// and computes the desired state:
// - BM_FromScratch: Inventory::FromSlices + ComputeDesiredState without a memo (the baseline:
//   what render does, and what the operator did for every change before it kept a memo);
// - BM_WithMemo: the same with one long-lived FleetMemo: only the changed slice's devices get
//   signatures, projections and evaluations;
// - BM_OperatorPath: as the operator computes after a slice change: the spec plan kept
//   (PlanProfiles once), a long-lived FleetMemo, the inventory rebuilt in place
//   (Inventory::Rebuild), AssembleDesiredState;
// - BM_InventoryOnly: Inventory::FromSlices alone (its share of the others);
// - BM_OperatorPathWithClaims: BM_OperatorPath with the cluster's ResourceClaims, as the
//   operator computes allocation truth (status.allocation, node groups' free devices) on every
//   change; needs DIR/claims-30000-2500.json
//   (python3 bench/operator/generate.py DIR --claims 30000 --pending-claims 2500);
// - BM_ClaimsOnly: the claims' share of it (the held devices matched to the new inventory and
//   the AllocationModel with them);
// - BM_ClaimLedger: what a claim change costs: the ledger of all claims built again.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/meta/namespace_codec.h"
#include "controller/core/kube_version.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/allocatable.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/engine.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::profile {
namespace {

std::string g_data_dir;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s (generate it: bench/operator/generate.py DIR)\n",
                 path.c_str());
    std::exit(2);
  }
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

std::shared_ptr<const dra::ResourceSlice> Decode(const nlohmann::json& item) {
  absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(item);
  if (!slice.ok()) {
    std::fprintf(stderr, "%s\n", std::string(slice.status().message()).c_str());
    std::exit(2);
  }
  return std::make_shared<const dra::ResourceSlice>(*std::move(slice));
}

struct Fixture {
  EngineInput input;
  std::vector<std::shared_ptr<const dra::ResourceSlice>> slices;
  // Two versions of the slice that changes: as generated, and with one more device.
  std::shared_ptr<const dra::ResourceSlice> changed[2];
  size_t changed_index = 0;
  // The claims of DIR/claims-30000-2500.json when it exists (empty otherwise).
  std::vector<dra::ResourceClaim> claims;
  std::vector<const dra::ResourceClaim*> claim_views;
};

const Fixture& Data() {
  static const Fixture* const kFixture = [] {
    auto* f = new Fixture;
    f->input.kube_version = KubeVersion{1, 34};
    f->input.namespaces_complete = true;
    // Each document is held in a named variable: a range-for over a temporary's ["items"] would
    // iterate a destroyed document.
    const nlohmann::json profiles = ReadJson(g_data_dir + "/profiles.json");
    for (const nlohmann::json& item : profiles["items"]) {
      absl::StatusOr<api::GpuProfile> p = api::DecodeGpuProfile(item);
      if (!p.ok()) std::exit(2);
      f->input.profiles.push_back(*std::move(p));
    }
    const nlohmann::json namespaces = ReadJson(g_data_dir + "/namespaces.json");
    for (const nlohmann::json& item : namespaces["items"]) {
      absl::StatusOr<meta::Namespace> ns = meta::DecodeNamespace(item);
      if (!ns.ok()) std::exit(2);
      f->input.namespaces.push_back(*std::move(ns));
    }
    nlohmann::json items = ReadJson(g_data_dir + "/slices.json")["items"];
    for (const nlohmann::json& item : items) f->slices.push_back(Decode(item));
    // An L4-like slice in the middle: one device more, as the operator benchmark's churn does.
    f->changed_index = f->slices.size() / 2;
    nlohmann::json bigger = items[f->changed_index];
    nlohmann::json extra = bigger["spec"]["devices"].back();
    extra["name"] = "gpu-extra";
    bigger["spec"]["devices"].push_back(extra);
    f->changed[0] = f->slices[f->changed_index];
    f->changed[1] = Decode(bigger);
    const std::string claims_path = g_data_dir + "/claims-30000-2500.json";
    if (std::ifstream(claims_path)) {
      const nlohmann::json claims = ReadJson(claims_path);
      for (const nlohmann::json& item : claims["items"]) {
        absl::StatusOr<dra::ResourceClaim> c = dra::DecodeResourceClaim(item);
        if (!c.ok()) {
          std::fprintf(stderr, "%s\n", std::string(c.status().message()).c_str());
          std::exit(2);
        }
        f->claims.push_back(*std::move(c));
      }
      for (const dra::ResourceClaim& c : f->claims) f->claim_views.push_back(&c);
    }
    // Steady state: every desired object already exists.
    const DesiredState desired =
        ComputeDesiredState(f->input, dra::Inventory::FromSlices(f->slices));
    for (const dra::DeviceClass& c : desired.device_classes) {
      f->input.existing_classes.push_back(std::make_shared<const dra::DeviceClass>(c));
    }
    for (dra::ResourceClaimTemplate& t : desired.ClaimTemplates()) {
      f->input.existing_templates.push_back(profile::ExistingTemplate::Of(
          std::make_shared<const dra::ResourceClaimTemplate>(std::move(t))));
    }
    return f;
  }();
  return *kFixture;
}

// Runs `compute` on the slices for each iteration, after replacing the changing slice by its
// other version.
template <typename Compute>
void EachSliceChange(benchmark::State& state, const Fixture& f, Compute compute) {
  std::vector<std::shared_ptr<const dra::ResourceSlice>> slices = f.slices;
  compute(slices);  // warm: the memo's first computation works out every slice
  int flip = 0;
  for (auto _ : state) {
    flip ^= 1;
    slices[f.changed_index] = f.changed[flip];
    auto out = compute(slices);
    benchmark::DoNotOptimize(out);
  }
}

using SliceList = std::vector<std::shared_ptr<const dra::ResourceSlice>>;

void BM_FromScratch(benchmark::State& state) {
  const Fixture& f = Data();
  EachSliceChange(state, f, [&](const SliceList& slices) {
    return ComputeDesiredState(f.input, dra::Inventory::FromSlices(slices));
  });
}
BENCHMARK(BM_FromScratch)->Unit(benchmark::kMillisecond);

void BM_WithMemo(benchmark::State& state) {
  const Fixture& f = Data();
  FleetMemo memo;
  FleetMemo::Counters before;
  bool warm = false;
  EachSliceChange(state, f, [&](const SliceList& slices) {
    DesiredState out = ComputeDesiredState(f.input, dra::Inventory::FromSlices(slices), &memo);
    if (!warm) before = memo.counters();
    warm = true;
    return out;
  });
  const double n = static_cast<double>(state.iterations());
  state.counters["signatures"] =
      (memo.counters().signatures_computed - before.signatures_computed) / n;
  state.counters["evaluations"] = (memo.counters().evaluations - before.evaluations) / n;
}
BENCHMARK(BM_WithMemo)->Unit(benchmark::kMillisecond);

void BM_OperatorPath(benchmark::State& state) {
  const Fixture& f = Data();
  const SpecPlan plan = PlanProfiles(f.input);
  FleetMemo memo;
  dra::Inventory inventory;  // rebuilt in place, as the operator does
  EachSliceChange(state, f, [&](const SliceList& slices) {
    inventory.Rebuild(slices);
    return AssembleDesiredState(plan, inventory, &memo);
  });
}
BENCHMARK(BM_OperatorPath)->Unit(benchmark::kMillisecond);

// The inventory alone (its share of the others).
void BM_InventoryOnly(benchmark::State& state) {
  EachSliceChange(state, Data(),
                  [](const SliceList& slices) { return dra::Inventory::FromSlices(slices); });
}
BENCHMARK(BM_InventoryOnly)->Unit(benchmark::kMillisecond);

// The inventory rebuilt in place, as the operator does on each slice change.
void BM_InventoryRebuild(benchmark::State& state) {
  dra::Inventory inventory;
  EachSliceChange(state, Data(), [&](const SliceList& slices) {
    inventory.Rebuild(slices);
    return inventory.devices().size();
  });
}
BENCHMARK(BM_InventoryRebuild)->Unit(benchmark::kMillisecond);

void BM_OperatorPathWithClaims(benchmark::State& state) {
  const Fixture& f = Data();
  if (f.claims.empty()) {
    state.SkipWithError("no DIR/claims-30000-2500.json (bench/operator/generate.py --claims)");
    return;
  }
  const SpecPlan plan = PlanProfiles(f.input);
  FleetMemo memo;
  // The operator keeps one ledger while no claim changes (reconciler/desired_state.h).
  const ClaimLedger ledger(f.claim_views);
  dra::Inventory inventory;
  EachSliceChange(state, f, [&](const SliceList& slices) {
    inventory.Rebuild(slices);
    return AssembleDesiredState(plan, inventory, &memo, &ledger);
  });
  state.counters["claims"] = static_cast<double>(f.claims.size());
}
BENCHMARK(BM_OperatorPathWithClaims)->Unit(benchmark::kMillisecond);

void BM_ClaimsOnly(benchmark::State& state) {
  const Fixture& f = Data();
  if (f.claims.empty()) {
    state.SkipWithError("no DIR/claims-30000-2500.json (bench/operator/generate.py --claims)");
    return;
  }
  const dra::Inventory inventory = dra::Inventory::FromSlices(f.slices);
  const ClaimLedger ledger(f.claim_views);
  for (auto _ : state) {
    const DeviceClaims held = ledger.Held(inventory);
    const AllocationModel with_claims(inventory, held.allocated);
    benchmark::DoNotOptimize(with_claims);
  }
}
BENCHMARK(BM_ClaimsOnly)->Unit(benchmark::kMillisecond);

// A claim change: the ledger of every claim worked out again (once per burst of claim changes
// in the operator, reconciler/desired_state.h).
void BM_ClaimLedger(benchmark::State& state) {
  const Fixture& f = Data();
  if (f.claims.empty()) {
    state.SkipWithError("no DIR/claims-30000-2500.json (bench/operator/generate.py --claims)");
    return;
  }
  for (auto _ : state) {
    ClaimLedger ledger(f.claim_views);
    benchmark::DoNotOptimize(ledger);
  }
}
BENCHMARK(BM_ClaimLedger)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuprofile::profile

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      gpuprofile::profile::g_data_dir = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (gpuprofile::profile::g_data_dir.empty()) {
    std::fprintf(stderr, "usage: desired_state_benchmark --data DIR [benchmark flags]\n");
    return 2;
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
