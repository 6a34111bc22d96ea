// File: test/dra/slice_fast_decoder_test.cc
// The fast path must give exactly what the strict path (ParseManifests + DecodeSlice) gives on
// every input it handles, and hand everything else back. The one-object decoder
// (SliceJsonDecoder, DecodeSliceFast) must give DecodeSlice's result on every input, errors
// included, and take the fast path on ordinary slices.
#include "controller/dra/slice_fast_decoder.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "controller/dra/large_document_parser.h"
#include "controller/dra/list_runs.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"
#include "controller/dra/slice_list_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir_test.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace slice_fast_decoder_test {
namespace {

using json = nlohmann::json;

const char* KindName(AttributeValue::Kind kind) {
  switch (kind) {
    case AttributeValue::Kind::kInt:
      return "int";
    case AttributeValue::Kind::kBool:
      return "bool";
    case AttributeValue::Kind::kString:
      return "string";
    case AttributeValue::Kind::kVersion:
      return "version";
    default:
      return AttributeValue::KindName(kind).data();
  }
}

// Every field of a slice and its devices, one per line, so that a mismatch names the field.
std::string Dump(const ResourceSlice& s, int item_index) {
  std::string out = absl::StrCat(
      "item ", item_index, " name=", s.name, " rv=", s.resource_version,
      " apiVersion=", s.api_version, " driver=", s.driver, " pool=", s.pool,
      " generation=", s.pool_generation, " count=", s.resource_slice_count, " node=", s.node_name,
      " scope=", static_cast<int>(s.node_scope), " perDevice=", s.per_device_node_selection, "\n");
  for (const CounterSet& set : s.shared_counters) {
    absl::StrAppend(&out, "  counterSet ", set.name);
    for (const auto& [name, q] : set.counters) {
      absl::StrAppend(&out, " ", name, "=", q.ToString(), "/", static_cast<int>(q.format()));
    }
    absl::StrAppend(&out, "\n");
  }
  for (const Device& d : s.devices) {
    absl::StrAppend(&out, "  ", d.DebugString(), "\n");
    absl::StrAppend(&out, "  device ", d.name(), " driver=", d.driver(), " pool=", d.pool(),
                    " generation=", d.pool_generation(), " slice=", d.slice_name(),
                    " node=", d.node(), "\n");
    for (const NamedAttribute& a : d.attributes()) {
      const std::optional<Semver> version = a.value.ParseVersion();
      absl::StrAppend(&out, "    attribute ", a.name, " kind=", KindName(a.value.kind()),
                      " int=", a.value.int_value(), " bool=", a.value.bool_value(),
                      " string=", a.value.string_value(),
                      " version=", version ? version->ToString() : "none", "\n");
    }
    for (const NamedCapacity& c : d.capacity()) {
      absl::StrAppend(&out, "    capacity ", c.name, "=", c.value->ToString(),
                      " format=", static_cast<int>(c.value->format()), "\n");
    }
  }
  return out;
}

// The strict path: the file's ResourceSlices, or nullopt when the file or one of them does not
// decode.
std::optional<std::string> Strict(const std::string& text) {
  absl::StatusOr<std::vector<ManifestObject>> objects = ParseManifests(text, "slices.json");
  if (!objects.ok()) return std::nullopt;
  std::string out;
  for (const ManifestObject& o : *objects) {
    if (!IsResourceSlice(o.object)) continue;
    absl::StatusOr<ResourceSlice> slice = DecodeSlice(o.object);
    if (!slice.ok()) return std::nullopt;
    out += Dump(*slice, o.item_index);
  }
  return out;
}

std::optional<std::string> Fast(const std::string& text) {
  std::string copy = text;
  FastDecodeResult result = FastDecodeSliceJson(&copy);
  if (!result.handled) {
    EXPECT_TRUE(result.slices.empty());
    if (!result.text_released) {
      EXPECT_EQ(copy, text) << "the text must be left as it was";
    }
    return std::nullopt;
  }
  EXPECT_TRUE(copy.empty());
  std::string out;
  for (const FastDecodedSlice& s : result.slices) out += Dump(s.slice, s.item_index);
  return out;
}

// Both paths agree and the fast path handled the text.
void ExpectSame(const std::string& text) {
  std::optional<std::string> strict = Strict(text);
  ASSERT_TRUE(strict.has_value()) << "strict path rejects:\n" << text;
  std::optional<std::string> fast = Fast(text);
  ASSERT_TRUE(fast.has_value()) << "fast path declines:\n" << text;
  EXPECT_EQ(*fast, *strict);
}

// The fast path declines; the strict path decides (`strict_ok`: whether it accepts).
void ExpectDeclined(const std::string& text, bool strict_ok) {
  EXPECT_FALSE(Fast(text).has_value()) << text;
  EXPECT_EQ(Strict(text).has_value(), strict_ok) << text;
}

std::vector<json> SliceObjects(const std::string& path) {
  absl::StatusOr<std::vector<ManifestObject>> objects =
      ReadManifests({::gpuprofile::testing::SourceDir() + "/" + path});
  EXPECT_OK(objects);
  std::vector<json> out;
  if (!objects.ok()) return out;
  for (const ManifestObject& o : *objects) {
    if (IsResourceSlice(o.object)) out.push_back(o.object);
  }
  return out;
}

json List(const std::vector<json>& items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", json::object()}, {"items", items}};
}

// The 1.35-1.37 fields: list-typed attributes, taints, counters, sharing, node selection.
TEST(SliceFastDecoderTest, AgreesOnTheNewerFields) {
  const std::string devices = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "gpu-0"}, "spec": {"driver": "gpu.nvidia.com",
    "pool": {"name": "node-a", "generation": 2, "resourceSliceCount": 2}, "nodeName": "node-a",
    "devices": [{"name": "gpu-0", "allowMultipleAllocations": true,
      "attributes": {"resource.kubernetes.io/numaNode": {"ints": [0]}, "m": {"strings": ["b", "a"]},
                     "f": {"bools": [false]}, "v": {"versions": ["1.2.3"]}, "e": {"ints": []}},
      "capacity": {"memory": {"value": "40Gi", "requestPolicy": {"default": "1Mi"}},
                   "shares": {"value": 4, "requestPolicy": {"default": 1, "validValues": ["1", 2, "4"]}},
                   "bandwidth": {"value": "100G", "requestPolicy": null},
                   "cores": {"value": "64",
                             "requestPolicy": {"validRange": {"min": "8", "max": 64, "step": "8"}}}},
      "taints": [{"key": "gpu.nvidia.com/xid", "value": "79", "effect": "NoSchedule"},
                 {"key": "k", "effect": "None", "timeAdded": "2026-01-01T00:00:00Z"}],
      "consumesCounters": [{"counterSet": "gpu-0-counter-set",
                            "counters": {"multiprocessors": {"value": "14"}, "memory": {"value": "5Gi"}}}]},
      {"name": "gpu-0-mig", "consumesCounters": [], "taints": []}]}})";
  const std::string counters = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "counters"}, "spec": {"driver": "gpu.nvidia.com",
    "pool": {"name": "node-a", "generation": 2, "resourceSliceCount": 2}, "nodeName": "node-a",
    "sharedCounters": [{"name": "gpu-0-counter-set",
      "counters": {"memory": {"value": "40Gi"}, "memorySlice0": {"value": 1}}}]}})";
  const std::string per_device =
      R"({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
    "metadata": {"name": "fabric"}, "spec": {"driver": "fabric.example.com", "perDeviceNodeSelection": true,
    "pool": {"name": "rack", "generation": 1, "resourceSliceCount": 1},
    "devices": [{"name": "a", "basic": {"nodeName": "node-b", "taints": [{"key": "k", "effect": "NoExecute"}]}},
                {"name": "b", "basic": {"allNodes": true}},
                {"name": "c", "basic": {"nodeSelector": {"nodeSelectorTerms": []}}}]}})";
  const std::string all_nodes =
      R"({"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceSlice",
    "metadata": {"name": "all"}, "spec": {"driver": "fabric.example.com", "allNodes": true,
    "pool": {"name": "all", "generation": 1, "resourceSliceCount": 1},
    "devices": [{"name": "a"}]}})";
  for (const std::string& text : {devices, counters, per_device, all_nodes}) {
    SCOPED_TRACE(text);
    ExpectSame(text);
    ExpectSame(List({json::parse(text)}).dump());
    SliceJsonDecoder decoder;
    absl::StatusOr<ResourceSlice> fast = decoder.Decode(text);
    ASSERT_TRUE(fast.ok()) << fast.status();
    EXPECT_EQ(decoder.fallbacks(), 0);
  }
}

// Wrong types in the newer fields: the fast path hands them to the strict path, which reports.
TEST(SliceFastDecoderTest, DeclinesWrongTypesInTheNewerFields) {
  auto slice = [](const std::string& device) {
    return absl::StrCat(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
      "metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n",
      "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [)",
                        device, "]}}");
  };
  for (
      const std::string& device :
      {std::string(R"({"name": "a", "taints": [{"effect": "NoSchedule"}]})"),
       std::string(R"({"name": "a", "taints": {"key": "k"}})"),
       std::string(R"({"name": "a", "allowMultipleAllocations": "true"})"),
       std::string(R"({"name": "a", "consumesCounters": [{"counters": {}}]})"),
       std::string(R"({"name": "a", "attributes": {"x": {"ints": [1, "2"]}}})"),
       std::string(R"({"name": "a", "attributes": {"x": {"ints": 1}}})"),
       std::string(R"({"name": "a", "nodeSelector": "x"})"),
       std::string(R"({"name": "a", "capacity": {"m": {"value": "1", "requestPolicy": 1}}})"),
       std::string(
           R"({"name": "a", "capacity": {"m": {"value": "1", "requestPolicy": {"default": []}}}})"),
       std::string(
           R"({"name": "a", "capacity": {"m": {"value": "1", "requestPolicy": {"validValues": [null]}}}})"),
       std::string(
           R"({"name": "a", "capacity": {"m": {"value": "1", "requestPolicy": {"validRange": {"max": "2"}}}}})"),
       std::string(R"({"name": "a", "capacity": {"m": {"value": "1", "requestPolicy":
            {"validValues": ["1"], "validRange": {"min": "1"}}}}})")}) {
    ExpectDeclined(slice(device), /*strict_ok=*/false);
  }
}

// An attribute of a kind this project does not know is kept opaque, with the same text on both
// paths.
TEST(SliceFastDecoderTest, AgreesOnOpaqueAttributes) {
  ExpectSame(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n",
    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [
      {"name": "a", "attributes": {"x": {"floats": [1.5, 2e3, -0.0]}, "y": {"int": null, "z": {"b": 1, "a": "\u00e9"}}}}]}})");
}

TEST(SliceFastDecoderTest, AgreesOnTheRepositorysSlices) {
  for (const char* path :
       {"test/testdata/dra", "config/samples/fleet", "config/samples/fleet-v1beta1",
        "test/testdata/profile/mixed-fleet.yaml"}) {
    SCOPED_TRACE(path);
    const std::vector<json> slices = SliceObjects(path);
    ASSERT_FALSE(slices.empty());
    ExpectSame(List(slices).dump(4));  // as kubectl prints it
    ExpectSame(List(slices).dump());
    for (const json& slice : slices) ExpectSame(slice.dump(2));
    // A typed list from the API server: items without kind and apiVersion, per version.
    std::map<std::string, std::vector<json>> by_version;
    for (json slice : slices) {
      const std::string api_version = slice["apiVersion"].get<std::string>();
      slice.erase("apiVersion");
      slice.erase("kind");
      by_version[api_version].push_back(slice);
    }
    for (const auto& [api_version, items] : by_version) {
      ExpectSame(json{
          {"kind", "ResourceSliceList"},
          {"apiVersion", api_version},
          {"metadata", {{"resourceVersion", "1"}}},
          {"items",
           items}}.dump());
    }
  }
}

// A deterministic random fleet exercising every attribute type, node modes and versions.
json GeneratedSlice(std::mt19937& rng, int index, const std::string& api_version) {
  const bool v1beta1 = api_version == "resource.k8s.io/v1beta1";
  json devices = json::array();
  const int count = static_cast<int>(rng() % 5);
  for (int d = 0; d < count; ++d) {
    json attributes = {
        {"index", {{"int", static_cast<int64_t>(rng() % 1000) - 500}}},
        {"sriov", {{"bool", rng() % 2 == 0}}},
        {"productName", {{"string", absl::StrCat("GPU \"model\" \\ é ", rng() % 7)}}},
        {"driverVersion",
         {{"version", absl::StrCat(rng() % 600, ".", rng() % 200, ".", rng() % 9)}}},
        {"cudaVersion", {{"version", absl::StrCat(rng() % 13, ".", rng() % 9)}}},  // not semver
        {"resource.kubernetes.io/pcieRoot", {{"string", absl::StrCat("pci0000:", rng() % 4)}}},
    };
    json capacity = {
        {"memory", {{"value", rng() % 2 == 0 ? json("40Gi") : json(int64_t{42949672960})}}},
        {"cores", {{"value", absl::StrCat(rng() % 64, "m")}}},
    };
    json body = {{"attributes", attributes}, {"capacity", capacity}};
    if (rng() % 4 == 0) body["nodeName"] = absl::StrCat("node-", rng() % 10);
    json device = {{"name", absl::StrCat("dev-", d)}};
    if (v1beta1) {
      device["basic"] = body;
    } else {
      device.update(body);
    }
    devices.push_back(device);
  }
  json spec = {{"driver", "gpu.example.com"},
               {"pool",
                {{"name", absl::StrCat("pool-", index % 7)},
                 {"generation", static_cast<int64_t>(rng() % 3)},
                 {"resourceSliceCount", 1 + static_cast<int64_t>(rng() % 3)}}},
               {"devices", devices}};
  switch (rng() % 3) {
    case 0:
      spec["nodeName"] = absl::StrCat("node-", index);
      break;
    case 1:
      spec["allNodes"] = true;
      break;
    default:
      spec["nodeSelector"] = {{"nodeSelectorTerms", json::array()}};
      break;
  }
  return {{"apiVersion", api_version},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", absl::StrCat("slice-", index)}, {"uid", "x"}}},
          {"spec", spec}};
}

TEST(SliceFastDecoderTest, AgreesOnGeneratedLists) {
  std::mt19937 rng(7);
  for (const char* version :
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}) {
    std::vector<json> slices;
    for (int i = 0; i < 200; ++i) slices.push_back(GeneratedSlice(rng, i, version));
    ExpectSame(List(slices).dump(4));
  }
}

// Generated slices, enough for a list longer than `bytes` when dumped with `indent`.
std::vector<json> SlicesForALongerList(size_t bytes, int indent, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<json> slices;
  while (List(slices).dump(indent).size() <= bytes) {
    for (int i = 0; i < 1000; ++i) {
      slices.push_back(GeneratedSlice(rng, static_cast<int>(slices.size()), "resource.k8s.io/v1"));
    }
  }
  return slices;
}

int RunsOf(const std::string& text) {
  std::string copy = text;
  return FastDecodeSliceJson(&copy).runs;
}

// A compact list past kHugePageDocumentBytes is parsed whole, in buffers advised for huge pages
// (large_document_parser.h): the same result.
TEST(SliceFastDecoderTest, AgreesOnAListLargeEnoughForHugePages) {
  const std::string text =
      List(SlicesForALongerList(kHugePageDocumentBytes, /*indent=*/-1, 11)).dump();
  ExpectSame(text);
  EXPECT_EQ(RunsOf(text), 0);
}

// An indented list past kListRunsFromBytes is parsed a run of items at a time (list_runs.h):
// the same result.
TEST(SliceFastDecoderTest, AgreesOnAListParsedInRuns) {
  for (int indent : {2, 4}) {
    const std::string text =
        List(SlicesForALongerList(kListRunsFromBytes, indent, 13)).dump(indent);
    ExpectSame(text);
    EXPECT_GT(RunsOf(text), 3) << "indent " << indent;
  }
}

// The runs path decides as the whole parse does where the runs are not the items: a wrong cut
// (an object inside each item closes on a line like an item's last), invalid JSON, an item that
// is not a ResourceSlice, and nesting at simdjson's depth limit.
TEST(SliceFastDecoderTest, ListsCutIntoRunsDecideAsAWholeParse) {
  const std::vector<json> slices = SlicesForALongerList(kListRunsFromBytes, 4, 17);
  const std::string text = List(slices).dump(4);
  const size_t middle = text.find("\n        },\n        {", text.size() / 2);
  ASSERT_NE(middle, std::string::npos);

  // Each item's last member closes on a line like an item's last, just before the item does:
  // the cuts fall inside items, and the whole parse takes over.
  std::vector<json> with_last_member = slices;
  for (json& slice : with_last_member) slice["zz"] = {{"a", 1}};
  std::string lookalike = List(with_last_member).dump(4);
  const std::string member_end = "\"a\": 1\n            }";
  for (size_t at = lookalike.find(member_end); at != std::string::npos;
       at = lookalike.find(member_end, at + member_end.size())) {
    lookalike.replace(at, member_end.size(), "\"a\": 1\n        }, \"zzz\": {\n            }");
  }
  ASSERT_TRUE(json::accept(lookalike));
  ExpectSame(lookalike);
  EXPECT_EQ(RunsOf(lookalike), 0);

  std::string no_comma = text;
  no_comma.erase(middle + 10, 1);  // the comma after an item in the middle
  ExpectDeclined(no_comma, /*strict_ok=*/false);

  std::string config_map = text;
  config_map.insert(middle + 11, R"(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},)");
  ExpectDeclined(config_map, /*strict_ok=*/true);

  // Nesting around simdjson's limit of 1,024 levels, in an unknown member of one item: the
  // runs (one level shallower, and allowed one level less) accept exactly what the whole
  // (compact, so parsed whole) text does.
  int handled = 0, declined = 0;
  for (int levels = 1019; levels <= 1023; ++levels) {
    std::vector<json> deep = slices;
    json value = json::array();
    for (int i = 1; i < levels; ++i) value = json::array({value});
    deep[deep.size() / 2]["unknownMember"] = value;
    const std::string indented = List(deep).dump(4), compact = List(deep).dump();
    const std::optional<std::string> in_runs = Fast(indented), whole = Fast(compact);
    EXPECT_EQ(in_runs.has_value(), whole.has_value()) << levels << " levels";
    if (in_runs.has_value() && whole.has_value()) {
      EXPECT_EQ(*in_runs, *whole);
    }
    (whole.has_value() ? handled : declined) += 1;
    EXPECT_EQ(RunsOf(compact), 0);
  }
  EXPECT_GT(handled, 0);
  EXPECT_GT(declined, 0);
}

TEST(SliceFastDecoderTest, AgreesOnOddButValidInput) {
  const std::string base = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, DEVICES}})";
  auto with = [&](const std::string& devices) {
    return absl::StrReplaceAll(base, {{"DEVICES", devices}});
  };
  // Quantities as JSON numbers, signed and unsigned.
  ExpectSame(with(R"("nodeName": "n", "devices": [{"name": "a", "capacity": {"m": {"value": 8},
      "n": {"value": -3}, "big": {"value": 18446744073709551615}}}])"));
  // No devices, devices null, devices empty, a device with nothing but a name.
  ExpectSame(with(R"("nodeName": "n")"));
  ExpectSame(with(R"("nodeName": "n", "devices": null)"));
  ExpectSame(with(R"("allNodes": true, "devices": [])"));
  ExpectSame(with(R"("allNodes": true, "devices": [{"name": "a"}])"));
  // The resourceVersion (the informer keeps unchanged slices by it on a relist).
  const std::string with_version =
      absl::StrReplaceAll(with(R"("nodeName": "n")"),
                          {{R"("name": "s"})", R"("name": "s", "resourceVersion": "42"})"}});
  ExpectSame(with_version);
  absl::StatusOr<ResourceSlice> fast = DecodeSliceFast(with_version);
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(fast->resource_version, "42");
  // Optional members set to null count as absent.
  ExpectSame(with(R"("nodeName": null, "devices": [{"name": "a", "attributes": null,
      "capacity": null, "nodeName": null, "basic": null}])"));
  ExpectSame(with(R"("devices": [{"name": "a", "attributes": {"x": {"int": 1, "bool": null}}}])"));
  // Empty nodeName on the slice: the device's own wins.
  ExpectSame(with(R"("nodeName": "", "devices": [{"name": "a", "nodeName": "n1"}])"));
  // Per-device nodeName, with and without the slice's.
  ExpectSame(with(R"("perDeviceNodeSelection": true, "devices": [{"name": "a", "nodeName": "n1"},
      {"name": "b", "nodeName": "n2"}, {"name": "c"}])"));
  ExpectSame(with(R"("nodeName": "n", "devices": [{"name": "a", "nodeName": "other"}])"));
  // Unknown members everywhere (newer servers), including in attribute and capacity values.
  ExpectSame(with(R"("nodeName": "n", "sharedCounters": [{"name": "c"}], "devices": [{"name": "a",
      "consumesCounters": [], "attributes": {"x": {"string": "s", "future": [1, {"a": null}]}},
      "capacity": {"m": {"value": "1Gi", "requestPolicy": {"default": "1"}}}, "taints": []}])"));
  // Escaped strings, in keys and values; a key that unescapes to a known member name.
  ExpectSame(with(R"("nodeName": "n\u00e9", "devices": [{"n\u0061me": "a\"b",
      "attributes": {"k\/ey": {"string": "tab\there \ud83d\ude00 \\ \u0041"},
      "resource.kubernetes.io/x": {"version": "1.2.3-rc.1+build"}}}])"));
  // Integers at the int64 limits; negative generation.
  ExpectSame(absl::StrReplaceAll(with(R"("devices": [{"name": "a", "attributes": {
      "max": {"int": 9223372036854775807}, "min": {"int": -9223372036854775808}}}])"),
                                 {{"\"generation\": 1", "\"generation\": -4"}}));
  // Member order: devices before driver and pool, kind after spec, trailing whitespace.
  ExpectSame(R"({"spec": {"devices": [{"name": "a", "attributes": {"x": {"int": 1}}}],
      "driver": "d", "nodeName": "n", "pool": {"resourceSliceCount": 2, "generation": 3,
      "name": "p"}}, "metadata": {"name": "s"}, "kind": "ResourceSlice",
      "apiVersion": "resource.k8s.io/v1beta2"}   )"
             "\n\n");
  // A typed list whose items carry their own kind/apiVersion, and an empty list.
  ExpectSame(absl::StrCat(R"({"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceSliceList",
      "items": [)",
                          with(R"("nodeName": "n")"), "]}"));
  ExpectSame(R"({"apiVersion": "v1", "kind": "List", "items": []})");
  ExpectSame(R"({"apiVersion": "v1", "kind": "List", "items": null})");
  ExpectSame(R"({"apiVersion": "v1", "kind": "List"})");
  ExpectSame(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList", "items": []})");
  // More than 16 attributes on a device, and more than 16 devices, all names distinct.
  std::vector<std::string> attributes, devices;
  for (int i = 0; i < 20; ++i)
    attributes.push_back(absl::StrCat(R"("a)", i, R"(": {"int": )", i, "}"));
  const std::string many_attributes = absl::StrCat("{", absl::StrJoin(attributes, ", "), "}");
  for (int i = 0; i < 20; ++i) {
    devices.push_back(
        absl::StrCat(R"({"name": "d)", i, R"(", "attributes": )", many_attributes, "}"));
  }
  ExpectSame(
      with(absl::StrCat(R"("nodeName": "n", "devices": [)", absl::StrJoin(devices, ", "), "]")));
}

TEST(SliceFastDecoderTest, InvalidInputIsLeftToTheStrictPath) {
  std::vector<std::string> devices;
  for (int i = 0; i < 20; ++i) devices.push_back(absl::StrCat(R"({"name": "d)", i, R"("})"));
  const std::string many_devices = absl::StrJoin(devices, ", ");
  const std::string base = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [DEVICE]}})";
  auto with = [&](const std::string& device) {
    return absl::StrReplaceAll(base, {{"DEVICE", device}});
  };
  for (const std::string& text : std::vector<std::string>{
           // Invalid JSON.
           std::string(R"({"apiVersion": "resource.k8s.io/v1", "kind": )"),
           with(R"({"name": "a",})"),
           with(R"({"name": "a\x"})"),
           with(R"({"name": tru})"),
           base + " {}",
           // Valid JSON, invalid slices.
           with(R"({"name": ""})"),
           with(R"({"name": 1})"),
           with(R"({})"),
           with(R"({"name": "a"}, {"name": "a"})"),
           with(absl::StrCat(many_devices, R"(, {"name": "d1"})")),  // past the first 16
           with(R"({"name": "a", "basic": {}})"),
           with(R"({"name": "a", "attributes": {"": {"int": 1}}})"),
           with(R"({"name": "a", "attributes": {"x": {"int": 1, "bool": true}}})"),
           with(R"({"name": "a", "attributes": {"x": {}}})"),
           with(R"({"name": "a", "attributes": {"x": {"int": "1"}}})"),
           with(R"({"name": "a", "attributes": {"x": {"int": 9223372036854775808}}})"),
           with(R"({"name": "a", "attributes": {"x": {"version": 12.4}}})"),
           with(R"({"name": "a", "attributes": []})"),
           with(R"({"name": "a", "capacity": {"m": {"value": "lots"}}})"),
           with(R"({"name": "a", "capacity": {"m": {}}})"),
           with(R"({"name": "a", "capacity": {"m": "1Gi"}})"),
           with(R"({"name": "a", "nodeName": 7})"),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"resource.k8s.io/v1", "resource.k8s.io/v2"}}),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"\"resourceSliceCount\": 1", "\"resourceSliceCount\": 0"}}),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"\"generation\": 1", "\"generation\": 1.5"}}),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"\"driver\": \"d.example.com\"", "\"driver\": \"\""}}),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"resource.k8s.io/v1", "resource.k8s.io/v1beta1"}}),
           // A list holding nothing valid.
           R"({"apiVersion": "v1", "kind": "List", "items": [{"kind": "ResourceSlice"}]})",
           R"({"apiVersion": "v1", "kind": "List", "items": [7]})",
           R"({"apiVersion": "v1", "kind": "List", "items": {}})",
       }) {
    ExpectDeclined(text, /*strict_ok=*/false);
  }
}

TEST(SliceFastDecoderTest, ValidInputItDoesNotReadIsLeftToTheStrictPath) {
  std::vector<std::string> attributes;
  for (int i = 0; i < 20; ++i) attributes.push_back(absl::StrCat(R"("a)", i, R"(": {"int": 1})"));
  const std::string many_attributes = absl::StrJoin(attributes, ", ");
  const std::string base = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [DEVICE]}})";
  auto with = [&](const std::string& device) {
    return absl::StrReplaceAll(base, {{"DEVICE", device}});
  };
  for (
      const std::string& text : std::vector<std::string>{
          // Quantities as floating-point numbers (nlohmann prints them its own way).
          with(R"({"name": "a", "capacity": {"m": {"value": 1.5}}})"),
          // Integers beyond 64 bits, which nlohmann reads as floating point.
          with(R"({"name": "a", "unknown": 123456789012345678901234567890})"),
          // A known member twice (nlohmann keeps the last).
          with(R"({"name": "b", "name": "a"})"),
          with(R"({"name": "a", "attributes": {"x": {"int": 1}, "x": {"int": 2}}})"),
          // ... also past an object's first 16 names.
          with(absl::StrCat(R"({"name": "a", "attributes": {)", many_attributes,
                            R"(, "a1": {"int": 2}}})")),
          // A byte-order mark.
          "\xEF\xBB\xBF" + with(R"({"name": "a"})"),
          // Nested lists, other kinds, documents that are not one object.
          R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List",
               "items": []}]})",
          R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})",
          R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": "ml"}}]})",
          "null",
          "",
      }) {
    ExpectDeclined(text, /*strict_ok=*/true);
  }
}

// FastDecodeSliceListFile (slice_list_file.h): the slices the strict path reads from the same
// text, or not handled.
class SliceListFileTest : public ::gpuprofile::testing::TempDirTest {
 protected:
  // The file's slices as Dump prints them, or nullopt when it is not handled; *runs counts them.
  std::optional<std::string> ReadInRuns(const std::string& text, int* runs = nullptr) {
    const FastDecodeResult result = FastDecodeSliceListFile(Write("slices.json", text));
    if (runs != nullptr) *runs = result.runs;
    if (!result.handled) {
      EXPECT_TRUE(result.slices.empty());
      return std::nullopt;
    }
    std::string out;
    for (const FastDecodedSlice& s : result.slices) out += Dump(s.slice, s.item_index);
    return out;
  }
};

TEST_F(SliceListFileTest, AgreesWithTheStrictPathOnAFileReadInRuns) {
  for (int indent : {2, 4}) {
    const std::string text =
        List(SlicesForALongerList(kListRunsFromBytes, indent, 19)).dump(indent);
    int runs = 0;
    const std::optional<std::string> in_runs = ReadInRuns(text, &runs);
    ASSERT_TRUE(in_runs.has_value()) << "indent " << indent;
    EXPECT_GT(runs, 3);
    const std::optional<std::string> strict = Strict(text);
    ASSERT_TRUE(strict.has_value());
    EXPECT_EQ(*in_runs, *strict);
  }
}

// Items longer than the window a run's end is first looked for in (a run and 64 KiB): the
// window grows, and the buffer with it.
TEST_F(SliceListFileTest, ItemsLongerThanTheWindowAreReadWhole) {
  std::vector<json> slices;
  for (int i = 0; slices.empty() || List(slices).dump(4).size() < kListRunsFromBytes; ++i) {
    json devices = json::array();
    for (int d = 0; d < 600 + 40 * (i % 5); ++d) {
      devices.push_back({{"name", absl::StrCat("gpu-", d)},
                         {"attributes", {{"index", {{"int", d}}}, {"uuid", {{"string", "x"}}}}}});
    }
    slices.push_back({{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceSlice"},
                      {"metadata", {{"name", absl::StrCat("big-", i)}}},
                      {"spec",
                       {{"driver", "gpu.example.com"},
                        {"nodeName", absl::StrCat("node-", i)},
                        {"pool", {{"name", "p"}, {"generation", 1}, {"resourceSliceCount", 1}}},
                        {"devices", devices}}}});
  }
  const std::string text = List(slices).dump(4);
  ASSERT_GT(text.size() / slices.size(), 100u << 10) << "items of over 100 KiB";
  int runs = 0;
  const std::optional<std::string> in_runs = ReadInRuns(text, &runs);
  ASSERT_TRUE(in_runs.has_value());
  EXPECT_GT(runs, 1);
  EXPECT_EQ(*in_runs, Strict(text).value_or("strict path rejects"));
}

TEST_F(SliceListFileTest, FilesItDoesNotReadInRunsAreNotHandled) {
  const std::vector<json> slices = SlicesForALongerList(kListRunsFromBytes, 4, 23);
  const std::string text = List(slices).dump(4);
  const size_t middle = text.find("\n        },\n        {", text.size() / 2);
  ASSERT_NE(middle, std::string::npos);
  std::string no_comma = text;
  no_comma.erase(middle + 10, 1);
  std::string config_map = text;
  config_map.insert(middle + 11, R"(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},)");
  for (const auto& [name, file] : std::vector<std::pair<std::string, std::string>>{
           {"compact", List(slices).dump()},
           {"short", List({slices[0], slices[1]}).dump(4)},
           {"invalid", no_comma},
           {"not only slices", config_map}}) {
    EXPECT_FALSE(ReadInRuns(file).has_value()) << name;
  }
  EXPECT_FALSE(FastDecodeSliceListFile((root_ / "missing.json").string()).handled);
  EXPECT_FALSE(FastDecodeSliceListFile(root_.string()).handled) << "a directory";
}

TEST(SliceFastDecoderTest, TextIsKeptUntilItLooksLikeSlices) {
  std::string profile = R"({"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile"})";
  FastDecodeResult result = FastDecodeSliceJson(&profile);
  EXPECT_FALSE(result.handled);
  EXPECT_FALSE(result.text_released);
  EXPECT_FALSE(profile.empty());

  std::string bad_slice = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice"})";
  result = FastDecodeSliceJson(&bad_slice);
  EXPECT_FALSE(result.handled);
  EXPECT_TRUE(result.text_released);
  EXPECT_TRUE(bad_slice.empty());
}

// One object: DecodeSliceFast against DecodeSlice(nlohmann::json::parse(text)), same value or
// same error. Returns whether the fast decoder needed the strict path.
bool ExpectSameObject(SliceJsonDecoder& decoder, const std::string& text) {
  const int64_t fallbacks = decoder.fallbacks();
  absl::StatusOr<ResourceSlice> fast = decoder.Decode(text);
  const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    EXPECT_EQ(fast.status().code(), absl::StatusCode::kDataLoss) << text;
    return decoder.fallbacks() > fallbacks;
  }
  absl::StatusOr<ResourceSlice> strict = DecodeSlice(parsed);
  EXPECT_EQ(fast.ok(), strict.ok())
      << text << "\nfast: " << fast.status() << "\nstrict: " << strict.status();
  if (fast.ok() && strict.ok()) {
    EXPECT_EQ(Dump(*fast, -1), Dump(*strict, -1)) << text;
  } else if (!fast.ok() && !strict.ok()) {
    EXPECT_EQ(fast.status(), strict.status()) << text;
  }
  return decoder.fallbacks() > fallbacks;
}

TEST(SliceJsonDecoderTest, AgreesWithDecodeSliceOnTheRepositorysSlicesOnTheFastPath) {
  SliceJsonDecoder decoder;
  for (const char* path :
       {"test/testdata/dra", "config/samples/fleet", "config/samples/fleet-v1beta1",
        "test/testdata/profile/mixed-fleet.yaml"}) {
    SCOPED_TRACE(path);
    const std::vector<json> slices = SliceObjects(path);
    ASSERT_FALSE(slices.empty());
    for (const json& slice : slices) {
      EXPECT_FALSE(ExpectSameObject(decoder, slice.dump())) << slice.dump();
      EXPECT_FALSE(ExpectSameObject(decoder, slice.dump(2)));
    }
  }
  EXPECT_EQ(decoder.fallbacks(), 0);
}

TEST(SliceJsonDecoderTest, AgreesWithDecodeSliceOnGeneratedSlicesOfEveryVersion) {
  std::mt19937 rng(11);
  SliceJsonDecoder decoder;
  for (const char* version :
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}) {
    SCOPED_TRACE(version);
    for (int i = 0; i < 300; ++i) {
      json slice = GeneratedSlice(rng, i, version);
      // What an API server adds; the decoder reads none of it.
      slice["metadata"]["resourceVersion"] = absl::StrCat(1000 + i);
      slice["metadata"]["managedFields"] = json::array({{{"manager", "kubelet"}}});
      EXPECT_FALSE(ExpectSameObject(decoder, slice.dump()));
    }
  }
  EXPECT_EQ(decoder.fallbacks(), 0);
}

TEST(SliceJsonDecoderTest, OddInputFallsBackAndStillAgrees) {
  const std::string base = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [DEVICE]}})";
  auto with = [&](const std::string& device) {
    return absl::StrReplaceAll(base, {{"DEVICE", device}});
  };
  SliceJsonDecoder decoder;
  // Valid slices the fast path does not read: the strict path's value.
  for (const std::string& text : std::vector<std::string>{
           with(R"({"name": "a", "capacity": {"m": {"value": 1.5}}})"),
           with(R"({"name": "a", "unknown": 123456789012345678901234567890})"),
           with(R"({"name": "b", "name": "a"})"),
           "\xEF\xBB\xBF" + with(R"({"name": "a"})"),
       }) {
    EXPECT_TRUE(ExpectSameObject(decoder, text)) << text;
  }
  // Invalid slices: the strict path's errors, word for word.
  for (const std::string& text : std::vector<std::string>{
           with(R"({"name": ""})"),
           with(R"({"name": "a"}, {"name": "a"})"),
           with(R"({"name": "a", "basic": {}})"),
           with(R"({"name": "a", "attributes": {"x": {"int": 1, "bool": true}}})"),
           with(R"({"name": "a", "capacity": {"m": {"value": "lots"}}})"),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"resource.k8s.io/v1", "resource.k8s.io/v2"}}),
           absl::StrReplaceAll(with(R"({"name": "a"})"),
                               {{"\"kind\": \"ResourceSlice\"", "\"kind\": \"DeviceClass\""}}),
           R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice"})",
           "[]",
           "7",
       }) {
    EXPECT_TRUE(ExpectSameObject(decoder, text)) << text;
    EXPECT_EQ(decoder.Decode(text).status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
  // Not JSON.
  for (const std::string& text :
       {std::string(""), std::string("{"), with(R"({"name": tru})"), base + " {}"}) {
    EXPECT_EQ(decoder.Decode(text).status().code(), absl::StatusCode::kDataLoss) << text;
  }
}

TEST(SliceJsonDecoderTest, OneDecoderServesManyDocumentsAndThreadsHaveTheirOwn) {
  // The version and quantity caches outlive each document: decoding a second, different text
  // must not read the first one's memory.
  std::mt19937 rng(5);
  std::vector<std::string> texts;
  for (int i = 0; i < 50; ++i) texts.push_back(GeneratedSlice(rng, i, "resource.k8s.io/v1").dump());
  SliceJsonDecoder decoder;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& text : texts) ExpectSameObject(decoder, text);
  }
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (const std::string& text : texts) {
        absl::StatusOr<ResourceSlice> fast = DecodeSliceFast(text);
        absl::StatusOr<ResourceSlice> strict = DecodeSlice(json::parse(text));
        if (!fast.ok() || !strict.ok() || Dump(*fast, -1) != Dump(*strict, -1)) ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// The attributes of every device, "device: name name ...".
std::vector<std::string> AttributeNames(const FastDecodeResult& result) {
  std::vector<std::string> out;
  for (const FastDecodedSlice& s : result.slices) {
    for (const Device& d : s.slice.devices) {
      std::string line = absl::StrCat(d.driver(), "/", d.name(), ":");
      for (const NamedAttribute& a : d.attributes()) absl::StrAppend(&line, " ", a.name);
      out.push_back(line);
    }
  }
  return out;
}

json DemandSlice(const std::string& driver, const std::vector<json>& devices) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", driver + "-slice"}}},
          {"spec",
           {{"driver", driver},
            {"nodeName", "node"},
            {"pool", {{"name", "node"}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", devices}}}};
}

TEST(SliceFastDecoderTest, ADemandKeepsTheScalarsItWantsAndEveryListOrUnknownKind) {
  const json a = {{"name", "a"},
                  {"attributes",
                   {{"uuid", {{"string", "GPU-1"}}},
                    {"productName", {{"string", "L4"}}},
                    {"resource.kubernetes.io/pciBusID", {{"string", "0000:07"}}},
                    {"resource.kubernetes.io/pcieRoot", {{"string", "pci0"}}},
                    {"lanes", {{"ints", {1, 2}}}},
                    {"blob", {{"bytes", "AAA="}}},
                    {"driverVersion", {{"version", "570.1.2"}}}}}};
  // The same names in another order, then fewer of them: each device is decided on its own.
  const json b = {{"name", "b"},
                  {"attributes",
                   {{"driverVersion", {{"version", "570.1.2"}}},
                    {"productName", {{"string", "L4"}}},
                    {"uuid", {{"string", "GPU-2"}}}}}};
  const json c = {{"name", "c"},
                  {"attributes", {{"gpu.nvidia.com/productName", {{"string", "L4"}}}}}};
  // Another driver's unqualified productName is in its own domain.
  const json d = {{"name", "d"}, {"attributes", {{"productName", {{"string", "X"}}}}}};
  const json list = {{"apiVersion", "v1"},
                     {"kind", "List"},
                     {"items",
                      {DemandSlice("gpu.nvidia.com", {a, b, c}),
                       DemandSlice("dra.example.com", {d}), DemandSlice("gpu.nvidia.com", {b})}}};
  AttributeDemand demand = AttributeDemand::Nothing();
  demand.Want("gpu.nvidia.com", "productName");
  demand.Want("resource.kubernetes.io", "pcieRoot");
  std::string text = list.dump();
  const FastDecodeResult result = FastDecodeSliceJson(&text, demand);
  ASSERT_TRUE(result.handled);
  // (DeviceSetBuilder sorts each device's attributes by name.)
  EXPECT_THAT(AttributeNames(result),
              ::testing::ElementsAre(
                  "gpu.nvidia.com/a: blob lanes productName resource.kubernetes.io/pcieRoot",
                  "gpu.nvidia.com/b: productName", "gpu.nvidia.com/c: gpu.nvidia.com/productName",
                  "dra.example.com/d:", "gpu.nvidia.com/b: productName"));
  // Every attribute when nothing is said.
  text = list.dump();
  EXPECT_THAT(AttributeNames(FastDecodeSliceJson(&text)),
              ::testing::Contains("gpu.nvidia.com/b: driverVersion productName uuid"));
}

TEST(SliceFastDecoderTest, AnAttributeLeftOutIsStillChecked) {
  AttributeDemand demand = AttributeDemand::Nothing();
  for (const json& value : {json{{"string", 5}}, json{{"version", "v1"}}, json{{"int", 1.5}},
                            json{{"string", "a"}, {"int", 1}}}) {
    const json device = {{"name", "a"}, {"attributes", {{"uuid", value}}}};
    std::string text = DemandSlice("gpu.nvidia.com", {device}).dump();
    const std::string copy = text;
    const bool whole = FastDecodeSliceJson(&text).handled;
    text = copy;
    EXPECT_EQ(FastDecodeSliceJson(&text, demand).handled, whole) << value.dump();
    EXPECT_EQ(Strict(copy).has_value(), whole) << value.dump();
  }
}

// Devices of a slice mostly repeat the previous device's attribute names, which the decoder
// uses to check for a name given twice: whatever the names repeat, keep, reorder or add, a
// device with a name twice must send the file to the strict path, and no other file may go.
TEST(SliceFastDecoderTest, ANameGivenTwiceIsFoundWhateverThePreviousDeviceGave) {
  const std::vector<std::string> pool = {"a", "productName", "uuid", "b", "type"};
  std::mt19937 random(20261207);
  const auto pick = [&random](size_t n) { return static_cast<size_t>(random() % n); };
  int duplicates = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<json> devices;
    std::vector<std::string> names;
    bool any_twice = false;
    for (int d = 0; d < 6; ++d) {
      switch (pick(5)) {
        case 0:  // new names
          names.clear();
          for (size_t n = pick(5); n > 0; --n) names.push_back(pool[pick(pool.size())]);
          break;
        case 1:
          names.push_back(pool[pick(pool.size())]);
          break;
        case 2:
          if (!names.empty()) names.pop_back();
          break;
        case 3:
          if (!names.empty()) names[pick(names.size())] = pool[pick(pool.size())];
          break;
        default:
          break;  // the same names
      }
      // A JSON object's members in the given order, repeats included (nlohmann's json keeps
      // one of each, so the text is written by hand).
      std::string attributes = "{";
      std::set<std::string> distinct;
      for (size_t i = 0; i < names.size(); ++i) {
        absl::StrAppend(&attributes, i == 0 ? "" : ",", "\"", names[i], "\":{\"int\":", i, "}");
        if (!distinct.insert(names[i]).second) any_twice = true;
      }
      attributes += "}";
      devices.push_back(json{{"name", absl::StrCat("gpu-", d)}, {"attributes", "@" + attributes}});
    }
    std::string text = DemandSlice("gpu.nvidia.com", devices).dump();
    // Splice the hand-written objects in for their placeholders.
    for (size_t at = text.find("\"@"); at != std::string::npos; at = text.find("\"@", at)) {
      const size_t end = text.find("}\"", at);
      std::string object = text.substr(at + 2, end + 1 - (at + 2));
      object = absl::StrReplaceAll(object, {{"\\\"", "\""}});
      text.replace(at, end + 2 - at, object);
    }
    duplicates += any_twice;
    std::string copy = text;
    EXPECT_EQ(FastDecodeSliceJson(&copy).handled, !any_twice) << text;
  }
  EXPECT_GT(duplicates, 30);
  EXPECT_LT(duplicates, 270);
}

}  // namespace
}  // namespace slice_fast_decoder_test
}  // namespace gpuprofile::dra
