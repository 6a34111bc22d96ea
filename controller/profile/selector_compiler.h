// File: controller/profile/selector_compiler.h
// Compiles a GpuProfile's selector terms to the CEL selectors of its DeviceClass, for one
// Kubernetes version (docs/design.md §4 "CEL"):
// - one expression per term, in a fixed order: the driver-and-type guard first
//   (`device.driver == 'gpu.nvidia.com' && ... .type == 'gpu'`), so the scheduler stops at the
//   first false and no later selector reads an attribute another driver lacks; then memory,
//   productNames, architectures, migProfiles, computeCapability, driverVersion,
//   cudaDriverVersion, attributes[], capacity[], capacityRequests (`device.allowMultipleAllocations`,
//   then each requested capacity at least the amount; only where DRAConsumableCapacity is on),
//   cel[];
// - presence checks before every read (`'memory' in device.capacity['gpu.nvidia.com'] && ...`),
//   so a device lacking an attribute simply does not match;
// - ordering only through `compareTo(quantity('40Gi'))` / `compareTo(semver('8.0.0'))` with
//   normalised literals; lists with `in [...]` (strings) or `==` chains (ints, bools, versions:
//   `in` over a list of ints is "too complex" for Kubernetes 1.32.0-1.32.2); no string functions;
// - every expression (raw `cel:` terms included) is compiled with the CEL engine in the API
//   server's environment for new expressions on that version, so what is written is accepted.
// A term the profile's driver cannot express (e.g. computeCapability on gpu.amd.com) is an
// error naming the term and the driver.
// Pure; thread-safe (a SelectorPrograms is thread-compatible).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "controller/api/gpu_profile.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::profile {

// Kubernetes' DeviceSelectorsMaxSize: selectors per DeviceClass.
inline constexpr int kMaxSelectorsPerClass = 32;

struct SelectorTerm {
  // The spec field the expression comes from: "spec.driver" for the guard,
  // "spec.selector.memory", "spec.selector.attributes[2]", "spec.selector.cel[0]", ...
  std::string field;
  std::string expression;
  std::shared_ptr<const cel::Program> program;  // compiled for the target version
};

struct CompiledSelectors {
  std::vector<SelectorTerm> terms;  // in DeviceClass order

  std::vector<std::string> Expressions() const;
};

// The programs CompileSelectors compiles for one cluster (its feature gates and version), kept
// by expression: profiles that select alike (the guard every profile of a driver starts with,
// the same memory or product terms) compile each expression once. Thread-compatible.
class SelectorPrograms {
 public:
  explicit SelectorPrograms(const FeatureGates& gates);
  ~SelectorPrograms();

  const FeatureGates& gates() const { return gates_; }
  // `expression` compiled as a device selector of this cluster (a bool result required), or
  // cel::Compile's error.
  absl::StatusOr<std::shared_ptr<const cel::Program>> Compile(const std::string& expression);

 private:
  FeatureGates gates_;
  std::shared_ptr<const cel::Environment> env_;
  absl::flat_hash_map<std::string, absl::StatusOr<std::shared_ptr<const cel::Program>>> compiled_;
};

// Compiles every term; on failure returns InvalidArgument whose message lists every problem,
// one per line, as "<field path>: <reason>".
absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   const KubeVersion& version);
// The same for a cluster with these feature gates (`gates.version()` is the target version).
absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   const FeatureGates& gates);
// The same with the programs of `programs` (its gates), compiling only expressions it lacks.
absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   SelectorPrograms* programs);

}  // namespace gpuprofile::profile
