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
// A path the program only tests for presence (`'k' in m` and `has(m.k)`, `m` typed as a map) is
// marked presence_only: the program reads whether the entry is there, not its value. A path
// read both ways is reported once, as a value read.
//
// The contract: the program's result depends on the variable only through what it reads at its
// paths (the value, absence included, or only the presence); two bindings that agree on every
// path evaluate alike. Callers use this to share one evaluation between inputs (e.g. devices of
// one node group, whose per-device values such as a UUID a presence test does not tell apart).
// Pure value types; thread-compatible.
#pragma once

#include <string>
#include <tuple>
#include <vector>

namespace gpuprofile::cel {

struct AttributePath {
  std::vector<std::string> qualifiers;  // empty: the variable as a whole
  bool presence_only = false;           // only whether the last qualifier's entry is there

  bool operator==(const AttributePath& other) const {
    return qualifiers == other.qualifiers && presence_only == other.presence_only;
  }
  // Value reads sort before presence tests of the same path.
  bool operator<(const AttributePath& other) const {
    return std::tie(qualifiers, presence_only) < std::tie(other.qualifiers, other.presence_only);
  }
};

}  // namespace gpuprofile::cel
