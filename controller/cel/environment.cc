// File: controller/cel/environment.cc
#include "controller/cel/environment.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/parser.h"

namespace gpuprofile::cel {

using internal::FunctionRegistry;
using internal::Overload;
using internal::ParserOptions;

namespace {

// Admission limits of DRA selectors (k8s.io/api resource types: CELSelectorExpressionMaxLength,
// CELSelectorExpressionMaxCost).
constexpr size_t kSelectorMaxLength = 10240;
constexpr uint64_t kSelectorMaxCost = 1000000;

// The Kubernetes minor whose CEL environment a feature needs before a new expression on
// `version` may use it: new expressions compile with the environment of the previous minor.
int EnvironmentMinor(const Environment::Options& o) {
  return o.mode == ExpressionMode::kStoredExpression ? 1 << 20 : o.kube_version.minor - 1;
}

// The gate's step on `minor`, or null when the gate does not exist there.
const GateStep* GateStepOn(absl::string_view gate, int minor) {
  const GateSpec* spec = FindGateSpec(gate);
  return spec == nullptr ? nullptr : spec->StepFor(minor);
}

bool GateOnRelease(const FeatureGates& gates, absl::string_view gate, int minor) {
  if (FindGateSpec(gate) != nullptr && GateStepOn(gate, minor) == nullptr) return false;
  return gates.Enabled(gate);
}

// "DRAListTypeAttributes feature gate, which is off (Kubernetes 1.36 default; turn it on with
// --feature-gates DRAListTypeAttributes=true)" and the like.
std::string GateState(const FeatureGates& gates, absl::string_view gate,
                      const KubeVersion& version) {
  const GateStep* step = GateStepOn(gate, version.minor);
  if (step == nullptr) {
    const GateSpec* spec = FindGateSpec(gate);
    return absl::StrCat(gate, " feature gate, which Kubernetes ", version.ToString(),
                        " does not have",
                        spec != nullptr
                            ? absl::StrCat(" (it exists from 1.", spec->steps.front().minor, ")")
                            : "");
  }
  return absl::StrCat(gate, " feature gate, which is off (",
                      gates.Overridden(gate)
                          ? std::string("set by --feature-gates")
                          : absl::StrCat("the Kubernetes ", version.ToString(), " default"),
                      "; turn it on with --feature-gates ", gate, "=true)");
}

}  // namespace

std::shared_ptr<const FunctionRegistry> AllFunctions() {
  static const std::shared_ptr<const FunctionRegistry> kRegistry = [] {
    auto r = std::make_shared<FunctionRegistry>();
    RegisterStandardLibrary(*r);
    RegisterStringsLibrary(*r);
    RegisterRegexLibrary(*r);
    RegisterKubernetesListsLibrary(*r);
    RegisterExtListsLibrary(*r);
    RegisterSetsLibrary(*r);
    RegisterNetLibrary(*r);
    RegisterUrlLibrary(*r);
    RegisterFormatLibrary(*r);
    RegisterQuantityLibrary(*r);
    RegisterSemverLibrary(*r);
    RegisterDraLibrary(*r);
    return std::shared_ptr<const FunctionRegistry>(std::move(r));
  }();
  return kRegistry;
}

Environment::Environment(Options options)
    : options_(std::move(options)),
      gates_(options_.feature_gates ? *options_.feature_gates
                                    : FeatureGates(options_.kube_version)),
      functions_(AllFunctions()) {
  const int env_minor = EnvironmentMinor(options_);
  // Parser features follow the same gates as functions (docs/dra-reference.md §4.2).
  auto parser_options = std::make_shared<ParserOptions>();
  parser_options->enable_optional_syntax = env_minor >= 28;
  parser_options->enable_bind_macro = env_minor >= 31;
  parser_options->enable_two_var_macros = env_minor >= 32;
  parser_options->enable_lists_macros = env_minor >= 34;
  parser_options_ = std::move(parser_options);
}

const ParserOptions& Environment::parser_options() const { return *parser_options_; }

std::shared_ptr<const Environment> Environment::Create(Options options) {
  return std::shared_ptr<const Environment>(new Environment(std::move(options)));
}

std::shared_ptr<const Environment> Environment::ForDeviceSelectors(const KubeVersion& version,
                                                                  ExpressionMode mode,
                                                                  const FeatureGates& gates) {
  Options o;
  o.kube_version = version;
  o.mode = mode;
  o.feature_gates = gates;
  o.variables = {Variable{kDeviceVariable, Type::Opaque(kDeviceTypeName)}};
  o.max_expression_length = kSelectorMaxLength;
  o.cost_limit = kSelectorMaxCost;
  const bool consumable = GateOnRelease(gates, kDRAConsumableCapacity, version.minor);
  const bool lists = GateOnRelease(gates, kDRAListTypeAttributes, version.minor);
  if (mode == ExpressionMode::kNewExpression) {
    o.consumable_capacity = consumable;
    o.list_type_attributes = lists;
  } else {
    // Stored expressions see every declaration the release has: the device type with
    // allowMultipleAllocations from 1.34 on; attribute values typed dyn from 1.37 on (1.36 typed
    // them by its gate alone).
    o.consumable_capacity = version.minor >= 34;
    o.list_type_attributes = version.minor >= 37 || lists;
  }
  // Kubernetes 1.32.0-1.32.2 lacked the DRA size estimator (kubernetes#129523, fixed in 1.32.3).
  o.dra_size_estimator = !(version.minor == 32 && version.patch < 3);
  o.device_selector = true;
  return Create(std::move(o));
}

std::shared_ptr<const Environment> Environment::ForDeviceSelectors(const KubeVersion& version,
                                                                  ExpressionMode mode) {
  return ForDeviceSelectors(version, mode, FeatureGates(version));
}

std::shared_ptr<const Environment> Environment::Standard(std::vector<Variable> variables,
                                                         std::string container) {
  Options o;
  o.mode = ExpressionMode::kStoredExpression;
  o.variables = std::move(variables);
  o.container = std::move(container);
  return Create(std::move(o));
}

std::optional<size_t> Environment::FindVariable(absl::string_view name) const {
  for (size_t i = 0; i < options_.variables.size(); ++i) {
    if (options_.variables[i].name == name) return i;
  }
  return std::nullopt;
}

bool Environment::GateOn(absl::string_view gate) const {
  return GateOnRelease(gates_, gate, options_.kube_version.minor);
}

bool Environment::IsAvailable(const Overload& overload) const {
  if (overload.gate.feature_gate != nullptr) {
    // Stored expressions ignore the gate, but the release must know the option.
    if (options_.mode == ExpressionMode::kStoredExpression) {
      return GateStepOn(overload.gate.feature_gate, options_.kube_version.minor) != nullptr;
    }
    return GateOn(overload.gate.feature_gate);
  }
  return overload.gate.introduced_minor <= EnvironmentMinor(options_);
}

std::string Environment::UnavailableReason(absl::string_view function,
                                           const Overload& overload) const {
  const int introduced = overload.gate.introduced_minor;
  std::string what = overload.gate.library.empty()
                         ? absl::StrCat("'", function, "'")
                         : absl::StrCat("'", function, "' (", overload.gate.library, ")");
  if (overload.gate.feature_gate != nullptr) {
    return absl::StrCat(what, " needs the ",
                        GateState(gates_, overload.gate.feature_gate, options_.kube_version));
  }
  return absl::StrCat(what, " is part of the Kubernetes 1.", introduced,
                      " CEL environment; the API server accepts it in new expressions from "
                      "Kubernetes 1.", introduced + 1, " (this is ",
                      options_.kube_version.ToString(), ")");
}

std::string Environment::FieldUnavailableReason(const Type& message,
                                                absl::string_view field) const {
  if (!IsMessageType(message) || field != "allowMultipleAllocations" ||
      options_.consumable_capacity) {
    return "";
  }
  if (options_.mode == ExpressionMode::kStoredExpression) {
    return absl::StrCat("device.allowMultipleAllocations exists from Kubernetes 1.34 (this is ",
                        options_.kube_version.ToString(), ")");
  }
  return absl::StrCat("device.allowMultipleAllocations needs the ",
                      GateState(gates_, kDRAConsumableCapacity, options_.kube_version));
}

bool Environment::IsMessageType(const Type& type) const {
  return options_.device_selector && type.kind() == Type::Kind::kOpaque &&
         type.name() == kDeviceTypeName;
}

std::optional<Type> Environment::FieldType(const Type& message, absl::string_view field) const {
  if (!IsMessageType(message)) return std::nullopt;
  if (field == "driver") return Type::String();
  if (field == "attributes") {
    return Type::Map(Type::String(),
                     Type::Map(Type::String(),
                               options_.list_type_attributes ? Type::Dyn() : Type::Any()));
  }
  if (field == "capacity") {
    return Type::Map(Type::String(), Type::Map(Type::String(), Type::Opaque(kQuantityTypeName)));
  }
  if (field == "allowMultipleAllocations" && options_.consumable_capacity) return Type::Bool();
  return std::nullopt;
}

}  // namespace gpuprofile::cel
