// File: test/dra/manifest_loader_test.cc
// LoadManifests + BuildInventory(slices, objects) must give what ReadManifests +
// BuildInventory(objects) gives: the same inventory, the same other objects, the same errors.
#include "controller/dra/manifest_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "controller/dra/inventory.h"
#include "controller/dra/list_runs.h"
#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir_test.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace manifest_loader_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

std::string Dump(const Inventory& inventory) {
  std::string out = absl::StrCat("stale=", inventory.stale_slices_ignored(), "\n");
  for (const PoolInfo& p : inventory.pools()) {
    absl::StrAppend(&out, "pool ", p.driver, "/", p.name, " gen=", p.generation,
                    " seen=", p.slice_count_seen, " count=", p.resource_slice_count,
                    " incomplete=", p.incomplete, " devices=", p.device_count, "\n");
  }
  for (const Device& d : inventory.devices()) {
    absl::StrAppend(&out, "device ", d.driver(), "/", d.pool(), "/", d.name(),
                    " gen=", d.pool_generation(), " slice=", d.slice_name(), " node=", d.node(),
                    "\n");
    for (const NamedAttribute& a : d.attributes()) {
      const std::optional<Semver> version = a.value.ParseVersion();
      absl::StrAppend(&out, "  ", a.name, " ", static_cast<int>(a.value.kind()), " ",
                      a.value.int_value(), " ", a.value.bool_value(), " ", a.value.string_value(),
                      " ", version ? version->ToString() : "-", "\n");
    }
    for (const NamedCapacity& c : d.capacity())
      absl::StrAppend(&out, "  ", c.name, "=", c.value->ToString(), "\n");
  }
  return out;
}

class ManifestLoaderTest : public testing::TempDirTest {
 protected:
  // Both ways of reading `paths` agree; returns what LoadManifests returned.
  LoadedManifests ExpectSameAsReadManifests(const std::vector<std::string>& paths) {
    absl::StatusOr<std::vector<ManifestObject>> objects = ReadManifests(paths);
    absl::StatusOr<LoadedManifests> loaded = LoadManifests(paths);
    EXPECT_EQ(objects.status(), loaded.status());
    if (!objects.ok() || !loaded.ok()) return {};
    // The loader's objects are ReadManifests' objects minus the fast-decoded slices.
    std::vector<std::string> expected, actual;
    for (const ManifestObject& o : *objects) {
      expected.push_back(absl::StrCat(o.Location(), " ", o.object.dump()));
    }
    for (const ManifestObject& o : loaded->objects) {
      actual.push_back(absl::StrCat(o.Location(), " ", o.object.dump()));
    }
    for (const LoadedSlice& s : loaded->slices) {
      auto it = std::find_if(expected.begin(), expected.end(), [&](const std::string& e) {
        return absl::StartsWith(e, s.Location() + " ");
      });
      EXPECT_NE(it, expected.end()) << s.Location();
      if (it != expected.end()) expected.erase(it);
    }
    EXPECT_EQ(actual, expected);
    absl::StatusOr<Inventory> strict = BuildInventory(*objects);
    absl::StatusOr<Inventory> fast = BuildInventory(loaded->slices, loaded->objects);
    EXPECT_EQ(strict.status(), fast.status());
    if (strict.ok() && fast.ok()) {
      EXPECT_EQ(Dump(*fast), Dump(*strict));
    }
    return *std::move(loaded);
  }
};

json SliceJson(const std::string& name, const std::string& node, int devices) {
  json list = json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back({{"name", absl::StrCat("gpu-", i)},
                    {"attributes",
                     {{"productName", {{"string", "NVIDIA L4"}}},
                      {"driverVersion", {{"version", "570.133.20"}}}}},
                    {"capacity", {{"memory", {{"value", "23034Mi"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", list}}}};
}

json ListJson(const std::vector<json>& items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

TEST_F(ManifestLoaderTest, DecodesJsonSliceListsAndKeepsEverythingElse) {
  Write("fleet/slices.json",
        ListJson({SliceJson("a", "node-a", 2), SliceJson("b", "node-b", 3)}).dump(4));
  Write("fleet/one.json", SliceJson("c", "node-c", 1).dump());
  Write("fleet/profile.json", R"({"apiVersion": "v1", "kind": "Namespace",
      "metadata": {"name": "ml"}})");
  Write("fleet/more.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ml2}\n");
  const std::string samples = ::gpuprofile::testing::SourceDir() + "/config/samples/fleet";
  LoadedManifests loaded = ExpectSameAsReadManifests({(root_ / "fleet").string(), samples});
  ASSERT_EQ(loaded.slices.size(), 3u);
  EXPECT_EQ(loaded.slices[0].Location(), (root_ / "fleet/one.json").string() + " (document 1)");
  EXPECT_EQ(loaded.slices[2].Location(),
            (root_ / "fleet/slices.json").string() + " (document 1, items[1])");
  EXPECT_EQ(loaded.slices[2].slice.devices.size(), 3u);
}

TEST_F(ManifestLoaderTest, AgreesOnTheRepositorysFleets) {
  for (const char* dir : {"config/samples/fleet", "config/samples/fleet-v1beta1",
                          "test/testdata/profile/mixed-fleet.yaml"}) {
    absl::StatusOr<std::vector<ManifestObject>> objects =
        ReadManifests({::gpuprofile::testing::SourceDir() + "/" + dir});
    ASSERT_OK(objects);
    std::vector<json> items;
    for (const ManifestObject& o : *objects) items.push_back(o.object);
    const std::string path =
        Write(absl::StrCat("fleet-", items.size(), ".json"), ListJson(items).dump(4));
    ExpectSameAsReadManifests({path});
  }
}

TEST_F(ManifestLoaderTest, InvalidSliceFilesGiveTheStrictErrors) {
  json bad = SliceJson("a", "node-a", 1);
  bad["spec"]["pool"]["generation"] = "one";
  const std::string path = Write("bad.json", ListJson({SliceJson("ok", "n", 1), bad}).dump());
  ExpectSameAsReadManifests({path});
  ASSERT_OK_AND_ASSIGN(LoadedManifests loaded, LoadManifests({path}));
  EXPECT_TRUE(loaded.slices.empty());
  absl::StatusOr<Inventory> inventory = BuildInventory(loaded.slices, loaded.objects);
  EXPECT_THAT(inventory.status().message(),
              HasSubstr("bad.json (document 1, items[1]): ResourceSlice \"a\": "
                        "spec.pool.generation: must be an integer, got string"));

  ExpectSameAsReadManifests({Write("broken.json", R"({"apiVersion": "v1", "kind": )")});
  ExpectSameAsReadManifests({(root_ / "missing.json").string()});
}

// Hostile input gives ReadManifests' errors on the fast path too (controller/core/input_limits.h).
TEST_F(ManifestLoaderTest, HostileFilesGiveTheStrictErrors) {
  const std::string deep(100'000, '[');
  ExpectSameAsReadManifests(
      {Write("deep.json", R"({"apiVersion": "v1", "kind": "List", "items": )" + deep)});
  ExpectSameAsReadManifests({Write("deep.yaml", "a: " + deep)});
  const std::string bomb =
      ::gpuprofile::testing::SourceDir() + "/test/testdata/hostile/alias-bomb.yaml";
  ExpectSameAsReadManifests({bomb});
  absl::StatusOr<LoadedManifests> loaded = LoadManifests({bomb});
  EXPECT_THAT(loaded.status().message(), HasSubstr("anchors and aliases expand the file"));
  // A sparse file over the size limit is refused before it is read, whatever its extension.
  const std::string huge = Write("huge.json", "");
  std::filesystem::resize_file(huge, limits::kMaxManifestFileBytes + 1);
  ExpectSameAsReadManifests({huge});
  loaded = LoadManifests({huge});
  EXPECT_THAT(loaded.status().message(), HasSubstr(huge + ": the file is "));
}

TEST_F(ManifestLoaderTest, SliceNamesReadTwiceAreComparedAsBefore) {
  const json slice = SliceJson("a", "node-a", 2);
  const std::string one = Write("one.json", slice.dump());
  const std::string copy = Write("copy.json", ListJson({slice}).dump(2));
  LoadedManifests same = ExpectSameAsReadManifests({one, copy});
  EXPECT_TRUE(same.slices.empty());  // read the strict way, so that copies are recognised
  ASSERT_OK_AND_ASSIGN(Inventory inventory, BuildInventory(same.slices, same.objects));
  EXPECT_EQ(inventory.devices().size(), 2u);

  json other = slice;
  other["spec"]["nodeName"] = "node-b";
  const std::string conflict = Write("conflict.json", other.dump());
  const std::string unrelated = Write("unrelated.json", SliceJson("z", "node-z", 1).dump());
  LoadedManifests loaded = ExpectSameAsReadManifests({one, unrelated, conflict});
  ASSERT_EQ(loaded.slices.size(), 1u);  // only the unrelated file stays on the fast path
  absl::StatusOr<Inventory> result = BuildInventory(loaded.slices, loaded.objects);
  EXPECT_THAT(result.status().message(),
              HasSubstr("another, different ResourceSlice with this name was read from"));
}

// Files from 1 MiB on are mapped rather than read (mapped_file.h): each way out of the fast path
// (decoded; not slices, so the strict path reads the mapped text; slices the fast path gives up
// on after releasing the mapping, so the file is read again) gives what ReadManifests gives.
TEST_F(ManifestLoaderTest, LargeFilesAreMappedAndAgree) {
  std::vector<json> slices;
  for (int i = 0; slices.size() < 900; ++i) {
    slices.push_back(SliceJson(absl::StrCat("s", i), absl::StrCat("node-", i), 8));
  }
  const std::string fleet = Write("fleet.json", ListJson(slices).dump(2));
  ASSERT_GT(std::filesystem::file_size(fleet), 1u << 20);
  LoadedManifests loaded = ExpectSameAsReadManifests({fleet});
  EXPECT_EQ(loaded.slices.size(), 900u);
  EXPECT_TRUE(loaded.objects.empty());

  std::vector<json> namespaces;
  for (int i = 0; i < 12'000; ++i) {
    namespaces.push_back({{"apiVersion", "v1"},
                          {"kind", "Namespace"},
                          {"metadata", {{"name", absl::StrCat("team-", i)}}}});
  }
  const std::string others = Write("namespaces.json", ListJson(namespaces).dump(2));
  ASSERT_GT(std::filesystem::file_size(others), 1u << 20);
  loaded = ExpectSameAsReadManifests({others});
  EXPECT_EQ(loaded.objects.size(), 12'000u);

  slices.back()["spec"]["pool"]["generation"] = "one";
  const std::string bad = Write("bad.json", ListJson(slices).dump(2));
  ExpectSameAsReadManifests({bad});
  ASSERT_OK_AND_ASSIGN(loaded, LoadManifests({bad}));
  absl::StatusOr<Inventory> inventory = BuildInventory(loaded.slices, loaded.objects);
  EXPECT_THAT(inventory.status().message(),
              HasSubstr("bad.json (document 1, items[899]): ResourceSlice \"s899\": "
                        "spec.pool.generation: must be an integer, got string"));

  std::string yaml;
  for (int i = 0; yaml.size() <= (1u << 20); ++i) {
    absl::StrAppend(&yaml, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns-", i, "}\n");
  }
  ExpectSameAsReadManifests({Write("namespaces.yaml", yaml)});
}

// A list as kubectl prints it, past kListRunsFromBytes, is read a run of items at a time
// (slice_list_file.h): the same slices, and the same errors.
TEST_F(ManifestLoaderTest, KubectlListsReadInRunsAgree) {
  std::vector<json> slices;
  std::string text;
  while (text.size() <= kListRunsFromBytes) {
    for (int i = 0; i < 200; ++i) {
      const size_t n = slices.size();
      slices.push_back(SliceJson(absl::StrCat("s", n), absl::StrCat("node-", n), 8));
    }
    text = ListJson(slices).dump(4);
  }
  LoadedManifests loaded = ExpectSameAsReadManifests({Write("fleet.json", text)});
  EXPECT_EQ(loaded.slices.size(), slices.size());
  EXPECT_TRUE(loaded.objects.empty());

  slices[slices.size() / 2]["spec"]["pool"]["generation"] = "one";
  const std::string bad = Write("bad.json", ListJson(slices).dump(4));
  ExpectSameAsReadManifests({bad});
  ASSERT_OK_AND_ASSIGN(loaded, LoadManifests({bad}));
  EXPECT_THAT(BuildInventory(loaded.slices, loaded.objects).status().message(),
              HasSubstr("spec.pool.generation: must be an integer, got string"));
}

TEST(InventoryCopyTest, CopiesShareTheDevices) {
  std::vector<ResourceSlice> slices(1);
  slices[0].name = "s";
  slices[0].driver = "d";
  slices[0].pool = "p";
  slices[0].resource_slice_count = 1;
  slices[0].devices.resize(2);
  const Inventory inventory = Inventory::FromSlices(slices);
  const Inventory copy = inventory;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(&copy.devices(), &inventory.devices());
  EXPECT_EQ(copy.devices().size(), 2u);
  EXPECT_TRUE(Inventory().devices().empty());
}

// The device attributes of `slices`, "slice/device: name name ...", to see what a demand kept.
std::vector<std::string> AttributeNames(const std::vector<LoadedSlice>& slices) {
  std::vector<std::string> out;
  for (const LoadedSlice& s : slices) {
    for (const Device& d : s.slice.devices) {
      std::string line = absl::StrCat(s.slice.name, "/", d.name(), ":");
      for (const NamedAttribute& a : d.attributes()) absl::StrAppend(&line, " ", a.name);
      for (const NamedCapacity& c : d.capacity()) absl::StrAppend(&line, " capacity:", c.name);
      out.push_back(line);
    }
  }
  return out;
}

TEST_F(ManifestLoaderTest, TwoStepsReadSliceFilesLastWithTheAttributesWanted) {
  Write("fleet/slices.json",
        ListJson({SliceJson("a", "node-a", 1), SliceJson("b", "node-b", 1)}).dump(4));
  Write("fleet/one.json", SliceJson("c", "node-c", 1).dump());
  Write("fleet/ns.json",
        R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})");
  Write("fleet/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ml2}\n");
  const std::vector<std::string> paths = {(root_ / "fleet").string()};
  ASSERT_OK_AND_ASSIGN(LoadedManifests all, LoadManifests(paths));

  ManifestLoader loader(paths);
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestObject> first, loader.ReadAllButSliceFiles());
  ASSERT_EQ(first.size(), 2u);  // the slice files are set aside
  EXPECT_EQ(first[0].Location(), all.objects[0].Location());
  EXPECT_EQ(first[1].Location(), all.objects[1].Location());
  AttributeDemand demand = AttributeDemand::Nothing();
  demand.Want("gpu.nvidia.com", "productName");
  ASSERT_OK_AND_ASSIGN(LoadedManifests rest, loader.ReadSliceFiles(demand));
  EXPECT_TRUE(rest.objects.empty());
  ASSERT_EQ(rest.slices.size(), all.slices.size());
  for (size_t i = 0; i < rest.slices.size(); ++i) {
    EXPECT_EQ(rest.slices[i].Location(), all.slices[i].Location());
  }
  EXPECT_THAT(AttributeNames(rest.slices),
              ::testing::ElementsAre("c/gpu-0: productName capacity:memory",
                                     "a/gpu-0: productName capacity:memory",
                                     "b/gpu-0: productName capacity:memory"));
  EXPECT_THAT(AttributeNames(all.slices),
              ::testing::Each(HasSubstr(": driverVersion productName capacity:memory")));
}

// A pipe (`render -f <(kubectl get resourceslices -o json)`) cannot be read a second time: it is
// decoded whole in the first step, every attribute kept, and nothing of it is lost.
TEST_F(ManifestLoaderTest, TwoStepsReadAPipeOfSlicesOnce) {
  const std::string fifo = (root_ / "slices.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text =
      ListJson({SliceJson("a", "node-a", 2), SliceJson("b", "node-b", 1)}).dump();
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << text;
  });
  ManifestLoader loader({fifo});
  absl::StatusOr<std::vector<ManifestObject>> first = loader.ReadAllButSliceFiles();
  writer.join();
  // Gone, so that reading it again fails at once rather than waiting for another writer.
  std::filesystem::remove(fifo);
  ASSERT_OK(first);
  EXPECT_TRUE(first->empty());
  AttributeDemand demand = AttributeDemand::Nothing();
  ASSERT_OK_AND_ASSIGN(LoadedManifests rest, loader.ReadSliceFiles(demand));
  EXPECT_TRUE(rest.objects.empty());
  EXPECT_THAT(AttributeNames(rest.slices),
              ::testing::ElementsAre("a/gpu-0: driverVersion productName capacity:memory",
                                     "a/gpu-1: driverVersion productName capacity:memory",
                                     "b/gpu-0: driverVersion productName capacity:memory"));
}

TEST_F(ManifestLoaderTest, TwoStepsGiveBackWhatSliceFilesHoldBesidesSlices) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}};
  const std::string mixed = Write("mixed.json", ListJson({SliceJson("a", "node-a", 1), ns}).dump());
  ManifestLoader loader({mixed});
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestObject> first, loader.ReadAllButSliceFiles());
  EXPECT_TRUE(first.empty());
  ASSERT_OK_AND_ASSIGN(LoadedManifests rest, loader.ReadSliceFiles(AttributeDemand::Nothing()));
  EXPECT_TRUE(rest.slices.empty());
  ASSERT_EQ(rest.objects.size(), 2u);  // read the strict way, whole
  EXPECT_EQ(rest.objects[1].object, ns);

  // A slice name also read in the first step: the file set aside is read the strict way.
  const std::string yaml = Write("a.yaml",
                                 "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                                 "metadata: {name: a}\nspec: {driver: gpu.nvidia.com, "
                                 "nodeName: node-a, pool: {name: node-a, generation: 1, "
                                 "resourceSliceCount: 1}}\n");
  const std::string json_slice = Write("a.json", SliceJson("a", "node-a", 1).dump());
  ManifestLoader shared({yaml, json_slice});
  ASSERT_OK_AND_ASSIGN(first, shared.ReadAllButSliceFiles());
  EXPECT_EQ(first.size(), 1u);
  ASSERT_OK_AND_ASSIGN(rest, shared.ReadSliceFiles(AttributeDemand::Nothing()));
  EXPECT_TRUE(rest.slices.empty());
  ASSERT_EQ(rest.objects.size(), 1u);
  EXPECT_EQ(rest.objects[0].Location(), json_slice + " (document 1)");
}

TEST_F(ManifestLoaderTest, TwoStepsGiveTheErrors) {
  json bad = SliceJson("a", "node-a", 1);
  bad["spec"]["pool"]["generation"] = "one";
  const std::string broken = Write("broken.json", R"({"kind": "ResourceSliceList", "items": [)");
  const std::string invalid = Write("invalid.json", ListJson({bad}).dump());
  ManifestLoader loader({broken, invalid});
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestObject> first, loader.ReadAllButSliceFiles());
  EXPECT_TRUE(first.empty());
  absl::StatusOr<LoadedManifests> rest = loader.ReadSliceFiles(AttributeDemand());
  EXPECT_EQ(rest.status(), LoadManifests({broken, invalid}).status());

  const std::string yaml = Write("broken.yaml", "a: [");
  ManifestLoader early({yaml, invalid});
  EXPECT_EQ(early.ReadAllButSliceFiles().status(), LoadManifests({yaml}).status());
}

}  // namespace
}  // namespace manifest_loader_test
}  // namespace gpuprofile::dra
