// File: fuzz/reader_fuzz.cc
// libFuzzer target for the YAML and JSON readers of untrusted input: manifests as `render` and
// `cel match` read them (YAML, JSON, and sniffed), the limited JSON parser the Kubernetes client
// uses for API responses, and the ResourceSlice decoders (simdjson fast paths and their strict
// fallback). Besides crashes, sanitizer reports, leaks and hangs, it checks the readers'
// promises: every object returned is a mapping with apiVersion and kind, nested no deeper than
// limits::kMaxNestingDepth, and YAML never yields more nodes than the file's node budget
// (controller/core/input_limits.h); and the decoders' promise that the fast paths give exactly
// the strict path's result (controller/dra/slice_fast_decoder.h): the same ResourceSlice field by
// field (devices by Device::operator==), or the same error, for
//  - the input as one JSON object (DecodeSliceFast against ParseJson + DecodeSlice),
//  - every ResourceSlice read from the input as YAML or JSON, re-serialised (so that YAML
//    mutations reach the fast decoder as well-formed JSON slices),
//  - the input as a whole file (FastDecodeSliceJson against ParseManifests + DecodeSlice);
// and that a list cut into runs of items (list_runs.h, with runs of 16 bytes so that small
// inputs are cut too) parses only where the whole text parses, to the same items.
// A broken promise aborts.
//
// Run by scripts/fuzz.sh with per-input -rss_limit_mb, -malloc_limit_mb and -timeout;
// fuzz/reader_corpus keeps the regression inputs (the alias bomb, 100,000-level nesting, ...)
// and seed slices (YAML and JSON, every API version, the 1.35-1.37 fields), each run once first.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/core/input_limits.h"
#include "controller/dra/list_runs.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"
#include "controller/dra/slice_fast_decoder.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace {

using gpuprofile::dra::ManifestObject;
using gpuprofile::dra::ResourceSlice;
namespace limits = gpuprofile::limits;

[[noreturn]] void Broken(const char* promise) {
  std::fprintf(stderr, "reader_fuzz: broken promise: %s\n", promise);
  std::abort();
}

// Nodes and nesting of a value, without recursion (the value may be deep if a limit is broken).
void Measure(const nlohmann::json& root, int64_t* nodes, int* depth) {
  std::vector<std::pair<const nlohmann::json*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    auto [value, level] = stack.back();
    stack.pop_back();
    ++*nodes;
    if (!value->is_structured()) continue;
    if (level > *depth) *depth = level;
    for (const nlohmann::json& child : *value) stack.push_back({&child, level + 1});
  }
}

void CheckObjects(const std::vector<ManifestObject>& objects, int64_t node_budget) {
  int64_t nodes = 0;
  for (const ManifestObject& o : objects) {
    if (!o.object.is_object()) Broken("an object is a mapping");
    for (const char* field : {"apiVersion", "kind"}) {
      auto it = o.object.find(field);
      if (it == o.object.end() || !it->is_string()) Broken("an object has apiVersion and kind");
    }
    int depth = 0;
    Measure(o.object, &nodes, &depth);
    if (depth > limits::kMaxNestingDepth) Broken("no object nests deeper than the limit");
  }
  if (nodes > node_budget) Broken("YAML stays within its node budget");
}

// Every field of the decoded slices; devices with Device::operator==.
bool SameSlice(const ResourceSlice& a, const ResourceSlice& b) {
  // A field added to ResourceSlice must be compared here: this fails to compile until it is.
  // (node_scope and per_device_node_selection share one 8-byte slot.)
  static_assert(sizeof(ResourceSlice) ==
                    6 * sizeof(std::string) + 3 * sizeof(int64_t) +
                        sizeof(std::vector<gpuprofile::dra::CounterSet>) +
                        sizeof(std::vector<gpuprofile::dra::Device>),
                "ResourceSlice changed: compare the new field in SameSlice");
  return a.name == b.name && a.resource_version == b.resource_version &&
         a.api_version == b.api_version && a.driver == b.driver && a.pool == b.pool &&
         a.pool_generation == b.pool_generation &&
         a.resource_slice_count == b.resource_slice_count && a.node_name == b.node_name &&
         a.node_scope == b.node_scope &&
         a.per_device_node_selection == b.per_device_node_selection &&
         a.shared_counters == b.shared_counters && a.devices == b.devices;
}

// The fast path's result is the strict path's: both decode to the same slice, or both fail with
// the same status.
void ExpectSame(const absl::StatusOr<ResourceSlice>& strict,
                const absl::StatusOr<ResourceSlice>& fast, const char* promise) {
  if (strict.ok() != fast.ok()) Broken(promise);
  if (strict.ok() ? !SameSlice(*strict, *fast) : strict.status() != fast.status()) {
    Broken(promise);
  }
}

// Each ResourceSlice the manifest readers returned, decoded strictly and, re-serialised as JSON,
// by the fast decoder. Skips objects whose JSON text does not read back as the same value (a NaN
// or an invalid UTF-8 string from YAML), where the two paths would see different inputs.
void CheckSlicesRead(const std::vector<ManifestObject>& objects) {
  for (const ManifestObject& o : objects) {
    if (!gpuprofile::dra::IsResourceSlice(o.object)) continue;
    std::string json;
    try {
      json = o.object.dump();
      if (nlohmann::json::parse(json) != o.object) continue;
    } catch (const nlohmann::json::exception&) {
      continue;
    }
    ExpectSame(gpuprofile::dra::DecodeSlice(o.object), gpuprofile::dra::DecodeSliceFast(json),
               "DecodeSliceFast decodes a slice read from YAML or JSON as DecodeSlice does");
  }
}

// FastDecodeSliceJson handles a file only when its slices are exactly those ParseManifests and
// DecodeSlice read from it, in order and with the same list positions.
void CheckWholeFile(const std::string& text) {
  std::string copy = text;
  gpuprofile::dra::FastDecodeResult whole = gpuprofile::dra::FastDecodeSliceJson(&copy);
  if (!whole.handled) return;
  auto objects = gpuprofile::dra::ParseManifests(text, "input.json");
  if (!objects.ok()) Broken("a file FastDecodeSliceJson handles is read by ParseManifests");
  if (objects->size() != whole.slices.size()) {
    Broken("FastDecodeSliceJson returns every object of the file");
  }
  for (size_t i = 0; i < objects->size(); ++i) {
    const ManifestObject& o = (*objects)[i];
    if (!gpuprofile::dra::IsResourceSlice(o.object)) {
      Broken("FastDecodeSliceJson handles only files of ResourceSlices");
    }
    absl::StatusOr<ResourceSlice> strict = gpuprofile::dra::DecodeSlice(o.object);
    if (!strict.ok() || !SameSlice(*strict, whole.slices[i].slice) ||
        whole.slices[i].item_index != o.item_index) {
      Broken("FastDecodeSliceJson returns the slices DecodeSlice does");
    }
  }
  // With a demand (attribute_demand.h): the same verdict, the same slices and devices, and of
  // their attributes exactly those wanted or not scalar.
  gpuprofile::dra::AttributeDemand demand = gpuprofile::dra::AttributeDemand::Nothing();
  demand.Want("gpu.nvidia.com", "productName");
  demand.WantOfEveryDriver("type");
  copy = text;
  gpuprofile::dra::FastDecodeResult part = gpuprofile::dra::FastDecodeSliceJson(&copy, demand);
  if (!part.handled || part.slices.size() != whole.slices.size()) {
    Broken("a demand changes nothing of what FastDecodeSliceJson handles");
  }
  for (size_t i = 0; i < whole.slices.size(); ++i) {
    const ResourceSlice& w = whole.slices[i].slice;
    const ResourceSlice& p = part.slices[i].slice;
    if (w.devices.size() != p.devices.size()) Broken("a demand keeps every device");
    for (size_t d = 0; d < w.devices.size(); ++d) {
      std::vector<std::string> expected, kept;
      for (const gpuprofile::dra::NamedAttribute& a : w.devices[d].attributes()) {
        const bool scalar =
            !a.value.is_list() && a.value.kind() != gpuprofile::dra::AttributeValue::Kind::kOpaque;
        if (!scalar || demand.Wants(w.driver, a.name)) expected.push_back(std::string(a.name));
      }
      for (const gpuprofile::dra::NamedAttribute& a : p.devices[d].attributes()) {
        kept.push_back(std::string(a.name));
      }
      if (expected != kept) Broken("a demand keeps the attributes it wants and every non-scalar");
    }
  }
}

// list_runs.h: where a list's envelope and every bracketed run parse, the whole text parses,
// and to the value the runs' items give back in the items' place. (The converse is not
// promised: a cut that guessed wrong makes the decoders parse the whole text instead.)
void CheckListRuns(const std::string& text) {
  namespace sj = simdjson::dom;
  std::optional<gpuprofile::dra::ListRuns> cut = gpuprofile::dra::CutListIntoRuns(text, 16);
  if (!cut) return;
  sj::parser parser;
  sj::element element;
  if (parser.parse(cut->layout.envelope).get(element) != simdjson::SUCCESS) return;
  sj::parser run_parser;
  if (run_parser.allocate(cut->longest_run + 2, gpuprofile::dra::kRunMaxDepth) !=
      simdjson::SUCCESS) {
    return;
  }
  std::string items;
  for (const gpuprofile::dra::ListRuns::Run& run : cut->runs) {
    const std::string bracketed = "[" + text.substr(run.begin, run.end - run.begin) + "]";
    sj::array array;
    if (run_parser.parse(bracketed).get(array) != simdjson::SUCCESS || array.size() == 0) return;
    for (sj::element item : array) {
      if (!items.empty()) items += ",";
      items += simdjson::minify(item);
    }
  }
  sj::element whole;
  if (parser.parse(text).get(whole) != simdjson::SUCCESS) {
    Broken("a list whose envelope and runs parse parses whole");
  }
  const std::string whole_minified = simdjson::minify(whole);
  const std::string rebuilt =
      text.substr(0, cut->layout.open) + "[" + items + "]" + text.substr(cut->layout.close + 1);
  sj::element rebuilt_element;
  if (parser.parse(rebuilt).get(rebuilt_element) != simdjson::SUCCESS ||
      simdjson::minify(rebuilt_element) != whole_minified) {
    Broken("a list's runs hold its items, in order");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const int64_t budget = limits::YamlNodeBudget(size);
  // The same bytes as YAML, as JSON, and sniffed (stdin: JSON first only when the text starts
  // with '{', else exactly the .yaml case, which is not run twice).
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool sniffed = first != std::string::npos && text[first] == '{';
  for (const char* name : {"input.yaml", "input.json", "stdin"}) {
    if (name == std::string("stdin") && !sniffed) continue;
    auto objects = gpuprofile::dra::ParseManifests(text, name);
    if (objects.ok()) {
      CheckObjects(*objects, budget);
      CheckSlicesRead(*objects);
    } else if (objects.status().message().find(name) == std::string::npos) {
      Broken("errors name the file");
    }
  }
  // The client's JSON parser, and the slice decoders: the fast path must give exactly the strict
  // one's result (nlohmann + DecodeSlice) for the input as one object.
  absl::StatusOr<nlohmann::json> parsed =
      limits::ParseJson(text, "response", limits::kMaxApiObjectBytes);
  absl::StatusOr<ResourceSlice> fast = gpuprofile::dra::DecodeSliceFast(text);
  if (parsed.ok()) {
    int64_t nodes = 0;
    int depth = 0;
    Measure(*parsed, &nodes, &depth);
    if (depth > limits::kMaxNestingDepth) Broken("ParseJson keeps to the nesting limit");
    if (parsed->is_object()) {
      ExpectSame(gpuprofile::dra::DecodeSlice(*parsed), fast,
                 "DecodeSliceFast gives DecodeSlice's result");
    }
  }
  CheckWholeFile(text);
  CheckListRuns(text);
  return 0;
}
