// File: fuzz/reader_fuzz.cc
// libFuzzer target for the YAML and JSON readers of untrusted input: manifests as `render` and
// `cel match` read them (YAML, JSON, and sniffed), the limited JSON parser the Kubernetes client
// uses for API responses, and the ResourceSlice decoders (simdjson fast paths and their strict
// fallback). Besides crashes, sanitizer reports, leaks and hangs, it checks the readers'
// promises: every object returned is a mapping with apiVersion and kind, nested no deeper than
// limits::kMaxNestingDepth, and YAML never yields more nodes than the file's node budget
// (controller/core/input_limits.h). A broken promise aborts.
//
// Run by scripts/fuzz.sh with per-input -rss_limit_mb and -timeout; fuzz/reader_corpus keeps
// the regression inputs (the alias bomb, 100,000-level nesting, ...), each run once first.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "controller/core/input_limits.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"
#include "controller/dra/slice_fast_decoder.h"

namespace {

using gpuprofile::dra::ManifestObject;
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
    } else if (objects.status().message().find(name) == std::string::npos) {
      Broken("errors name the file");
    }
  }
  // The client's JSON parser, and the slice decoders: the fast path must agree with the strict
  // one (nlohmann + DecodeSlice) on whether an object is a valid ResourceSlice.
  absl::StatusOr<nlohmann::json> parsed =
      limits::ParseJson(text, "response", limits::kMaxApiObjectBytes);
  absl::StatusOr<gpuprofile::dra::ResourceSlice> fast = gpuprofile::dra::DecodeSliceFast(text);
  if (parsed.ok()) {
    int64_t nodes = 0;
    int depth = 0;
    Measure(*parsed, &nodes, &depth);
    if (depth > limits::kMaxNestingDepth) Broken("ParseJson keeps to the nesting limit");
    if (parsed->is_object() && gpuprofile::dra::DecodeSlice(*parsed).ok() != fast.ok()) {
      Broken("DecodeSliceFast agrees with DecodeSlice");
    }
  }
  std::string copy = text;
  (void)gpuprofile::dra::FastDecodeSliceJson(&copy);
  return 0;
}
