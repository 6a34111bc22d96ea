// File: controller/cel/environment.h
// What an expression may refer to: declared variables, the functions of the chosen Kubernetes
// version, parser features, and the admission limits (length, estimated cost).
//
// Kubernetes compiles a *new or changed* selector with the environment of its compatibility
// version (one minor below the server), and a stored, unchanged one with everything the binary
// knows (docs/dra-reference.md §4.2). ExpressionMode picks which; the device-selector environment
// also models the 1.32.0-1.32.2 cost-estimator bug for string functions.
//
// Feature gates (controller/core/feature_gates.h) follow the API server's rule for gated options:
// a new expression may use a gated option exactly when its gate is on, whatever the version; an
// ungated one from the release after the one that introduced it; a stored expression may use
// everything its release knows (a gated option from the release that has the gate, whatever its
// state). In the DRA environment the gates decide:
//   device.allowMultipleAllocations   DRAConsumableCapacity (1.34+; on by default from 1.36)
//   attribute values typed dyn         DRAListTypeAttributes (1.36+, off by default); otherwise
//                                      google.protobuf.Any, which a comprehension cannot range
//                                      over. Stored expressions: dyn from 1.37 on, and on 1.36
//                                      when the gate is on (1.36 typed them by the gate alone).
//   <value>.includes(<value>)          DRAListTypeAttributes (1.36+)
// Thread-safety: immutable after construction; share as std::shared_ptr<const Environment>.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/types.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::cel {

// Defined by the engine's internals (controller/cel/internal/function.h, parser.h).
namespace internal {
class FunctionRegistry;
struct Overload;
struct ParserOptions;
}  // namespace internal

enum class ExpressionMode {
  kNewExpression,     // admission of a new or changed expression
  kStoredExpression,  // evaluation of a stored one (scheduler); every known library
};

struct Variable {
  std::string name;
  Type type;
};

// Name of the DRA device variable and its message type.
inline constexpr char kDeviceVariable[] = "device";
inline constexpr char kDeviceTypeName[] = "kubernetes.DRADevice";

class Environment {
 public:
  struct Options {
    KubeVersion kube_version;
    ExpressionMode mode = ExpressionMode::kNewExpression;
    // The cluster's feature gates (for gated functions); the release defaults of kube_version
    // unless set.
    std::optional<FeatureGates> feature_gates;
    std::vector<Variable> variables;
    // Namespace for resolving qualified identifiers (`container.name`), as cel-go's Container.
    std::string container;
    // Admission limits; 0 disables each.
    size_t max_expression_length = 0;
    uint64_t cost_limit = 0;
    // DRA: whether `device.allowMultipleAllocations` exists (ForDeviceSelectors derives it).
    bool consumable_capacity = false;
    // DRA: whether attribute values are typed dyn (list-typed attributes) rather than
    // google.protobuf.Any (ForDeviceSelectors derives it).
    bool list_type_attributes = false;
    // DRA: whether the estimator knows attribute sizes (false reproduces 1.32.0-1.32.2).
    bool dra_size_estimator = true;
    // The DRA device environment's typing (device as a message) is used for cost estimation.
    bool device_selector = false;
  };

  // The environment the API server uses for DRA device selectors (DeviceClass and request
  // `selectors[].cel.expression`) on `version` with `gates` (gates of `version`; a gate that does
  // not exist on `version` counts as off): variable `device`, length limit 10,240 and
  // estimated-cost limit 1,000,000.
  static std::shared_ptr<const Environment> ForDeviceSelectors(const KubeVersion& version,
                                                               ExpressionMode mode,
                                                               const FeatureGates& gates);
  // The same with the release defaults of `version`.
  static std::shared_ptr<const Environment> ForDeviceSelectors(
      const KubeVersion& version, ExpressionMode mode = ExpressionMode::kNewExpression);

  // A general environment with every library enabled and no limits (conformance tests, tools).
  static std::shared_ptr<const Environment> Standard(std::vector<Variable> variables = {},
                                                     std::string container = "");

  static std::shared_ptr<const Environment> Create(Options options);

  const Options& options() const { return options_; }
  const std::vector<Variable>& variables() const { return options_.variables; }
  // Index of a declared variable, or nullopt.
  std::optional<size_t> FindVariable(absl::string_view name) const;

  // Every overload the binary knows (also those this version does not accept yet).
  const internal::FunctionRegistry& functions() const { return *functions_; }
  // Whether an expression compiled in this environment may use `overload`.
  bool IsAvailable(const internal::Overload& overload) const;
  // Why it may not: e.g. "semver(string, bool) needs the Kubernetes 1.33 CEL environment; new
  // expressions may use it from Kubernetes 1.34 (this is 1.33)", or for a gated overload which
  // gate it needs and how to turn it on.
  std::string UnavailableReason(absl::string_view function,
                                const internal::Overload& overload) const;
  // Why a field of a declared message (`device`) is missing in this environment, when a feature
  // gate would declare it (appended to "undefined field 'x'"); empty otherwise.
  std::string FieldUnavailableReason(const Type& message, absl::string_view field) const;

  // The feature gates in force (the release defaults of kube_version unless options set them).
  const FeatureGates& feature_gates() const { return gates_; }
  // Whether `gate` is on, counting a gate that does not exist on kube_version as off.
  bool GateOn(absl::string_view gate) const;

  const internal::ParserOptions& parser_options() const;

  // Fields of the message-like types this environment declares (the DRA `device`), or nullopt
  // when `message` has no such field ("undefined field 'x'").
  std::optional<Type> FieldType(const Type& message, absl::string_view field) const;
  bool IsMessageType(const Type& type) const;

 private:
  explicit Environment(Options options);
  Options options_;
  FeatureGates gates_;
  std::shared_ptr<const internal::ParserOptions> parser_options_;
  std::shared_ptr<const internal::FunctionRegistry> functions_;
};

// The registry with every library, built once per process.
std::shared_ptr<const internal::FunctionRegistry> AllFunctions();

}  // namespace gpuprofile::cel
