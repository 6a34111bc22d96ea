// File: controller/api/gpu_profile_codec.cc
// One SpecDecoder per object walks the spec, reporting every problem to a FieldErrors with its
// path; defaults are applied once the whole object has decoded.
#include "controller/api/gpu_profile_codec.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "controller/core/names.h"
#include "controller/core/version_literal.h"
#include "controller/meta/condition_codec.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/json_object.h"
#include "controller/meta/label_selector_codec.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::api {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;
using Operator = AttributeTerm::Operator;
using ValueType = AttributeTerm::ValueType;

std::optional<Operator> ParseOperator(absl::string_view name) {
  for (Operator op : {Operator::kIn, Operator::kNotIn, Operator::kExists, Operator::kDoesNotExist,
                      Operator::kGt, Operator::kGe, Operator::kLt, Operator::kLe}) {
    if (name == AttributeOperatorName(op)) return op;
  }
  return std::nullopt;
}

std::optional<ValueType> ParseValueType(absl::string_view name) {
  for (ValueType type :
       {ValueType::kString, ValueType::kInt, ValueType::kBool, ValueType::kVersion}) {
    if (name == AttributeValueTypeName(type)) return type;
  }
  return std::nullopt;
}

bool IsOrdering(Operator op) {
  return op == Operator::kGt || op == Operator::kGe || op == Operator::kLt || op == Operator::kLe;
}

// "-12", "+7", "007": optional sign then digits only.
bool IsDecimalInteger(absl::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

constexpr const char* kIntervals[] = {"Default", "Short", "Medium", "Long"};

// Kubernetes' IsExtendedResourceName (pkg/apis/core/v1/helper), as DeviceClass validation applies
// it to spec.extendedResourceName; one reason per broken rule, empty when valid.
std::vector<std::string> ExtendedResourceNameErrors(absl::string_view name) {
  std::vector<std::string> reasons;
  if (!absl::StrContains(name, "/")) {
    reasons.push_back(
        "must have a domain prefix (<domain>/<name>; a name without one is in the kubernetes.io "
        "domain)");
  } else if (absl::StrContains(name, "kubernetes.io/")) {
    reasons.push_back("must not be in the kubernetes.io domain (native resources)");
  }
  if (absl::StartsWith(name, "requests.")) {
    reasons.push_back("must not start with \"requests.\" (the prefix of quota keys)");
  }
  for (const std::string& m : QualifiedNameErrors(absl::StrCat("requests.", name))) {
    reasons.push_back(
        absl::StrCat("its quota key \"requests.<name>\" must be a qualified name: ", m));
  }
  return reasons;
}

class SpecDecoder {
 public:
  // `profile_name` is metadata.name (a fallback must not name the profile itself).
  SpecDecoder(std::string profile_name, meta::FieldErrors* errors)
      : profile_name_(std::move(profile_name)), errors_(errors) {}

  void Spec(const json& spec, GpuProfileSpec* out) {
    const std::string path = "spec";
    meta::RejectUnknownFields(
        spec,
        {"description", "driver", "deviceType", "selector", "count", "allocationMode", "config",
         "sharing", "capacityRequests", "fallback", "extendedResourceName", "tolerations", "quota",
         "deviceClassName", "claimTemplate", "deletionPolicy"},
        path, errors_);
    out->description = meta::StringField(spec, "description", path, false, errors_).value_or("");
    if (std::optional<std::string> driver = meta::StringField(spec, "driver", path, false, errors_);
        driver && !driver->empty()) {
      Check(IsDraDriverName(*driver), "spec.driver", *driver);
      out->driver = *std::move(driver);
    }
    if (std::optional<std::string> type =
            meta::StringField(spec, "deviceType", path, false, errors_);
        type && !type->empty()) {
      CheckAttributeString(*type, "spec.deviceType");
      out->device_type = *std::move(type);
    }
    if (const json* selector = meta::ObjectField(spec, "selector", path, false, errors_)) {
      Selector(*selector, &out->selector);
      if (!out->selector.mig_profiles.empty() && out->EffectiveDeviceType() != "mig") {
        errors_->Add("spec.selector.migProfiles",
                     absl::StrCat("must be empty unless deviceType is \"mig\" (deviceType is ",
                                  out->device_type ? meta::QuoteForMessage(*out->device_type)
                                                   : "not set: the default \"gpu\"",
                                  ")"));
      }
    }
    if (std::optional<std::string> mode =
            meta::StringField(spec, "allocationMode", path, false, errors_)) {
      if (*mode == "ExactCount") {
        out->allocation_mode = AllocationMode::kExactCount;
      } else if (*mode == "All") {
        out->allocation_mode = AllocationMode::kAll;
      } else {
        errors_->AddUnsupported("spec.allocationMode", *mode, {"ExactCount", "All"});
      }
    }
    if (std::optional<int64_t> count = meta::IntField(spec, "count", path, false, errors_)) {
      if (*count < 1) {
        errors_->AddInvalid("spec.count", std::to_string(*count),
                            "must be greater than or equal to 1");
      } else if (out->allocation_mode == AllocationMode::kAll) {
        errors_->Add("spec.count", "must not be set when allocationMode is All");
      }
      out->count = *count;
    }
    if (const json* config = meta::ArrayField(spec, "config", path, false, errors_)) {
      Config(*config, &out->config);
    }
    if (const json* sharing = meta::ObjectField(spec, "sharing", path, false, errors_)) {
      out->sharing = Sharing(*sharing);
    }
    if (const json* requests = meta::ObjectField(spec, "capacityRequests", path, false, errors_)) {
      CapacityRequests(*requests, out->driver.empty() ? kDefaultDriver : out->driver,
                       &out->capacity_requests);
    }
    if (const json* fallback = meta::ArrayField(spec, "fallback", path, false, errors_)) {
      Fallback(*fallback, &out->fallback);
    }
    if (std::optional<std::string> name =
            meta::StringField(spec, "extendedResourceName", path, false, errors_)) {
      if (name->empty()) {
        errors_->Add("spec.extendedResourceName",
                     "must not be empty (leave it out for no extended resource name)");
      } else if (std::vector<std::string> reasons = ExtendedResourceNameErrors(*name);
                 !reasons.empty()) {
        errors_->AddInvalid(
            "spec.extendedResourceName", *name,
            absl::StrCat("must be a valid extended resource name: ", absl::StrJoin(reasons, "; ")));
      }
      out->extended_resource_name = *std::move(name);
    }
    if (const json* tolerations = meta::ArrayField(spec, "tolerations", path, false, errors_)) {
      Tolerations(*tolerations, &out->tolerations);
    }
    if (const json* quota = meta::ObjectField(spec, "quota", path, false, errors_)) {
      out->quota = Quota(*quota);
    }
    if (std::optional<std::string> name =
            meta::StringField(spec, "deviceClassName", path, false, errors_);
        name && !name->empty()) {
      Check(IsDnsSubdomain(*name), "spec.deviceClassName", *name);
      out->device_class_name = *std::move(name);
    }
    if (const json* claim = meta::ObjectField(spec, "claimTemplate", path, false, errors_)) {
      ClaimTemplate(*claim, &out->claim_template);
    }
    if (std::optional<std::string> policy =
            meta::StringField(spec, "deletionPolicy", path, false, errors_)) {
      if (*policy == "Delete") {
        out->deletion_policy = DeletionPolicy::kDelete;
      } else if (*policy == "Orphan") {
        out->deletion_policy = DeletionPolicy::kOrphan;
      } else {
        errors_->AddUnsupported("spec.deletionPolicy", *policy, {"Delete", "Orphan"});
      }
    }
  }

 private:
  // Reports a failed check as "invalid value".
  void Check(const absl::Status& status, absl::string_view path, absl::string_view value) {
    if (!status.ok()) errors_->AddInvalid(path, value, status.message());
  }

  // A value a DRA string attribute could hold (compared with one): non-empty, <= 64 characters.
  void CheckAttributeString(absl::string_view value, absl::string_view path) {
    if (value.empty()) {
      errors_->Add(path, "must not be empty");
    } else if (value.size() > kDraAttributeValueMaxLength) {
      errors_->AddInvalid(path, value,
                          absl::StrCat("must be no more than ", kDraAttributeValueMaxLength,
                                       " characters (the longest value a DRA string attribute "
                                       "can hold)"));
    }
  }

  void Selector(const json& selector, ProfileSelector* out) {
    const std::string path = "spec.selector";
    meta::RejectUnknownFields(
        selector,
        {"memory", "productNames", "migProfiles", "architectures", "computeCapability",
         "driverVersion", "cudaDriverVersion", "attributes", "capacity", "cel"},
        path, errors_);
    if (const json* memory = meta::ObjectField(selector, "memory", path, false, errors_)) {
      const std::string memory_path = meta::FieldChild(path, "memory");
      meta::RejectUnknownFields(*memory, {"min", "max"}, memory_path, errors_);
      out->memory = QuantityBounds(*memory, memory_path);
    }
    out->product_names = AttributeStrings(selector, "productNames", path);
    out->mig_profiles = AttributeStrings(selector, "migProfiles", path, /*unique=*/true);
    out->architectures = AttributeStrings(selector, "architectures", path);
    out->compute_capability = Versions(selector, "computeCapability", path);
    out->driver_version = Versions(selector, "driverVersion", path);
    out->cuda_driver_version = Versions(selector, "cudaDriverVersion", path);
    if (const json* attributes = meta::ArrayField(selector, "attributes", path, false, errors_)) {
      const std::string attributes_path = meta::FieldChild(path, "attributes");
      for (size_t i = 0; i < attributes->size(); ++i) {
        out->attributes.push_back(
            Attribute((*attributes)[i], meta::FieldIndex(attributes_path, i)));
      }
    }
    if (const json* capacity = meta::ArrayField(selector, "capacity", path, false, errors_)) {
      const std::string capacity_path = meta::FieldChild(path, "capacity");
      for (size_t i = 0; i < capacity->size(); ++i) {
        out->capacity.push_back(Capacity((*capacity)[i], meta::FieldIndex(capacity_path, i)));
      }
    }
    if (const json* cel = meta::JsonMember(selector, "cel")) {
      const std::string cel_path = meta::FieldChild(path, "cel");
      if (meta::CheckArray(*cel, cel_path, errors_)) {
        for (size_t i = 0; i < cel->size(); ++i) {
          const std::string item_path = meta::FieldIndex(cel_path, i);
          std::optional<std::string> expression = meta::ReadString((*cel)[i], item_path, errors_);
          if (!expression) continue;
          if (absl::StripAsciiWhitespace(*expression).empty()) {
            errors_->Add(item_path, "must not be empty");
            continue;
          }
          out->cel.push_back(*std::move(expression));
        }
      }
    }
  }

  // A list of values a DRA string attribute could hold; with `unique`, duplicates are errors.
  std::vector<std::string> AttributeStrings(const json& object, absl::string_view key,
                                            absl::string_view parent, bool unique = false) {
    const json* value = meta::JsonMember(object, key);
    if (value == nullptr) return {};
    const std::string path = meta::FieldChild(parent, key);
    std::vector<std::string> out;
    if (!meta::CheckArray(*value, path, errors_)) return out;
    std::set<std::string> seen;
    for (size_t i = 0; i < value->size(); ++i) {
      const std::string item_path = meta::FieldIndex(path, i);
      if (std::optional<std::string> s = meta::ReadString((*value)[i], item_path, errors_)) {
        CheckAttributeString(*s, item_path);
        if (unique && !seen.insert(*s).second) {
          errors_->Add(item_path, absl::StrCat("duplicate value ", meta::QuoteForMessage(*s)));
          continue;
        }
        out.push_back(*std::move(s));
      }
    }
    return out;
  }

  std::optional<Quantity> QuantityValue(const json& value, absl::string_view path) {
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number()) {
      text = value.dump();
    } else {
      errors_->Add(path, absl::StrCat("must be a quantity (a string such as \"40Gi\" or a number), "
                                      "got ",
                                      meta::JsonTypeName(value)));
      return std::nullopt;
    }
    absl::StatusOr<Quantity> quantity = Quantity::Parse(text);
    if (!quantity.ok()) {
      errors_->AddInvalid(path, text, quantity.status().message());
      return std::nullopt;
    }
    return *std::move(quantity);
  }

  // min and max of `object` (other members are the caller's business).
  QuantityRange QuantityBounds(const json& object, absl::string_view path) {
    QuantityRange range;
    const std::string min_path = meta::FieldChild(path, "min");
    const std::string max_path = meta::FieldChild(path, "max");
    const json* min = meta::JsonMember(object, "min");
    const json* max = meta::JsonMember(object, "max");
    if (min != nullptr) range.min = QuantityValue(*min, min_path);
    if (max != nullptr) range.max = QuantityValue(*max, max_path);
    if (min == nullptr && max == nullptr) {
      errors_->Add(path, "must set min, max or both");
    } else if (range.min && range.max && range.max->Compare(*range.min) < 0) {
      errors_->AddInvalid(
          min_path, range.min->ToString(),
          absl::StrCat("must be less than or equal to max (", range.max->ToString(), ")"));
    }
    return range;
  }

  std::optional<Semver> VersionValue(const json& value, absl::string_view path) {
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number_integer()) {
      text = value.dump();
    } else if (value.is_number_float()) {
      errors_->Add(path, absl::StrCat("must be a string, got number ", value.dump(),
                                      " (quote versions in YAML: \"8.0\", not 8.0)"));
      return std::nullopt;
    } else {
      errors_->Add(path,
                   absl::StrCat("must be a string (a version), got ", meta::JsonTypeName(value)));
      return std::nullopt;
    }
    absl::StatusOr<Semver> version = NormalizeVersionLiteral(text);
    if (!version.ok()) {
      errors_->Add(path, version.status().message());
      return std::nullopt;
    }
    return *std::move(version);
  }

  std::optional<VersionRange> Versions(const json& selector, absl::string_view key,
                                       absl::string_view parent) {
    const json* object = meta::ObjectField(selector, key, parent, false, errors_);
    if (object == nullptr) return std::nullopt;
    const std::string path = meta::FieldChild(parent, key);
    meta::RejectUnknownFields(*object, {"min", "max"}, path, errors_);
    VersionRange range;
    const std::string min_path = meta::FieldChild(path, "min");
    const json* min = meta::JsonMember(*object, "min");
    const json* max = meta::JsonMember(*object, "max");
    if (min != nullptr) range.min = VersionValue(*min, min_path);
    if (max != nullptr) range.max = VersionValue(*max, meta::FieldChild(path, "max"));
    if (min == nullptr && max == nullptr) {
      errors_->Add(path, "must set min, max or both");
    } else if (range.min && range.max && range.max->Compare(*range.min) < 0) {
      errors_->AddInvalid(
          min_path, range.min->ToString(),
          absl::StrCat("must be less than or equal to max (", range.max->ToString(), ")"));
    }
    return range;
  }

  // One attribute value in its type's canonical text.
  std::optional<std::string> AttributeValue(const json& value, ValueType type,
                                            absl::string_view path) {
    switch (type) {
      case ValueType::kString: {
        std::optional<std::string> s = meta::ReadString(value, path, errors_);
        if (s && s->size() > kDraAttributeValueMaxLength) {
          errors_->AddInvalid(path, *s,
                              absl::StrCat("must be no more than ", kDraAttributeValueMaxLength,
                                           " characters (the longest value a DRA string "
                                           "attribute can hold)"));
          return std::nullopt;
        }
        return s;
      }
      case ValueType::kInt: {
        if (value.is_number_integer()) {
          std::optional<int64_t> i = meta::ReadInt(value, path, errors_);
          if (!i) return std::nullopt;
          return std::to_string(*i);
        }
        if (!value.is_string()) {
          errors_->Add(path, absl::StrCat("must be an integer (or a string holding one), got ",
                                          meta::JsonTypeName(value)));
          return std::nullopt;
        }
        const std::string& text = value.get_ref<const std::string&>();
        int64_t i = 0;
        if (!IsDecimalInteger(text) || !absl::SimpleAtoi(text, &i)) {
          errors_->AddInvalid(path, text, "must be a 64-bit integer in decimal");
          return std::nullopt;
        }
        return std::to_string(i);
      }
      case ValueType::kBool: {
        if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
        if (value.is_string()) {
          const std::string& text = value.get_ref<const std::string&>();
          if (text == "true" || text == "false") return text;
          errors_->AddInvalid(path, text, "must be true or false");
          return std::nullopt;
        }
        errors_->Add(path, absl::StrCat("must be a boolean, got ", meta::JsonTypeName(value)));
        return std::nullopt;
      }
      case ValueType::kVersion: {
        std::optional<Semver> version = VersionValue(value, path);
        if (!version) return std::nullopt;
        std::string text = version->ToString();
        if (text.size() > kDraAttributeValueMaxLength) {
          errors_->AddInvalid(path, text,
                              absl::StrCat("must be no more than ", kDraAttributeValueMaxLength,
                                           " characters (the longest value a DRA version "
                                           "attribute can hold)"));
          return std::nullopt;
        }
        return text;
      }
    }
    return std::nullopt;
  }

  AttributeTerm Attribute(const json& value, const std::string& path) {
    AttributeTerm term;
    if (!meta::CheckObject(value, path, errors_)) return term;
    meta::RejectUnknownFields(value, {"name", "operator", "valueType", "values"}, path, errors_);
    if (std::optional<std::string> name = meta::StringField(value, "name", path, true, errors_)) {
      Check(IsDraAttributeName(*name), meta::FieldChild(path, "name"), *name);
      term.name = *std::move(name);
    }
    bool type_ok = true;
    if (std::optional<std::string> type =
            meta::StringField(value, "valueType", path, false, errors_)) {
      if (std::optional<ValueType> parsed = ParseValueType(*type)) {
        term.value_type = *parsed;
      } else {
        errors_->AddUnsupported(meta::FieldChild(path, "valueType"), *type,
                                {"String", "Int", "Bool", "Version"});
        type_ok = false;
      }
    } else if (meta::JsonMember(value, "valueType") != nullptr) {
      type_ok = false;  // wrong JSON type, reported
    }
    const std::string values_path = meta::FieldChild(path, "values");
    size_t value_count = 0;
    const bool values_present = meta::JsonMember(value, "values") != nullptr;
    const json* values = meta::ArrayField(value, "values", path, false, errors_);
    if (values != nullptr) {
      value_count = values->size();
      for (size_t i = 0; i < values->size(); ++i) {
        const std::string item_path = meta::FieldIndex(values_path, i);
        if (!type_ok) continue;
        if (std::optional<std::string> v =
                AttributeValue((*values)[i], term.value_type, item_path)) {
          term.values.push_back(*std::move(v));
        }
      }
    }
    const std::string op_path = meta::FieldChild(path, "operator");
    std::optional<std::string> op_name = meta::StringField(value, "operator", path, true, errors_);
    if (!op_name) return term;
    std::optional<Operator> op = ParseOperator(*op_name);
    if (!op) {
      errors_->AddUnsupported(op_path, *op_name,
                              {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Ge", "Lt", "Le"});
      return term;
    }
    term.op = *op;
    if (values_present && values == nullptr) return term;  // not a list: reported above
    if (*op == Operator::kExists || *op == Operator::kDoesNotExist) {
      if (value_count > 0) {
        errors_->Add(values_path, absl::StrCat("must be empty when operator is ", *op_name));
      }
    } else if (IsOrdering(*op)) {
      if (type_ok && term.value_type != ValueType::kInt && term.value_type != ValueType::kVersion) {
        errors_->AddInvalid(op_path, *op_name,
                            absl::StrCat("Gt, Ge, Lt and Le need valueType Int or Version, not ",
                                         AttributeValueTypeName(term.value_type)));
      }
      if (value_count != 1) {
        errors_->Add(values_path, absl::StrCat("must have exactly one value when operator is ",
                                               *op_name, ", got ", value_count));
      }
    } else if (value_count == 0) {
      errors_->Add(values_path,
                   absl::StrCat("must have at least one value when operator is ", *op_name));
    }
    return term;
  }

  CapacityTerm Capacity(const json& value, const std::string& path) {
    CapacityTerm term;
    if (!meta::CheckObject(value, path, errors_)) return term;
    meta::RejectUnknownFields(value, {"name", "min", "max"}, path, errors_);
    if (std::optional<std::string> name = meta::StringField(value, "name", path, true, errors_)) {
      Check(IsDraAttributeName(*name), meta::FieldChild(path, "name"), *name);
      term.name = *std::move(name);
    }
    term.range = QuantityBounds(value, path);
    return term;
  }

  void Config(const json& config, std::vector<OpaqueConfig>* out) {
    const std::string path = "spec.config";
    if (config.size() > static_cast<size_t>(kMaxConfigEntries)) {
      errors_->Add(path, absl::StrCat("must have at most ", kMaxConfigEntries, " entries, got ",
                                      config.size()));
    }
    for (size_t i = 0; i < config.size(); ++i) {
      const std::string item_path = meta::FieldIndex(path, i);
      const json& entry = config[i];
      if (!meta::CheckObject(entry, item_path, errors_)) continue;
      meta::RejectUnknownFields(entry, {"driver", "parameters"}, item_path, errors_);
      OpaqueConfig c;
      if (std::optional<std::string> driver =
              meta::StringField(entry, "driver", item_path, true, errors_)) {
        Check(IsDraDriverName(*driver), meta::FieldChild(item_path, "driver"), *driver);
        c.driver = *std::move(driver);
      }
      if (const json* parameters =
              meta::ObjectField(entry, "parameters", item_path, true, errors_)) {
        c.parameters = *parameters;
      }
      out->push_back(std::move(c));
    }
  }

  SharingSpec Sharing(const json& sharing) {
    const std::string path = "spec.sharing";
    meta::RejectUnknownFields(sharing, {"strategy", "timeSlicing", "mps"}, path, errors_);
    SharingSpec out;
    // Whether the strategy is known, so that members can be checked against it.
    bool strategy_ok = meta::JsonMember(sharing, "strategy") == nullptr;
    if (std::optional<std::string> strategy =
            meta::StringField(sharing, "strategy", path, false, errors_)) {
      strategy_ok = true;
      if (*strategy == "Exclusive") {
        out.strategy = SharingStrategy::kExclusive;
      } else if (*strategy == "TimeSlicing") {
        out.strategy = SharingStrategy::kTimeSlicing;
      } else if (*strategy == "MPS") {
        out.strategy = SharingStrategy::kMps;
      } else {
        errors_->AddUnsupported(meta::FieldChild(path, "strategy"), *strategy,
                                {"Exclusive", "TimeSlicing", "MPS"});
        strategy_ok = false;
      }
    }
    auto only_with = [&](const std::string& member_path, SharingStrategy wanted) {
      if (strategy_ok && out.strategy != wanted) {
        errors_->Add(member_path, absl::StrCat("must not be set unless strategy is ",
                                               SharingStrategyName(wanted), " (strategy is ",
                                               SharingStrategyName(out.strategy), ")"));
      }
    };
    if (const json* time_slicing =
            meta::ObjectField(sharing, "timeSlicing", path, false, errors_)) {
      const std::string ts_path = meta::FieldChild(path, "timeSlicing");
      meta::RejectUnknownFields(*time_slicing, {"interval"}, ts_path, errors_);
      TimeSlicingSettings settings;
      if (std::optional<std::string> interval =
              meta::StringField(*time_slicing, "interval", ts_path, false, errors_)) {
        bool known = false;
        for (const char* name : kIntervals) known = known || *interval == name;
        if (known) {
          settings.interval = *std::move(interval);
        } else {
          errors_->AddUnsupported(meta::FieldChild(ts_path, "interval"), *interval,
                                  {"Default", "Short", "Medium", "Long"});
        }
      }
      only_with(ts_path, SharingStrategy::kTimeSlicing);
      out.time_slicing = std::move(settings);
    }
    if (const json* mps = meta::ObjectField(sharing, "mps", path, false, errors_)) {
      const std::string mps_path = meta::FieldChild(path, "mps");
      meta::RejectUnknownFields(*mps,
                                {"defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit"},
                                mps_path, errors_);
      MpsSettings settings;
      if (std::optional<int64_t> percentage =
              meta::IntField(*mps, "defaultActiveThreadPercentage", mps_path, false, errors_)) {
        if (*percentage < 0 || *percentage > 100) {
          errors_->AddInvalid(meta::FieldChild(mps_path, "defaultActiveThreadPercentage"),
                              std::to_string(*percentage), "must be between 0 and 100, inclusive");
        }
        settings.default_active_thread_percentage = *percentage;
      }
      if (const json* limit = meta::JsonMember(*mps, "defaultPinnedDeviceMemoryLimit")) {
        const std::string limit_path = meta::FieldChild(mps_path, "defaultPinnedDeviceMemoryLimit");
        if (std::optional<Quantity> q = QuantityValue(*limit, limit_path)) {
          if (q->Sign() <= 0) {
            errors_->AddInvalid(limit_path, q->ToString(), "must be greater than zero");
          }
          settings.default_pinned_device_memory_limit = *std::move(q);
        }
      }
      only_with(mps_path, SharingStrategy::kMps);
      out.mps = std::move(settings);
    }
    return out;
  }

  // `driver` is the profile's driver: an unqualified name and the same name qualified with the
  // driver's domain are one capacity.
  void CapacityRequests(const json& requests, absl::string_view driver,
                        std::map<std::string, Quantity>* out) {
    const std::string path = "spec.capacityRequests";
    if (requests.size() > static_cast<size_t>(kMaxCapacityRequests)) {
      errors_->Add(path, absl::StrCat("must have at most ", kMaxCapacityRequests, " entries, got ",
                                      requests.size()));
      return;
    }
    const std::string own_domain = absl::StrCat(driver, "/");
    for (auto it = requests.begin(); it != requests.end(); ++it) {
      const std::string& name = it.key();
      const std::string item_path = meta::FieldKey(path, name);
      if (absl::Status s = IsDraAttributeName(name); !s.ok()) {
        errors_->AddInvalid(item_path, name, s.message());
        continue;
      }
      if (it.value().is_null()) {
        errors_->Add(item_path,
                     "must be a quantity (a string such as \"10Gi\" or a number), got "
                     "null");
        continue;
      }
      std::optional<Quantity> amount = QuantityValue(it.value(), item_path);
      if (!amount) continue;
      if (amount->Sign() <= 0) {
        errors_->AddInvalid(item_path, amount->ToString(), "must be greater than zero");
        continue;
      }
      if (absl::StartsWith(name, own_domain)) {
        const std::string bare = name.substr(own_domain.size());
        if (requests.contains(bare)) {
          errors_->Add(item_path, absl::StrCat("duplicate of ", meta::QuoteForMessage(bare),
                                               " (unqualified names live in the driver's domain, ",
                                               driver, ")"));
          continue;
        }
      }
      out->emplace(name, *std::move(amount));
    }
  }

  void Fallback(const json& fallback, std::vector<std::string>* out) {
    const std::string path = "spec.fallback";
    if (fallback.size() > static_cast<size_t>(kMaxFallbackProfiles)) {
      errors_->Add(
          path,
          absl::StrCat("must have at most ", kMaxFallbackProfiles,
                       " entries (a firstAvailable list holds at most ", kMaxFallbackProfiles + 1,
                       " subrequests, this profile's class first), got ", fallback.size()));
      return;
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < fallback.size(); ++i) {
      const std::string item_path = meta::FieldIndex(path, i);
      std::optional<std::string> name = meta::ReadString(fallback[i], item_path, errors_);
      if (!name) continue;
      if (absl::Status s = IsDnsLabel(*name); !s.ok()) {
        errors_->AddInvalid(item_path, *name, s.message());
        continue;
      }
      if (*name == profile_name_) {
        errors_->AddInvalid(item_path, *name, "must not name the profile itself");
        continue;
      }
      if (!seen.insert(*name).second) {
        errors_->Add(item_path, absl::StrCat("duplicate value ", meta::QuoteForMessage(*name)));
        continue;
      }
      out->push_back(*std::move(name));
    }
  }

  // The rules of resource.k8s.io's DeviceToleration as its API documents them; the API server
  // checks the key, operator, value and effect, and silently ignores an empty key with Equal and
  // tolerationSeconds without NoExecute, which are errors here because they cannot mean what
  // was written.
  void Tolerations(const json& tolerations, std::vector<DeviceTolerationSpec>* out) {
    const std::string path = "spec.tolerations";
    if (tolerations.size() > static_cast<size_t>(kMaxTolerations)) {
      errors_->Add(path, absl::StrCat("must have at most ", kMaxTolerations, " entries, got ",
                                      tolerations.size()));
      return;
    }
    for (size_t i = 0; i < tolerations.size(); ++i) {
      const std::string item_path = meta::FieldIndex(path, i);
      const json& entry = tolerations[i];
      if (!meta::CheckObject(entry, item_path, errors_)) continue;
      meta::RejectUnknownFields(entry, {"key", "operator", "value", "effect", "tolerationSeconds"},
                                item_path, errors_);
      DeviceTolerationSpec t;
      const std::string key_path = meta::FieldChild(item_path, "key");
      const std::string op_path = meta::FieldChild(item_path, "operator");
      const std::string value_path = meta::FieldChild(item_path, "value");
      const std::string effect_path = meta::FieldChild(item_path, "effect");
      if (std::optional<std::string> key =
              meta::StringField(entry, "key", item_path, false, errors_)) {
        if (!key->empty()) Check(IsQualifiedName(*key), key_path, *key);
        t.key = *std::move(key);
      }
      bool op_ok = true;
      if (std::optional<std::string> op =
              meta::StringField(entry, "operator", item_path, false, errors_)) {
        if (*op == "Equal" || *op == "Exists") {
          t.op = *std::move(op);
        } else {
          errors_->AddUnsupported(op_path, *op, {"Equal", "Exists"});
          op_ok = false;
        }
      } else if (meta::JsonMember(entry, "operator") != nullptr) {
        op_ok = false;  // wrong JSON type, reported
      }
      if (std::optional<std::string> value =
              meta::StringField(entry, "value", item_path, false, errors_)) {
        t.value = *std::move(value);
      }
      if (op_ok && t.op == "Exists") {
        if (!t.value.empty()) {
          errors_->AddInvalid(value_path, t.value, "must be empty when operator is Exists");
        }
      } else if (op_ok) {
        if (t.key.empty()) {
          errors_->AddInvalid(op_path, t.op,
                              "must be Exists when key is empty (an empty key with Exists "
                              "tolerates every taint)");
        }
        Check(IsLabelValue(t.value), value_path, t.value);
      }
      bool effect_ok = true;
      if (std::optional<std::string> effect =
              meta::StringField(entry, "effect", item_path, false, errors_)) {
        if (effect->empty() || *effect == "NoSchedule" || *effect == "NoExecute") {
          t.effect = *std::move(effect);
        } else {
          errors_->AddUnsupported(effect_path, *effect, {"NoSchedule", "NoExecute"});
          effect_ok = false;
        }
      } else if (meta::JsonMember(entry, "effect") != nullptr) {
        effect_ok = false;  // wrong JSON type, reported
      }
      if (std::optional<int64_t> seconds =
              meta::IntField(entry, "tolerationSeconds", item_path, false, errors_)) {
        const std::string seconds_path = meta::FieldChild(item_path, "tolerationSeconds");
        if (effect_ok && t.effect != "NoExecute") {
          errors_->Add(seconds_path,
                       absl::StrCat("must not be set unless effect is NoExecute (effect is ",
                                    t.effect.empty() ? "empty" : meta::QuoteForMessage(t.effect),
                                    "); it is how long a NoExecute taint is tolerated before "
                                    "eviction"));
        }
        if (*seconds < 0) {
          errors_->AddInvalid(seconds_path, std::to_string(*seconds),
                              "must be greater than or equal to 0 (Kubernetes treats negative "
                              "values as 0: evict at once)");
        }
        t.toleration_seconds = *seconds;
      }
      out->push_back(std::move(t));
    }
  }

  QuotaSpec Quota(const json& quota) {
    const std::string path = "spec.quota";
    meta::RejectUnknownFields(quota, {"devicesPerNamespace"}, path, errors_);
    QuotaSpec out;
    if (std::optional<int64_t> devices =
            meta::IntField(quota, "devicesPerNamespace", path, true, errors_)) {
      if (*devices < 0) {
        errors_->AddInvalid(meta::FieldChild(path, "devicesPerNamespace"), std::to_string(*devices),
                            "must be greater than or equal to 0");
      }
      out.devices_per_namespace = *devices;
    }
    return out;
  }

  void ClaimTemplate(const json& claim, ClaimTemplateSpec* out) {
    const std::string path = "spec.claimTemplate";
    meta::RejectUnknownFields(claim, {"name", "requestName", "namespaces", "namespaceSelector"},
                              path, errors_);
    if (std::optional<std::string> name = meta::StringField(claim, "name", path, false, errors_);
        name && !name->empty()) {
      Check(IsDnsSubdomain(*name), meta::FieldChild(path, "name"), *name);
      out->name = *std::move(name);
    }
    if (std::optional<std::string> request =
            meta::StringField(claim, "requestName", path, false, errors_);
        request && !request->empty()) {
      Check(IsDnsLabel(*request), meta::FieldChild(path, "requestName"), *request);
      out->request_name = *std::move(request);
    }
    if (const json* namespaces = meta::JsonMember(claim, "namespaces")) {
      const std::string namespaces_path = meta::FieldChild(path, "namespaces");
      if (meta::CheckArray(*namespaces, namespaces_path, errors_)) {
        std::set<std::string> seen;
        for (size_t i = 0; i < namespaces->size(); ++i) {
          const std::string item_path = meta::FieldIndex(namespaces_path, i);
          std::optional<std::string> ns = meta::ReadString((*namespaces)[i], item_path, errors_);
          if (!ns) continue;
          if (absl::Status s = IsDnsLabel(*ns); !s.ok()) {
            errors_->AddInvalid(item_path, *ns, s.message());
            continue;
          }
          if (!seen.insert(*ns).second) {
            errors_->Add(item_path, absl::StrCat("duplicate value ", meta::QuoteForMessage(*ns)));
            continue;
          }
          out->namespaces.push_back(*std::move(ns));
        }
      }
    }
    if (const json* selector = meta::JsonMember(claim, "namespaceSelector")) {
      out->namespace_selector = meta::DecodeLabelSelector(
          *selector, meta::FieldChild(path, "namespaceSelector"), errors_);
    }
  }

  std::string profile_name_;
  meta::FieldErrors* errors_;
};

// ---- lenient status decoding: what does not fit is skipped ----

int64_t LenientInt(const json& object, absl::string_view key) {
  const json* value = meta::JsonMember(object, key);
  if (value == nullptr || !value->is_number_integer()) return 0;
  if (value->is_number_unsigned() &&
      value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return 0;
  }
  return value->get<int64_t>();
}

std::string LenientString(const json& object, absl::string_view key) {
  const json* value = meta::JsonMember(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

const json* LenientArray(const json& object, absl::string_view key) {
  const json* value = meta::JsonMember(object, key);
  return value != nullptr && value->is_array() ? value : nullptr;
}

// The keys of a deviceStates object, in the order they are written.
struct DeviceStateKey {
  const char* key;
  int64_t DeviceStates::*member;
};
constexpr DeviceStateKey kDeviceStateKeys[] = {
    {"free", &DeviceStates::free},
    {"overlapping", &DeviceStates::overlapping},
    {"allocated", &DeviceStates::allocated},
    {"blockedByCounters", &DeviceStates::blocked_by_counters},
    {"tainted", &DeviceStates::tainted},
    {"incompletePool", &DeviceStates::incomplete_pool},
    {"unavailable", &DeviceStates::unavailable},
};

// A deviceStates object; a missing object or key reads as 0 (statuses written before it existed).
DeviceStates DecodeDeviceStatesLeniently(const json& parent) {
  DeviceStates out;
  const json* states = meta::JsonMember(parent, "deviceStates");
  if (states == nullptr || !states->is_object()) return out;
  for (const DeviceStateKey& k : kDeviceStateKeys) out.*k.member = LenientInt(*states, k.key);
  return out;
}

GpuProfileStatus DecodeStatusLeniently(const json& status) {
  GpuProfileStatus out;
  if (!status.is_object()) return out;
  out.observed_generation = LenientInt(status, "observedGeneration");
  if (const json* conditions = LenientArray(status, "conditions")) {
    out.conditions = meta::DecodeConditionsLeniently(*conditions);
  }
  out.device_class_name = LenientString(status, "deviceClassName");
  if (const json* selectors = LenientArray(status, "selectors")) {
    for (const json& s : *selectors) {
      if (s.is_string()) out.selectors.push_back(s.get<std::string>());
    }
  }
  out.matched_devices = LenientInt(status, "matchedDevices");
  out.matched_nodes = LenientInt(status, "matchedNodes");
  out.schedulable_devices = LenientInt(status, "schedulableDevices");
  out.tainted_devices = LenientInt(status, "taintedDevices");
  if (const json* groups = LenientArray(status, "nodeGroups")) {
    for (const json& g : *groups) {
      if (!g.is_object()) continue;
      out.node_groups.push_back({LenientString(g, "name"), LenientInt(g, "devices"),
                                 LenientInt(g, "nodes"), LenientInt(g, "schedulableDevices"),
                                 LenientInt(g, "taintedDevices"), DecodeDeviceStatesLeniently(g)});
    }
  }
  if (const json* templates = meta::JsonMember(status, "claimTemplates")) {
    out.claim_templates.desired = LenientInt(*templates, "desired");
    out.claim_templates.ready = LenientInt(*templates, "ready");
  }
  out.extended_resource_name = LenientString(status, "extendedResourceName");
  if (const json* claims = meta::JsonMember(status, "schedulableClaims");
      claims != nullptr && claims->is_number_integer()) {
    out.schedulable_claims = LenientInt(status, "schedulableClaims");
  }
  if (const json* quotas = meta::JsonMember(status, "quotas")) {
    out.quotas.desired = LenientInt(*quotas, "desired");
    out.quotas.ready = LenientInt(*quotas, "ready");
  }
  if (const json* allocation = meta::JsonMember(status, "allocation")) {
    out.allocation.allocated_devices = LenientInt(*allocation, "allocatedDevices");
    out.allocation.allocated_claims = LenientInt(*allocation, "allocatedClaims");
    out.allocation.free_devices = LenientInt(*allocation, "freeDevices");
    if (meta::JsonMember(*allocation, "freeClaims") != nullptr) {
      out.allocation.free_claims = LenientInt(*allocation, "freeClaims");
    }
    out.allocation.pending_claims = LenientInt(*allocation, "pendingClaims");
    out.allocation.oldest_pending_claim_time = LenientString(*allocation, "oldestPendingClaimTime");
    out.allocation.device_states = DecodeDeviceStatesLeniently(*allocation);
  }
  return out;
}

// ---- encoding ----

ordered_json EncodeQuantityRange(const QuantityRange& range) {
  ordered_json out = ordered_json::object();
  if (range.min) out["min"] = range.min->ToString();
  if (range.max) out["max"] = range.max->ToString();
  return out;
}

ordered_json EncodeVersionRange(const VersionRange& range) {
  ordered_json out = ordered_json::object();
  if (range.min) out["min"] = range.min->ToString();
  if (range.max) out["max"] = range.max->ToString();
  return out;
}

ordered_json EncodeSelector(const ProfileSelector& selector) {
  ordered_json out = meta::ObjectWithRoom(10);
  if (selector.memory) out["memory"] = EncodeQuantityRange(*selector.memory);
  if (!selector.product_names.empty()) out["productNames"] = selector.product_names;
  if (!selector.mig_profiles.empty()) out["migProfiles"] = selector.mig_profiles;
  if (!selector.architectures.empty()) out["architectures"] = selector.architectures;
  if (selector.compute_capability) {
    out["computeCapability"] = EncodeVersionRange(*selector.compute_capability);
  }
  if (selector.driver_version) out["driverVersion"] = EncodeVersionRange(*selector.driver_version);
  if (selector.cuda_driver_version) {
    out["cudaDriverVersion"] = EncodeVersionRange(*selector.cuda_driver_version);
  }
  if (!selector.attributes.empty()) {
    ordered_json attributes = ordered_json::array();
    for (const AttributeTerm& term : selector.attributes) {
      ordered_json a = ordered_json::object();
      a["name"] = term.name;
      a["operator"] = AttributeOperatorName(term.op);
      a["valueType"] = AttributeValueTypeName(term.value_type);
      if (!term.values.empty()) a["values"] = term.values;
      attributes.push_back(std::move(a));
    }
    out["attributes"] = std::move(attributes);
  }
  if (!selector.capacity.empty()) {
    ordered_json capacity = ordered_json::array();
    for (const CapacityTerm& term : selector.capacity) {
      ordered_json c = ordered_json::object();
      c["name"] = term.name;
      if (term.range.min) c["min"] = term.range.min->ToString();
      if (term.range.max) c["max"] = term.range.max->ToString();
      capacity.push_back(std::move(c));
    }
    out["capacity"] = std::move(capacity);
  }
  if (!selector.cel.empty()) out["cel"] = selector.cel;
  return out;
}

ordered_json EncodeSharing(const SharingSpec& sharing) {
  ordered_json out = ordered_json::object();
  out["strategy"] = SharingStrategyName(sharing.strategy);
  if (sharing.time_slicing) {
    ordered_json time_slicing = ordered_json::object();
    if (!sharing.time_slicing->interval.empty()) {
      time_slicing["interval"] = sharing.time_slicing->interval;
    }
    out["timeSlicing"] = std::move(time_slicing);
  }
  if (sharing.mps) {
    ordered_json mps = ordered_json::object();
    if (sharing.mps->default_active_thread_percentage) {
      mps["defaultActiveThreadPercentage"] = *sharing.mps->default_active_thread_percentage;
    }
    if (sharing.mps->default_pinned_device_memory_limit) {
      mps["defaultPinnedDeviceMemoryLimit"] =
          sharing.mps->default_pinned_device_memory_limit->ToString();
    }
    out["mps"] = std::move(mps);
  }
  return out;
}

ordered_json EncodeSpec(const GpuProfileSpec& spec) {
  ordered_json out = meta::ObjectWithRoom(16);
  if (!spec.description.empty()) out["description"] = spec.description;
  out["driver"] = spec.driver;
  if (spec.device_type) out["deviceType"] = *spec.device_type;
  ordered_json selector = EncodeSelector(spec.selector);
  if (!selector.empty()) out["selector"] = std::move(selector);
  if (spec.count) out["count"] = *spec.count;
  out["allocationMode"] = AllocationModeName(spec.allocation_mode);
  if (!spec.config.empty()) {
    ordered_json config = ordered_json::array();
    for (const OpaqueConfig& c : spec.config) {
      ordered_json entry = ordered_json::object();
      entry["driver"] = c.driver;
      entry["parameters"] = ordered_json(c.parameters);
      config.push_back(std::move(entry));
    }
    out["config"] = std::move(config);
  }
  if (spec.sharing) out["sharing"] = EncodeSharing(*spec.sharing);
  if (!spec.capacity_requests.empty()) {
    ordered_json requests = ordered_json::object();
    for (const auto& [name, amount] : spec.capacity_requests) requests[name] = amount.ToString();
    out["capacityRequests"] = std::move(requests);
  }
  if (!spec.fallback.empty()) out["fallback"] = spec.fallback;
  if (spec.extended_resource_name) out["extendedResourceName"] = *spec.extended_resource_name;
  if (!spec.tolerations.empty()) {
    ordered_json tolerations = ordered_json::array();
    for (const DeviceTolerationSpec& t : spec.tolerations) {
      ordered_json entry = ordered_json::object();
      if (!t.key.empty()) entry["key"] = t.key;
      entry["operator"] = t.op;
      if (!t.value.empty()) entry["value"] = t.value;
      if (!t.effect.empty()) entry["effect"] = t.effect;
      if (t.toleration_seconds) entry["tolerationSeconds"] = *t.toleration_seconds;
      tolerations.push_back(std::move(entry));
    }
    out["tolerations"] = std::move(tolerations);
  }
  if (spec.quota) {
    ordered_json quota = ordered_json::object();
    quota["devicesPerNamespace"] = spec.quota->devices_per_namespace;
    out["quota"] = std::move(quota);
  }
  out["deviceClassName"] = spec.device_class_name;
  ordered_json claim = meta::ObjectWithRoom(4);
  claim["name"] = spec.claim_template.name;
  claim["requestName"] = spec.claim_template.request_name;
  if (!spec.claim_template.namespaces.empty()) {
    claim["namespaces"] = spec.claim_template.namespaces;
  }
  if (spec.claim_template.namespace_selector) {
    claim["namespaceSelector"] = meta::EncodeLabelSelector(*spec.claim_template.namespace_selector);
  }
  out["claimTemplate"] = std::move(claim);
  out["deletionPolicy"] = DeletionPolicyName(spec.deletion_policy);
  return out;
}

}  // namespace

ordered_json EncodeDeviceStates(const DeviceStates& states, bool non_zero_only) {
  ordered_json out = ordered_json::object();
  for (const DeviceStateKey& k : kDeviceStateKeys) {
    if (!non_zero_only || states.*k.member != 0) out[k.key] = states.*k.member;
  }
  return out;
}

const char* AttributeOperatorName(Operator op) {
  switch (op) {
    case Operator::kIn:
      return "In";
    case Operator::kNotIn:
      return "NotIn";
    case Operator::kExists:
      return "Exists";
    case Operator::kDoesNotExist:
      return "DoesNotExist";
    case Operator::kGt:
      return "Gt";
    case Operator::kGe:
      return "Ge";
    case Operator::kLt:
      return "Lt";
    case Operator::kLe:
      return "Le";
  }
  return "In";
}

const char* AttributeValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "String";
    case ValueType::kInt:
      return "Int";
    case ValueType::kBool:
      return "Bool";
    case ValueType::kVersion:
      return "Version";
  }
  return "String";
}

bool IsGpuProfile(const json& object) {
  const json* api_version = meta::JsonMember(object, "apiVersion");
  const json* kind = meta::JsonMember(object, "kind");
  return api_version != nullptr && api_version->is_string() &&
         api_version->get_ref<const std::string&>() == kApiVersion && kind != nullptr &&
         kind->is_string() && kind->get_ref<const std::string&>() == kGpuProfileKind;
}

absl::StatusOr<GpuProfile> DecodeGpuProfile(const json& object) {
  meta::FieldErrors errors;
  if (!meta::CheckObject(object, "", &errors)) return errors.ToStatus();
  if (std::optional<std::string> api_version =
          meta::StringField(object, "apiVersion", "", true, &errors);
      api_version && *api_version != kApiVersion) {
    errors.AddUnsupported("apiVersion", *api_version, {kApiVersion});
  }
  if (std::optional<std::string> kind = meta::StringField(object, "kind", "", true, &errors);
      kind && *kind != kGpuProfileKind) {
    errors.AddUnsupported("kind", *kind, {kGpuProfileKind});
  }
  GpuProfile profile;
  if (const json* metadata = meta::ObjectField(object, "metadata", "", true, &errors)) {
    profile.metadata = meta::DecodeObjectMeta(*metadata, "metadata", &errors);
    const json* name = meta::JsonMember(*metadata, "name");
    if (name == nullptr || (name->is_string() && profile.metadata.name.empty())) {
      errors.Add("metadata.name", "required");
    } else if (name->is_string()) {
      if (absl::Status s = IsDnsLabel(profile.metadata.name); !s.ok()) {
        errors.AddInvalid("metadata.name", profile.metadata.name, s.message());
      }
    }
  }
  if (const json* spec = meta::ObjectField(object, "spec", "", false, &errors)) {
    SpecDecoder(profile.metadata.name, &errors).Spec(*spec, &profile.spec);
  }
  if (!errors.empty()) return errors.ToStatus();

  GpuProfileSpec& spec = profile.spec;
  if (spec.driver.empty()) spec.driver = kDefaultDriver;
  if (spec.device_class_name.empty()) spec.device_class_name = profile.metadata.name;
  if (spec.claim_template.name.empty()) spec.claim_template.name = profile.metadata.name;
  if (spec.claim_template.request_name.empty()) {
    spec.claim_template.request_name = kDefaultRequestName;
  }
  if (const json* status = meta::JsonMember(object, "status")) {
    profile.status = DecodeStatusLeniently(*status);
  }
  return profile;
}

ordered_json EncodeGpuProfileStatus(const GpuProfileStatus& status) {
  ordered_json out = meta::ObjectWithRoom(16);
  out["observedGeneration"] = status.observed_generation;
  out["conditions"] =
      meta::EncodeConditions(status.conditions, meta::ConditionGeneration::kIncluded);
  out["deviceClassName"] = status.device_class_name;
  out["selectors"] = status.selectors;
  out["matchedDevices"] = status.matched_devices;
  out["matchedNodes"] = status.matched_nodes;
  out["schedulableDevices"] = status.schedulable_devices;
  out["taintedDevices"] = status.tainted_devices;
  ordered_json groups = ordered_json::array();
  for (const NodeGroupMatch& g : status.node_groups) {
    ordered_json group = meta::ObjectWithRoom(6);
    group["name"] = g.name;
    group["devices"] = g.devices;
    group["nodes"] = g.nodes;
    group["schedulableDevices"] = g.schedulable_devices;
    group["taintedDevices"] = g.tainted_devices;
    ordered_json states = EncodeDeviceStates(g.device_states, /*non_zero_only=*/true);
    if (!states.empty()) group["deviceStates"] = std::move(states);
    groups.push_back(std::move(group));
  }
  out["nodeGroups"] = std::move(groups);
  ordered_json templates = ordered_json::object();
  templates["desired"] = status.claim_templates.desired;
  templates["ready"] = status.claim_templates.ready;
  out["claimTemplates"] = std::move(templates);
  if (!status.extended_resource_name.empty()) {
    out["extendedResourceName"] = status.extended_resource_name;
  }
  if (status.schedulable_claims) out["schedulableClaims"] = *status.schedulable_claims;
  ordered_json quotas = ordered_json::object();
  quotas["desired"] = status.quotas.desired;
  quotas["ready"] = status.quotas.ready;
  out["quotas"] = std::move(quotas);
  ordered_json allocation = meta::ObjectWithRoom(7);
  allocation["allocatedDevices"] = status.allocation.allocated_devices;
  allocation["allocatedClaims"] = status.allocation.allocated_claims;
  allocation["freeDevices"] = status.allocation.free_devices;
  if (status.allocation.free_claims) allocation["freeClaims"] = *status.allocation.free_claims;
  allocation["pendingClaims"] = status.allocation.pending_claims;
  if (!status.allocation.oldest_pending_claim_time.empty()) {
    allocation["oldestPendingClaimTime"] = status.allocation.oldest_pending_claim_time;
  }
  allocation["deviceStates"] =
      EncodeDeviceStates(status.allocation.device_states, /*non_zero_only=*/false);
  out["allocation"] = std::move(allocation);
  return out;
}

ordered_json EncodeGpuProfile(const GpuProfile& profile, bool include_server_fields) {
  ordered_json out = meta::ObjectWithRoom(5);
  out["apiVersion"] = kApiVersion;
  out["kind"] = kGpuProfileKind;
  out["metadata"] = meta::EncodeObjectMeta(profile.metadata, include_server_fields);
  out["spec"] = EncodeSpec(profile.spec);
  out["status"] = EncodeGpuProfileStatus(profile.status);
  return out;
}

}  // namespace gpuprofile::api
