// File: controller/cel/attribute_paths.h
// Which parts of a variable a compiled program reads (Program::ReadPaths).
//
// A path is the chain of qualifiers written after the variable: field selections
// (`device.driver`, `has(device.x)`, `device.?x`) and string-constant indexes (`m['k']`,
// `m[?'k']`), so `device.attributes['gpu.nvidia.com'].type` reads
// {"attributes", "gpu.nvidia.com", "type"}. `'k' in m`, where the checker typed `m` as a map,
// reads m's path plus "k". A chain ends where a qualifier is computed (`m[x]`) or the value is
// used otherwise (a call, a comparison, a comprehension range): the program may then depend on
// everything under the path so far, down to the variable itself (the empty path).
//
// The contract: the program's result depends on the variable only through the values at its
// paths (absence included); two bindings that agree on every path evaluate alike. Callers use
// this to share one evaluation between inputs (e.g. devices of one node group).
// Pure value types; thread-compatible.
#pragma once

#include <string>
#include <vector>

namespace gpuprofile::cel {

struct AttributePath {
  std::vector<std::string> qualifiers;  // empty: the variable as a whole

  bool operator==(const AttributePath& other) const { return qualifiers == other.qualifiers; }
  bool operator<(const AttributePath& other) const { return qualifiers < other.qualifiers; }
};

}  // namespace gpuprofile::cel
