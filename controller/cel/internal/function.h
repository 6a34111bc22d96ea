// File: controller/cel/internal/function.h
// Function declarations: the overloads a library contributes, with static signatures for the
// checker, a runtime implementation for the evaluator, and the Kubernetes version that gates them.
//
// Every library file exposes one `void RegisterXxxLibrary(FunctionRegistry&)`; Environment picks
// the overloads the chosen Kubernetes version accepts (see environment.h).
// Thread-safety: a registry is built once, then only read (safe to share as const).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {

// Runtime implementation. Receives the arguments (receiver first for receiver-style calls),
// already checked against the overload's parameter kinds (Type::AcceptsRuntime), and never error
// values unless the overload is non-strict. Returns a value or an error value; never throws.
using FunctionImpl = std::function<Value(absl::Span<const Value> args)>;

// When an overload becomes part of the CEL environment, in Kubernetes' own terms: the
// environment version (Kubernetes minor) that introduced it. New expressions on minor N may use
// overloads introduced at N-1 or earlier; stored expressions (and the scheduler) may use all
// (docs/dra-reference.md §4.2).
//
// An overload behind a Kubernetes feature gate (`feature_gate` set) follows the API server's rule
// for gated environment options instead: new expressions may use it exactly when the gate is on,
// whatever the version; stored expressions always may.
struct Gate {
  int introduced_minor = 0;  // 0: part of CEL's base environment everywhere
  // The library's name as users know it, for messages ("semver(string, bool)", "ext.Lists").
  std::string library;
  // The Kubernetes feature gate (controller/core/feature_gates.h), or null when ungated.
  const char* feature_gate = nullptr;
};

struct Overload {
  std::string id;            // unique, e.g. "add_int64", "quantity_compareTo"
  bool receiver_style = false;
  std::vector<Type> params;  // the receiver first when receiver_style
  Type result;
  FunctionImpl impl;
  // Non-strict overloads also receive error values (e.g. `@not_strictly_false`).
  bool non_strict = false;
  // Invisible to the checker; used only by runtime dispatch on dynamic values (cel-go accepts
  // e.g. a uint or integral double list index at runtime, but declares only int).
  bool runtime_only = false;
  Gate gate;
};

class FunctionRegistry {
 public:
  // Adds an overload of `name`. Overload ids must be unique per function.
  void Add(absl::string_view name, Overload overload);

  // All overloads of `name` (global and receiver style), or null when none is declared.
  const std::vector<Overload>* Find(absl::string_view name) const;

  const absl::flat_hash_map<std::string, std::vector<Overload>>& functions() const {
    return functions_;
  }

 private:
  absl::flat_hash_map<std::string, std::vector<Overload>> functions_;
};

// Convenience for library files: a strict overload with a plain implementation.
inline Overload MakeOverload(std::string id, std::vector<Type> params, Type result,
                             FunctionImpl impl, bool receiver_style = false) {
  Overload o;
  o.id = std::move(id);
  o.params = std::move(params);
  o.result = std::move(result);
  o.impl = std::move(impl);
  o.receiver_style = receiver_style;
  return o;
}

// The DRA `includes` overload and its list limit (ResourceSliceMaxAttributeValuesPerDevice), which
// is also its estimated cost.
inline constexpr char kDraIncludesOverload[] = "dra_includes_dyn_dyn";
inline constexpr size_t kDraIncludesMaxValues = 48;

// ---- Library registration entry points (one per library file). ----
// CEL's standard definitions: operators, size, conversions, contains/startsWith/endsWith,
// matches, timestamps and durations, type(), dyn(), optionals.
void RegisterStandardLibrary(FunctionRegistry& registry);
// cel-go strings extension, version 2 (charAt ... strings.quote, format).
void RegisterStringsLibrary(FunctionRegistry& registry);
// Kubernetes regex library: find, findAll.
void RegisterRegexLibrary(FunctionRegistry& registry);
// Kubernetes lists library: isSorted, sum, min, max, indexOf, lastIndexOf.
void RegisterKubernetesListsLibrary(FunctionRegistry& registry);
// cel-go ext.Lists (version 3: distinct, flatten, range, reverse, slice, sort, sortBy ...), gated.
void RegisterExtListsLibrary(FunctionRegistry& registry);
// cel-go ext.Sets: sets.contains, sets.equivalent, sets.intersects.
void RegisterSetsLibrary(FunctionRegistry& registry);
// Kubernetes IP and CIDR libraries.
void RegisterNetLibrary(FunctionRegistry& registry);
// Kubernetes URL library.
void RegisterUrlLibrary(FunctionRegistry& registry);
// Kubernetes format library (format.dns1123Label() ... .validate()).
void RegisterFormatLibrary(FunctionRegistry& registry);
// Kubernetes quantity library.
void RegisterQuantityLibrary(FunctionRegistry& registry);
// Kubernetes semver library (strict; the normalising two-argument forms are gated at 1.33).
void RegisterSemverLibrary(FunctionRegistry& registry);
// The DRA selector functions: `<attribute>.includes(<value>)` (1.36+, gate DRAListTypeAttributes).
void RegisterDraLibrary(FunctionRegistry& registry);

}  // namespace gpuprofile::cel::internal
