// File: controller/profile/selector_compiler.cc
#include "controller/profile/selector_compiler.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/cel/environment.h"
#include "controller/cel/literal.h"
#include "controller/profile/cel_literal.h"
#include "controller/profile/driver_terms.h"

namespace gpuprofile::profile {
namespace {

using api::AttributeTerm;

// `device.attributes['<domain>']` / `device.capacity['<domain>']`.
std::string DomainMap(absl::string_view map, absl::string_view domain) {
  return absl::StrCat("device.", map, "[", cel::StringLiteral(domain), "]");
}

// Splits an attribute or capacity name into (domain, id): unqualified names live in the
// driver's domain.
std::pair<std::string, std::string> SplitName(const std::string& name, const std::string& driver) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

// `'id' in <domain map>` followed by `&& <condition on the value>`.
std::string Guarded(absl::string_view domain_map, absl::string_view id,
                    absl::string_view condition) {
  return absl::StrCat(cel::StringLiteral(id), " in ", domain_map, " && ", condition);
}

std::string QuantityBounds(absl::string_view value, const api::QuantityRange& range) {
  std::vector<std::string> parts;
  if (range.min) {
    parts.push_back(absl::StrCat(value, ".compareTo(quantity(",
                                 cel::StringLiteral(range.min->ToString()), ")) >= 0"));
  }
  if (range.max) {
    parts.push_back(absl::StrCat(value, ".compareTo(quantity(",
                                 cel::StringLiteral(range.max->ToString()), ")) <= 0"));
  }
  return absl::StrJoin(parts, " && ");
}

std::string SemverLiteral(absl::string_view text) {
  return absl::StrCat("semver(", cel::StringLiteral(text), ")");
}

std::string VersionBounds(absl::string_view value, const api::VersionRange& range) {
  std::vector<std::string> parts;
  if (range.min) {
    parts.push_back(
        absl::StrCat(value, ".compareTo(", SemverLiteral(range.min->ToString()), ") >= 0"));
  }
  if (range.max) {
    parts.push_back(
        absl::StrCat(value, ".compareTo(", SemverLiteral(range.max->ToString()), ") <= 0"));
  }
  return absl::StrJoin(parts, " && ");
}

std::string StringList(const std::vector<std::string>& values) {
  std::vector<std::string> quoted;
  quoted.reserve(values.size());
  for (const std::string& v : values) quoted.push_back(cel::StringLiteral(v));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

// The literal of one attribute-term value of `type` (values are canonical text already).
std::string TypedLiteral(AttributeTerm::ValueType type, const std::string& value) {
  switch (type) {
    case AttributeTerm::ValueType::kString:
      return cel::StringLiteral(value);
    case AttributeTerm::ValueType::kInt:
    case AttributeTerm::ValueType::kBool:
      return value;
    case AttributeTerm::ValueType::kVersion:
      return SemverLiteral(value);
  }
  return cel::StringLiteral(value);
}

// `value` equals one of `values`, as an expression every supported version accepts.
std::string OneOf(absl::string_view value, const AttributeTerm& term) {
  if (term.value_type == AttributeTerm::ValueType::kString) {
    return absl::StrCat(value, " in ", StringList(term.values));
  }
  std::vector<std::string> alternatives;
  for (const std::string& v : term.values) {
    if (term.value_type == AttributeTerm::ValueType::kVersion) {
      alternatives.push_back(
          absl::StrCat(value, ".compareTo(", TypedLiteral(term.value_type, v), ") == 0"));
    } else {
      alternatives.push_back(absl::StrCat(value, " == ", TypedLiteral(term.value_type, v)));
    }
  }
  if (alternatives.size() == 1) return alternatives[0];
  return absl::StrCat("(", absl::StrJoin(alternatives, " || "), ")");
}

absl::string_view OrderingOperator(AttributeTerm::Operator op) {
  switch (op) {
    case AttributeTerm::Operator::kGt:
      return ">";
    case AttributeTerm::Operator::kGe:
      return ">=";
    case AttributeTerm::Operator::kLt:
      return "<";
    case AttributeTerm::Operator::kLe:
      return "<=";
    default:
      return "";
  }
}

std::string AttributeExpression(const AttributeTerm& term, const std::string& driver) {
  auto [domain, id] = SplitName(term.name, driver);
  const std::string map = DomainMap("attributes", domain);
  const std::string value = CelMember(map, id);
  const std::string present = absl::StrCat(cel::StringLiteral(id), " in ", map);
  switch (term.op) {
    case AttributeTerm::Operator::kExists:
      return present;
    case AttributeTerm::Operator::kDoesNotExist:
      return absl::StrCat("!(", present, ")");
    case AttributeTerm::Operator::kIn:
      return absl::StrCat(present, " && ", OneOf(value, term));
    case AttributeTerm::Operator::kNotIn: {
      // A device lacking the attribute does not match, as for every other term.
      std::string one_of = OneOf(value, term);
      if (one_of.front() != '(') one_of = absl::StrCat("(", one_of, ")");
      return absl::StrCat(present, " && !", one_of);
    }
    case AttributeTerm::Operator::kGt:
    case AttributeTerm::Operator::kGe:
    case AttributeTerm::Operator::kLt:
    case AttributeTerm::Operator::kLe: {
      const std::string& bound = term.values.front();
      if (term.value_type == AttributeTerm::ValueType::kVersion) {
        return absl::StrCat(present, " && ", value, ".compareTo(", SemverLiteral(bound), ") ",
                            OrderingOperator(term.op), " 0");
      }
      return absl::StrCat(present, " && ", value, " ", OrderingOperator(term.op), " ", bound);
    }
  }
  return present;
}

class Compiler {
 public:
  Compiler(const api::GpuProfileSpec& spec, SelectorPrograms* programs)
      : spec_(spec),
        terms_table_(TermsForDriver(spec.driver)),
        programs_(programs),
        gates_(programs->gates()) {}

  absl::StatusOr<CompiledSelectors> Run() {
    AddGuard();
    const api::ProfileSelector& s = spec_.selector;
    if (s.memory) {
      AddCapacityRange("spec.selector.memory", "memory", terms_table_.memory_capacity, *s.memory);
    }
    if (!s.product_names.empty()) {
      AddStringList("spec.selector.productNames", "productNames", terms_table_.product_attribute,
                    s.product_names);
    }
    if (!s.architectures.empty()) {
      AddStringList("spec.selector.architectures", "architectures",
                    terms_table_.architecture_attribute, s.architectures);
    }
    if (!s.mig_profiles.empty()) {
      AddStringList("spec.selector.migProfiles", "migProfiles",
                    terms_table_.mig_profile_attribute, s.mig_profiles);
    }
    AddVersionRange("spec.selector.computeCapability", "computeCapability",
                    terms_table_.compute_capability_attribute, s.compute_capability);
    AddVersionRange("spec.selector.driverVersion", "driverVersion",
                    terms_table_.driver_version_attribute, s.driver_version);
    AddVersionRange("spec.selector.cudaDriverVersion", "cudaDriverVersion",
                    terms_table_.cuda_driver_version_attribute, s.cuda_driver_version);
    for (size_t i = 0; i < s.attributes.size(); ++i) {
      Add(absl::StrCat("spec.selector.attributes[", i, "]"),
          AttributeExpression(s.attributes[i], spec_.driver));
    }
    for (size_t i = 0; i < s.capacity.size(); ++i) {
      auto [domain, id] = SplitName(s.capacity[i].name, spec_.driver);
      const std::string map = DomainMap("capacity", domain);
      Add(absl::StrCat("spec.selector.capacity[", i, "]"),
          Guarded(map, id, QuantityBounds(CelMember(map, id), s.capacity[i].range)));
    }
    // Consumable capacity: devices that several claims may share, with at least the requested
    // amount of each capacity. Without DRAConsumableCapacity the field cannot be written at all
    // (profile/feature_support.h says so), and the CEL environment lacks the member.
    if (!spec_.capacity_requests.empty() && gates_.Enabled(kDRAConsumableCapacity)) {
      Add("spec.capacityRequests", "device.allowMultipleAllocations");
      for (const auto& [name, amount] : spec_.capacity_requests) {
        auto [domain, id] = SplitName(name, spec_.driver);
        const std::string map = DomainMap("capacity", domain);
        api::QuantityRange at_least;
        at_least.min = amount;
        Add(absl::StrCat("spec.capacityRequests[", name, "]"),
            Guarded(map, id, QuantityBounds(CelMember(map, id), at_least)));
      }
    }
    for (size_t i = 0; i < s.cel.size(); ++i) {
      Add(absl::StrCat("spec.selector.cel[", i, "]"), s.cel[i]);
    }
    if (result_.terms.size() > static_cast<size_t>(kMaxSelectorsPerClass)) {
      problems_.push_back(absl::StrCat("spec.selector: the profile compiles to ",
                                       result_.terms.size(),
                                       " selectors; a DeviceClass holds at "
                                       "most ",
                                       kMaxSelectorsPerClass));
    }
    if (!problems_.empty()) {
      return absl::InvalidArgumentError(absl::StrJoin(problems_, "\n"));
    }
    return std::move(result_);
  }

 private:
  void AddGuard() {
    const std::string driver_check =
        absl::StrCat("device.driver == ", cel::StringLiteral(spec_.driver));
    if (terms_table_.type_attribute.empty()) {
      if (spec_.device_type) {
        problems_.push_back(absl::StrCat(
            "spec.deviceType: driver ", spec_.driver,
            " publishes no device-type attribute; leave deviceType unset and select devices "
            "with spec.selector.attributes"));
      }
      Add("spec.driver", driver_check);
      return;
    }
    const std::string type =
        spec_.device_type ? *spec_.device_type : terms_table_.default_device_type;
    bool known_type = false;
    for (const std::string& t : terms_table_.device_types) known_type |= t == type;
    if (!known_type) {
      problems_.push_back(absl::StrCat("spec.deviceType: driver ", spec_.driver,
                                       " has no device type \"", type, "\" (it publishes ",
                                       absl::StrJoin(terms_table_.device_types, ", "), ")"));
    }
    const std::string map = DomainMap("attributes", spec_.driver);
    const std::string& attr = terms_table_.type_attribute;
    Add("spec.driver",
        absl::StrCat(driver_check, " && ", cel::StringLiteral(attr), " in ", map, " && ",
                     CelMember(map, attr), " == ", cel::StringLiteral(type)));
  }

  // Reports the term when the driver has no attribute for it; returns false then.
  bool Expressible(absl::string_view field, absl::string_view term, const std::string& attr) {
    if (!attr.empty()) return true;
    const std::string driver_text =
        IsKnownDriver(spec_.driver)
            ? absl::StrCat("driver ", spec_.driver)
            : absl::StrCat("driver ", spec_.driver,
                           " (not one the operator knows: ", absl::StrJoin(KnownDrivers(), ", "),
                           ")");
    problems_.push_back(absl::StrCat(field, ": ", driver_text, " publishes no attribute for ", term,
                                     "; use spec.selector.attributes or spec.selector.cel "
                                     "with an attribute it does publish"));
    return false;
  }

  void AddCapacityRange(absl::string_view field, absl::string_view term, const std::string& id,
                        const api::QuantityRange& range) {
    if (!Expressible(field, term, id)) return;
    const std::string map = DomainMap("capacity", spec_.driver);
    Add(std::string(field), Guarded(map, id, QuantityBounds(CelMember(map, id), range)));
  }

  void AddStringList(absl::string_view field, absl::string_view term, const std::string& id,
                     const std::vector<std::string>& values) {
    if (!Expressible(field, term, id)) return;
    const std::string map = DomainMap("attributes", spec_.driver);
    Add(std::string(field),
        Guarded(map, id, absl::StrCat(CelMember(map, id), " in ", StringList(values))));
  }

  void AddVersionRange(absl::string_view field, absl::string_view term, const std::string& id,
                       const std::optional<api::VersionRange>& range) {
    if (!range || !Expressible(field, term, id)) return;
    const std::string map = DomainMap("attributes", spec_.driver);
    Add(std::string(field), Guarded(map, id, VersionBounds(CelMember(map, id), *range)));
  }

  void Add(std::string field, std::string expression) {
    absl::StatusOr<std::shared_ptr<const cel::Program>> program = programs_->Compile(expression);
    if (!program.ok()) {
      const bool raw = field.rfind("spec.selector.cel[", 0) == 0;
      if (program.status().code() == absl::StatusCode::kUnimplemented) {
        problems_.push_back(absl::StrCat(field, ": the operator cannot evaluate this expression (",
                                         program.status().message(), ")"));
      } else if (raw) {
        problems_.push_back(
            absl::StrCat(field, ": Kubernetes ", gates_.version().ToString(),
                         " would reject this expression: ", program.status().message()));
      } else {
        // A generated expression that does not compile is a bug in this compiler; say so
        // rather than blame the user.
        problems_.push_back(absl::StrCat(field, ": internal error: generated selector `",
                                         expression,
                                         "` does not compile: ", program.status().message()));
      }
      return;
    }
    result_.terms.push_back({std::move(field), std::move(expression), *std::move(program)});
  }

  const api::GpuProfileSpec& spec_;
  const DriverTerms& terms_table_;
  SelectorPrograms* programs_;
  const FeatureGates& gates_;  // the programs' cluster
  CompiledSelectors result_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> CompiledSelectors::Expressions() const {
  std::vector<std::string> out;
  out.reserve(terms.size());
  for (const SelectorTerm& term : terms) out.push_back(term.expression);
  return out;
}

SelectorPrograms::SelectorPrograms(const FeatureGates& gates)
    : gates_(gates),
      env_(cel::Environment::ForDeviceSelectors(gates.version(),
                                                cel::ExpressionMode::kNewExpression, gates)) {}

SelectorPrograms::~SelectorPrograms() = default;

absl::StatusOr<std::shared_ptr<const cel::Program>> SelectorPrograms::Compile(
    const std::string& expression) {
  auto it = compiled_.find(expression);
  if (it == compiled_.end()) {
    cel::CompileOptions options;
    options.require_bool_result = true;
    it = compiled_.emplace(expression, cel::Compile(expression, env_, options)).first;
  }
  return it->second;
}

absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   const KubeVersion& version) {
  return CompileSelectors(spec, FeatureGates(version));
}

absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   const FeatureGates& gates) {
  SelectorPrograms programs(gates);
  return CompileSelectors(spec, &programs);
}

absl::StatusOr<CompiledSelectors> CompileSelectors(const api::GpuProfileSpec& spec,
                                                   SelectorPrograms* programs) {
  return Compiler(spec, programs).Run();
}

}  // namespace gpuprofile::profile
