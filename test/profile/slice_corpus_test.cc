// File: test/profile/slice_corpus_test.cc
// The ResourceSlice corpus of test/testdata/dra/{nvidia-1.35,k8s-1.37} (slices as the NVIDIA DRA
// driver publishes them on Kubernetes 1.34-1.36, and the 1.37 node-selection shapes), read the
// ways the product reads slices: the strict decoder (ParseManifests + DecodeSlice), the fast
// decoder (one object at a time, as watch events arrive), and the manifest loader `render` and
// `cel match` use. Every path must give the counts of corpus-expectations.json, and the
// inventory the counts of what can be allocated at once.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "controller/dra/inventory.h"
#include "controller/dra/manifest_loader.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"
#include "controller/dra/slice_fast_decoder.h"
#include "controller/profile/allocatable.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/test_paths.h"

namespace gpuprofile::profile {
namespace slice_corpus_test {
namespace {

using json = nlohmann::json;

struct Counts {
  int64_t slices = 0, devices = 0, nodes = 0, tainted = 0, counter_sets = 0, consumers = 0;
  bool operator==(const Counts& o) const {
    return slices == o.slices && devices == o.devices && nodes == o.nodes && tainted == o.tainted &&
           counter_sets == o.counter_sets && consumers == o.consumers;
  }
};

std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{slices " << c.slices << ", devices " << c.devices << ", nodes " << c.nodes
            << ", tainted " << c.tainted << ", counter sets " << c.counter_sets << ", consuming "
            << c.consumers << "}";
}

Counts Count(const std::vector<dra::ResourceSlice>& slices) {
  Counts c;
  std::set<std::string> nodes;
  for (const dra::ResourceSlice& s : slices) {
    ++c.slices;
    c.counter_sets += static_cast<int64_t>(s.shared_counters.size());
    for (const dra::Device& d : s.devices) {
      ++c.devices;
      if (!d.node().empty()) nodes.insert(std::string(d.node()));
      if (d.HasSchedulingTaint()) ++c.tainted;
      if (d.consumes_counters()) ++c.consumers;
    }
  }
  c.nodes = static_cast<int64_t>(nodes.size());
  return c;
}

std::string Dir() { return ::gpuprofile::testing::SourceDir() + "/test/testdata/dra/"; }

std::map<std::string, Counts> Expectations() {
  std::ifstream in(Dir() + "corpus-expectations.json");
  json doc = json::parse(in);
  std::map<std::string, Counts> out;
  for (auto& [file, e] : doc.at("files").items()) {
    out[file] =
        Counts{e.at("slices"),          e.at("devices"),      e.at("nodes"),
               e.at("tainted_devices"), e.at("counter_sets"), e.at("devices_consuming_counters")};
  }
  return out;
}

TEST(SliceCorpusTest, EveryReadingPathGivesTheExpectedCounts) {
  const std::map<std::string, Counts> expected = Expectations();
  ASSERT_GE(expected.size(), 12u);
  for (const auto& [file, want] : expected) {
    SCOPED_TRACE(file);
    const std::string path = Dir() + file;
    // Strict: the reader, then DecodeSlice per object.
    absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({path});
    ASSERT_TRUE(objects.ok()) << objects.status();
    std::vector<dra::ResourceSlice> strict;
    for (const dra::ManifestObject& o : *objects) {
      if (!dra::IsResourceSlice(o.object)) continue;
      absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(o.object);
      ASSERT_TRUE(slice.ok()) << slice.status();
      strict.push_back(*std::move(slice));
    }
    EXPECT_EQ(Count(strict), want) << "strict decoder";

    // Watch events: each object's JSON text through the fast decoder, which must not fall back.
    dra::SliceJsonDecoder decoder;
    std::vector<dra::ResourceSlice> fast;
    for (const dra::ManifestObject& o : *objects) {
      if (!dra::IsResourceSlice(o.object)) continue;
      absl::StatusOr<dra::ResourceSlice> slice = decoder.Decode(o.object.dump());
      ASSERT_TRUE(slice.ok()) << slice.status();
      fast.push_back(*std::move(slice));
    }
    EXPECT_EQ(Count(fast), want) << "fast decoder";
    EXPECT_EQ(decoder.fallbacks(), 0);
    for (size_t i = 0; i < fast.size() && i < strict.size(); ++i) {
      EXPECT_EQ(fast[i].devices, strict[i].devices) << strict[i].name;
      EXPECT_TRUE(fast[i].shared_counters == strict[i].shared_counters) << strict[i].name;
    }

    // `render` / `cel match`: the loader (fast path for JSON files) and BuildInventory.
    absl::StatusOr<dra::LoadedManifests> loaded = dra::LoadManifests({path});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    absl::StatusOr<dra::Inventory> inventory =
        dra::BuildInventory(std::move(loaded->slices), loaded->objects);
    ASSERT_TRUE(inventory.ok()) << inventory.status();
    EXPECT_EQ(static_cast<int64_t>(inventory->devices().size()), want.devices) << "inventory";
    EXPECT_EQ(static_cast<int64_t>(inventory->node_count()), want.nodes) << "inventory";
    EXPECT_EQ(static_cast<int64_t>(inventory->counter_sets().size()), want.counter_sets);
  }
}

// What can run at once on the DynamicMIG node (2 × A100 40GB, each published as the full GPU and
// its 25 MIG placements, all drawing from the GPU's counter set of 8 memory slices and 7 compute
// slices' multiprocessors): seven 1g.5gb placements use up a GPU's multiprocessors, so at most 7
// devices per GPU run at once however the selectors are written, not 26.
TEST(SliceCorpusTest, PartitionedGpusCountWhatFitsAtOnce) {
  for (const char* file : {"nvidia-1.35/dynamicmig-a100x2.k8s-1.34.v1.yaml",
                           "nvidia-1.35/dynamicmig-a100x2.k8s-1.35.v1.yaml",
                           "nvidia-1.35/dynamicmig-a100x2-numalist-taint.k8s-1.36.v1beta1.yaml"}) {
    SCOPED_TRACE(file);
    absl::StatusOr<dra::LoadedManifests> loaded = dra::LoadManifests({Dir() + file});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    absl::StatusOr<dra::Inventory> inventory =
        dra::BuildInventory(std::move(loaded->slices), loaded->objects);
    ASSERT_TRUE(inventory.ok()) << inventory.status();
    const std::vector<dra::Device>& devices = inventory->devices();
    AllocationModel model(*inventory);
    std::vector<bool> all(devices.size(), true);
    AllocatableCount every = model.Count(all);
    EXPECT_EQ(every.schedulable_count, 14);
    // Only the full GPUs: both fit, unless one is tainted.
    std::vector<bool> full(devices.size(), false);
    int64_t tainted_full = 0;
    for (size_t d = 0; d < devices.size(); ++d) {
      full[d] = devices[d].name().find("-mig-") == absl::string_view::npos;
      if (full[d] && devices[d].HasSchedulingTaint()) ++tainted_full;
    }
    AllocatableCount whole = model.Count(full);
    EXPECT_EQ(whole.schedulable_count + whole.tainted_count, 2);
    EXPECT_EQ(whole.tainted_count, tainted_full);
  }
}

}  // namespace
}  // namespace slice_corpus_test
}  // namespace gpuprofile::profile
