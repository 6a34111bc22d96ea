// File: e2e/emulator/dra_admission.cc
#include "e2e/emulator/dra_admission.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/core/names.h"
#include "controller/core/quantity.h"
#include "e2e/emulator/object_store.h"

namespace gpuprofile::e2e {
namespace {

constexpr size_t kMaxSelectors = 32;
constexpr size_t kMaxConfigs = 32;
constexpr size_t kMaxRequests = 32;
constexpr size_t kMaxConstraints = 32;
constexpr size_t kMaxSubRequests = 8;
constexpr size_t kMaxDevicesPerSlice = 128;
// KEP-4815's limits (1.35+): a slice with taints, counter consumptions or list attributes.
constexpr size_t kMaxDevicesPerSliceWithAdvancedFeatures = 64;
constexpr size_t kMaxCounterSets = 8;
constexpr size_t kMaxCountersPerSet = 32;
constexpr size_t kMaxConsumptionsPerDevice = 2;
constexpr size_t kMaxCountersPerConsumption = 32;
constexpr size_t kMaxTaintsPerDevice = 16;
// 1.33/1.34: every counter of every set together.
constexpr size_t kMaxSharedCountersBefore135 = 32;
// 1.36+: list items count one each, a scalar counts one.
constexpr size_t kMaxAttributeValuesPerDevice = 48;
constexpr size_t kMaxAttributeValueLength = 64;
constexpr size_t kMaxAttributesAndCapacities = 32;
constexpr const char* kListKinds[] = {"bools", "ints", "strings", "versions"};
constexpr size_t kMaxExpressionLength = 10 * 1024;
constexpr size_t kMaxParametersSize = 10 * 1024;

nlohmann::json* AdmissionField(nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}
const nlohmann::json* AdmissionField(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

const nlohmann::json* ClaimSpecOf(const ResourceType& type, const nlohmann::json& object) {
  const nlohmann::json* spec = AdmissionField(object, "spec");
  if (!spec) return nullptr;
  return type.resource == "resourceclaimtemplates" ? AdmissionField(*spec, "spec") : spec;
}
nlohmann::json* ClaimSpecOf(const ResourceType& type, nlohmann::json& object) {
  nlohmann::json* spec = AdmissionField(object, "spec");
  if (!spec) return nullptr;
  return type.resource == "resourceclaimtemplates" ? AdmissionField(*spec, "spec") : spec;
}

// Which gated request fields the write loses: a gate's fields go unless the gate is on or the
// stored object already uses them (dropDisabledFields of the claim and template strategies).
struct RequestDrops {
  bool admin_access = false;
  bool tolerations = false;
  bool capacity = false;
};

void DefaultExact(nlohmann::json& request, const RequestDrops& drops) {
  if (!request.is_object()) return;
  const nlohmann::json* mode = AdmissionField(request, "allocationMode");
  if (!mode || (mode->is_string() && mode->get<std::string>().empty())) {
    request["allocationMode"] = "ExactCount";
  }
  if (request["allocationMode"] == "ExactCount") {
    const nlohmann::json* count = AdmissionField(request, "count");
    if (!count || (count->is_number() && count->get<double>() == 0)) request["count"] = 1;
  }
  if (drops.admin_access) request.erase("adminAccess");
  if (drops.tolerations) request.erase("tolerations");
  if (drops.capacity) request.erase("capacity");
  // The generated defaulter of every served version: a toleration's operator is Equal.
  if (nlohmann::json* tolerations = AdmissionField(request, "tolerations");
      tolerations && tolerations->is_array()) {
    for (nlohmann::json& t : *tolerations) {
      if (!t.is_object()) continue;
      const nlohmann::json* op = AdmissionField(t, "operator");
      if (!op || op->is_null() || (op->is_string() && op->get<std::string>().empty())) {
        t["operator"] = "Equal";
      }
    }
  }
}

bool UsesField(const nlohmann::json* old, const std::string& needle) {
  return old && old->dump().find("\"" + needle + "\"") != std::string::npos;
}

// Set: present and not null (a pointer field in the Go types).
bool Present(const nlohmann::json& o, const char* key) {
  const nlohmann::json* f = AdmissionField(o, key);
  return f && !f->is_null();
}
// A list or map field with at least one entry.
bool NonEmpty(const nlohmann::json& o, const char* key) {
  const nlohmann::json* f = AdmissionField(o, key);
  return f && (f->is_array() || f->is_object()) && !f->empty();
}

template <typename Pred>
bool AnyDevice(const nlohmann::json* slice, Pred pred) {
  const nlohmann::json* spec = slice ? AdmissionField(*slice, "spec") : nullptr;
  const nlohmann::json* devices = spec ? AdmissionField(*spec, "devices") : nullptr;
  if (!devices || !devices->is_array()) return false;
  for (const nlohmann::json& d : *devices) {
    if (d.is_object() && pred(d)) return true;
  }
  return false;
}

bool HasListAttribute(const nlohmann::json& device) {
  const nlohmann::json* attributes = AdmissionField(device, "attributes");
  if (!attributes || !attributes->is_object()) return false;
  for (const auto& [key, value] : attributes->items()) {
    for (const char* kind : kListKinds) {
      if (Present(value, kind)) return true;
    }
  }
  return false;
}
bool HasTaints(const nlohmann::json& d) { return NonEmpty(d, "taints"); }
bool ConsumesCounters(const nlohmann::json& d) { return NonEmpty(d, "consumesCounters"); }
bool UsesDeviceNodeSelection(const nlohmann::json& d) {
  return Present(d, "nodeName") || Present(d, "nodeSelector") || Present(d, "allNodes");
}
bool UsesBindingConditions(const nlohmann::json& d) {
  return NonEmpty(d, "bindingConditions") || NonEmpty(d, "bindingFailureConditions") ||
         Present(d, "bindsToNode");
}
bool UsesConsumableCapacity(const nlohmann::json& d) {
  if (Present(d, "allowMultipleAllocations")) return true;
  const nlohmann::json* capacity = AdmissionField(d, "capacity");
  if (!capacity || !capacity->is_object()) return false;
  for (const auto& [key, value] : capacity->items()) {
    if (Present(value, "requestPolicy")) return true;
  }
  return false;
}

// pkg/registry/resource/resourceslice/strategy.go dropDisabledFields: each gate's fields go
// unless the gate is on or the stored object already uses that feature. A list attribute
// whose gate is off loses its value, so validation then rejects the attribute ("exactly one
// value must be specified"), as kube-apiserver does.
void DropDisabledSliceFields(const FeatureGates& gates, nlohmann::json& object,
                             const nlohmann::json* old) {
  nlohmann::json* spec = AdmissionField(object, "spec");
  if (!spec || !spec->is_object()) return;
  const nlohmann::json* old_spec = old ? AdmissionField(*old, "spec") : nullptr;
  const bool drop_taints = !gates.Enabled(kDRADeviceTaints) && !AnyDevice(old, HasTaints);
  const bool drop_partitionable = !gates.Enabled(kDRAPartitionableDevices) &&
                                  !(old_spec && (NonEmpty(*old_spec, "sharedCounters") ||
                                                 Present(*old_spec, "perDeviceNodeSelection"))) &&
                                  !AnyDevice(old, [](const nlohmann::json& d) {
                                    return ConsumesCounters(d) || UsesDeviceNodeSelection(d);
                                  });
  const bool drop_binding = !(gates.Enabled(kDRADeviceBindingConditions) &&
                              gates.Enabled(kDRAResourceClaimDeviceStatus)) &&
                            !AnyDevice(old, UsesBindingConditions);
  const bool drop_consumable =
      !gates.Enabled(kDRAConsumableCapacity) && !AnyDevice(old, UsesConsumableCapacity);
  const bool drop_node_allocatable =
      !gates.Enabled(kDRANodeAllocatableResources) && !AnyDevice(old, [](const nlohmann::json& d) {
        return NonEmpty(d, "nodeAllocatableResources");
      });
  const bool drop_lists =
      !gates.Enabled(kDRAListTypeAttributes) && !AnyDevice(old, HasListAttribute);
  if (drop_partitionable) {
    spec->erase("sharedCounters");
    spec->erase("perDeviceNodeSelection");
  }
  // 1.37 alpha (gate DRAResourcePoolStatus, not among the modelled gates: off, as by default).
  if (!(old_spec && Present(*old_spec, "partitionTypeAttribute"))) {
    spec->erase("partitionTypeAttribute");
  }
  nlohmann::json* devices = AdmissionField(*spec, "devices");
  if (!devices || !devices->is_array()) return;
  for (nlohmann::json& d : *devices) {
    if (!d.is_object()) continue;
    if (drop_taints) d.erase("taints");
    if (drop_partitionable) {
      for (const char* k : {"consumesCounters", "nodeName", "nodeSelector", "allNodes"}) {
        d.erase(k);
      }
    }
    if (drop_binding) {
      for (const char* k : {"bindingConditions", "bindingFailureConditions", "bindsToNode"}) {
        d.erase(k);
      }
    }
    if (drop_consumable) {
      d.erase("allowMultipleAllocations");
      if (nlohmann::json* capacity = AdmissionField(d, "capacity");
          capacity && capacity->is_object()) {
        for (auto& [key, value] : capacity->items()) {
          if (value.is_object()) value.erase("requestPolicy");
        }
      }
    }
    if (drop_node_allocatable) d.erase("nodeAllocatableResources");
    if (drop_lists) {
      if (nlohmann::json* attributes = AdmissionField(d, "attributes");
          attributes && attributes->is_object()) {
        for (auto& [key, value] : attributes->items()) {
          if (!value.is_object()) continue;
          for (const char* kind : kListKinds) value.erase(kind);
        }
      }
    }
  }
}

struct AdmissionValidator {
  const KubeVersion& kube;
  const FeatureGates& gates;
  std::vector<StatusCause> causes;

  void Selectors(const nlohmann::json* selectors, const std::string& path,
                 const nlohmann::json* old_selectors) {
    if (!selectors) return;
    if (!selectors->is_array()) {
      causes.push_back(FieldInvalid(path, *selectors, "must be a list"));
      return;
    }
    if (selectors->size() > kMaxSelectors) {
      causes.push_back(FieldTooMany(path, selectors->size(), kMaxSelectors));
      return;
    }
    // Unchanged selector lists were accepted before (the stored-expression environment);
    // any change re-validates every expression as new.
    bool unchanged = old_selectors && *old_selectors == *selectors;
    for (size_t i = 0; i < selectors->size(); ++i) {
      std::string p = absl::StrCat(path, "[", i, "].cel.expression");
      const nlohmann::json& s = (*selectors)[i];
      const nlohmann::json* cel = AdmissionField(s, "cel");
      const nlohmann::json* expr = cel ? AdmissionField(*cel, "expression") : nullptr;
      if (!expr || !expr->is_string() || expr->get<std::string>().empty()) {
        causes.push_back(FieldRequired(p));
        continue;
      }
      if (unchanged) continue;
      const std::string text = expr->get<std::string>();
      if (text.size() > kMaxExpressionLength) {
        causes.push_back(FieldTooLong(p, kMaxExpressionLength));
        continue;
      }
      auto env =
          cel::Environment::ForDeviceSelectors(kube, cel::ExpressionMode::kNewExpression, gates);
      cel::CompileOptions options;
      options.require_bool_result = true;
      auto program = cel::Compile(text, env, options);
      if (program.ok()) continue;
      switch (program.status().code()) {
        case absl::StatusCode::kInvalidArgument:
          causes.push_back(FieldInvalid(
              p, text, absl::StrCat("compilation failed: ", program.status().message())));
          break;
        case absl::StatusCode::kResourceExhausted:
          causes.push_back(
              FieldForbidden(p, absl::StrCat("too complex, exceeds cost limit (",
                                             std::string(program.status().message()), ")")));
          break;
        default:
          // Unimplemented: the engine cannot tell; kube-apiserver's verdict is unknown, so the
          // emulator accepts (README: "CEL").
          break;
      }
    }
  }

  void Configs(const nlohmann::json* configs, const std::string& path) {
    if (!configs || !configs->is_array()) return;
    if (configs->size() > kMaxConfigs) {
      causes.push_back(FieldTooMany(path, configs->size(), kMaxConfigs));
      return;
    }
    for (size_t i = 0; i < configs->size(); ++i) {
      const nlohmann::json* opaque = AdmissionField((*configs)[i], "opaque");
      std::string p = absl::StrCat(path, "[", i, "].opaque");
      if (!opaque) {
        causes.push_back(FieldRequired(p));
        continue;
      }
      const nlohmann::json* driver = AdmissionField(*opaque, "driver");
      if (!driver || !driver->is_string() || driver->get<std::string>().empty()) {
        causes.push_back(FieldRequired(p + ".driver"));
        // ValidateCSIDriverName: up to 1.35 an empty name also fails the subdomain rule.
        if (kube.minor <= 35) {
          for (const std::string& m : DnsSubdomainErrors("")) {
            causes.push_back(FieldInvalid(p + ".driver", "", m));
          }
        }
      } else if (absl::Status s = IsDraDriverName(driver->get<std::string>()); !s.ok()) {
        causes.push_back(FieldInvalid(p + ".driver", *driver, std::string(s.message())));
      }
      const nlohmann::json* params = AdmissionField(*opaque, "parameters");
      if (!params) {
        causes.push_back(FieldRequired(p + ".parameters"));
      } else if (!params->is_object()) {
        // validateRawExtension: the "parameters " prefix went with 1.35.
        causes.push_back(FieldInvalid(p + ".parameters", "<value omitted>",
                                      kube.minor <= 34 ? "parameters must be a valid JSON object"
                                                       : "must be a valid JSON object"));
      } else if (params->dump().size() > kMaxParametersSize) {
        causes.push_back(FieldTooLong(p + ".parameters", kMaxParametersSize));
      }
    }
  }

  void ExactRequest(const nlohmann::json& r, const std::string& path, const nlohmann::json* old_r) {
    const nlohmann::json* cls = AdmissionField(r, "deviceClassName");
    if (!cls || !cls->is_string() || cls->get<std::string>().empty()) {
      causes.push_back(FieldRequired(path + ".deviceClassName"));
    } else if (absl::Status s = IsDnsSubdomain(cls->get<std::string>()); !s.ok()) {
      causes.push_back(FieldInvalid(path + ".deviceClassName", *cls, std::string(s.message())));
    }
    Selectors(AdmissionField(r, "selectors"), path + ".selectors",
              old_r ? AdmissionField(*old_r, "selectors") : nullptr);
    const nlohmann::json* mode = AdmissionField(r, "allocationMode");
    std::string m = mode && mode->is_string() ? mode->get<std::string>() : "";
    if (m != "ExactCount" && m != "All") {
      causes.push_back(FieldNotSupported(path + ".allocationMode",
                                         mode ? *mode : nlohmann::json(""), {"All", "ExactCount"}));
    }
    const nlohmann::json* count = AdmissionField(r, "count");
    if (m == "ExactCount" && count && (!count->is_number_integer() || count->get<int64_t>() <= 0)) {
      causes.push_back(FieldInvalid(path + ".count", *count, "must be greater than zero"));
    }
    if (m == "All" && count && !(count->is_number() && count->get<double>() == 0)) {
      causes.push_back(FieldInvalid(path + ".count", *count,
                                    "must not be specified when allocationMode is 'All'"));
    }
    const nlohmann::json* tolerations = AdmissionField(r, "tolerations");
    if (tolerations && tolerations->is_array()) {
      for (size_t i = 0; i < tolerations->size(); ++i) {
        Toleration((*tolerations)[i], absl::StrCat(path, ".tolerations[", i, "]"));
      }
    }
  }

  // validateDeviceToleration. No limit on the number of tolerations is enforced (the types
  // document 16; neither the handwritten nor the declarative validation checks it), and
  // tolerationSeconds is not validated. Operator "" does not occur: defaulting set it to Equal.
  void Toleration(const nlohmann::json& t, const std::string& path) {
    auto text = [&](const char* key) {
      const nlohmann::json* f = AdmissionField(t, key);
      return f && f->is_string() ? f->get<std::string>() : std::string();
    };
    const std::string key = text("key");
    if (!key.empty()) {
      for (const std::string& e : QualifiedNameErrors(key)) {
        causes.push_back(FieldInvalid(path + ".key", key, e));
      }
    }
    const std::string op = text("operator");
    const std::string value = text("value");
    if (op == "Exists") {
      if (!value.empty()) {
        causes.push_back(
            FieldInvalid(path + ".value", value, "must be empty for operator `Exists`"));
      }
    } else if (op == "Equal") {
      for (const std::string& e : LabelValueErrors(value)) {
        causes.push_back(FieldInvalid(path + ".value", value, e));
      }
    } else if (op.empty()) {
      causes.push_back(FieldRequired(path + ".operator"));
    } else {
      causes.push_back(FieldNotSupported(path + ".operator", op, {"Equal", "Exists"}));
    }
    const std::string effect = text("effect");
    std::vector<std::string> effects = {"NoExecute", "NoSchedule"};
    if (kube.minor >= 35) effects.push_back("None");  // as for taints
    if (!effect.empty() && std::find(effects.begin(), effects.end(), effect) == effects.end()) {
      causes.push_back(FieldNotSupported(path + ".effect", effect, effects));
    }
  }

  void ClaimSpec(const nlohmann::json* spec, const std::string& path,
                 const nlohmann::json* old_spec) {
    if (!spec) {
      causes.push_back(FieldRequired(path));
      return;
    }
    const nlohmann::json* devices = AdmissionField(*spec, "devices");
    if (!devices) return;
    const nlohmann::json* old_devices = old_spec ? AdmissionField(*old_spec, "devices") : nullptr;
    const nlohmann::json* old_requests =
        old_devices ? AdmissionField(*old_devices, "requests") : nullptr;
    std::string dpath = path + ".devices";
    const nlohmann::json* requests = AdmissionField(*devices, "requests");
    if (requests && requests->is_array()) {
      if (requests->size() > kMaxRequests) {
        causes.push_back(FieldTooMany(dpath + ".requests", requests->size(), kMaxRequests));
      } else {
        std::set<std::string> names;
        for (size_t i = 0; i < requests->size(); ++i) {
          const nlohmann::json& r = (*requests)[i];
          std::string rpath = absl::StrCat(dpath, ".requests[", i, "]");
          const nlohmann::json* old_r =
              old_requests && old_requests->is_array() && i < old_requests->size()
                  ? &(*old_requests)[i]
                  : nullptr;
          // validateRequestName (ValidateDNS1123Label): one cause per message, an empty name
          // included ("Invalid value: \"\": a lowercase RFC 1123 label ...").
          const nlohmann::json* name = AdmissionField(r, "name");
          const std::string name_text =
              name && name->is_string() ? name->get<std::string>() : std::string();
          for (const std::string& e : DnsLabelErrors(name_text)) {
            causes.push_back(FieldInvalid(rpath + ".name", name_text, e));
          }
          const nlohmann::json* exactly = AdmissionField(r, "exactly");
          const nlohmann::json* first = AdmissionField(r, "firstAvailable");
          // An empty list is no list (len(request.FirstAvailable) > 0).
          if (first && (!first->is_array() || first->empty())) first = nullptr;
          bool flat = kube.minor == 32;
          if (exactly && first) {
            causes.push_back(FieldInvalid(rpath, "<value omitted>",
                                          "exactly one of `exactly` or `firstAvailable` is "
                                          "required, but multiple fields are set"));
          } else if (exactly) {
            ExactRequest(*exactly, flat ? rpath : rpath + ".exactly",
                         old_r ? AdmissionField(*old_r, "exactly") : nullptr);
          } else if (first) {
            if (first->size() > kMaxSubRequests) {
              causes.push_back(
                  FieldTooMany(rpath + ".firstAvailable", first->size(), kMaxSubRequests));
            }
            std::set<std::string> sub_names;
            for (size_t j = 0; j < first->size() && first->size() <= kMaxSubRequests; ++j) {
              std::string spath = absl::StrCat(rpath, ".firstAvailable[", j, "]");
              const nlohmann::json* sub_name = AdmissionField((*first)[j], "name");
              const std::string sub_text =
                  sub_name && sub_name->is_string() ? sub_name->get<std::string>() : std::string();
              for (const std::string& e : DnsLabelErrors(sub_text)) {
                causes.push_back(FieldInvalid(spath + ".name", sub_text, e));
              }
              ExactRequest((*first)[j], spath, nullptr);
            }
            // validateSet: duplicates after the items.
            for (size_t j = 0; j < first->size() && first->size() <= kMaxSubRequests; ++j) {
              const nlohmann::json* sub_name = AdmissionField((*first)[j], "name");
              if (!sub_name || !sub_name->is_string()) continue;
              if (!sub_names.insert(sub_name->get<std::string>()).second) {
                causes.push_back(FieldDuplicate(
                    absl::StrCat(rpath, ".firstAvailable[", j, "].name"), *sub_name));
              }
            }
          } else {
            causes.push_back(FieldRequired(
                flat ? rpath + ".deviceClassName" : rpath,
                flat ? "" : "exactly one of `exactly` or `firstAvailable` is required"));
          }
        }
        // validateSet: the duplicates after every item's own errors.
        for (size_t i = 0; i < requests->size(); ++i) {
          const nlohmann::json* name = AdmissionField((*requests)[i], "name");
          if (!name || !name->is_string()) continue;
          if (!names.insert(name->get<std::string>()).second) {
            causes.push_back(FieldDuplicate(absl::StrCat(dpath, ".requests[", i, "].name"), *name));
          }
        }
      }
    }
    const nlohmann::json* constraints = AdmissionField(*devices, "constraints");
    if (constraints && constraints->is_array() && constraints->size() > kMaxConstraints) {
      causes.push_back(FieldTooMany(dpath + ".constraints", constraints->size(), kMaxConstraints));
    }
    Configs(AdmissionField(*devices, "config"), dpath + ".config");
  }

  // One device of a slice (validateDevice).
  // `slice_counter_sets`: the names of the slice's own counter sets (before 1.35 a device
  // consumes counters of its slice only).
  void Device(const nlohmann::json& d, const std::string& p, bool per_device_nodes,
              const std::set<std::string>& slice_counter_sets) {
    const bool kep4815 = kube.minor >= 35;
    const bool lists = kube.minor >= 36;
    size_t n = 0;
    for (const char* k : {"attributes", "capacity"}) {
      const nlohmann::json* m = AdmissionField(d, k);
      if (m && m->is_object()) n += m->size();
    }
    if (n > kMaxAttributesAndCapacities) {
      causes.push_back(FieldInvalid(p, n,
                                    absl::StrCat("the total number of attributes and capacities "
                                                 "must not exceed ",
                                                 kMaxAttributesAndCapacities)));
    }
    const nlohmann::json* attributes = AdmissionField(d, "attributes");
    if (lists && attributes && attributes->is_object()) {
      size_t values = 0;
      for (const auto& [key, value] : attributes->items()) {
        size_t items = 0;
        for (const char* kind : kListKinds) {
          const nlohmann::json* list = AdmissionField(value, kind);
          if (list && list->is_array()) items += list->size();
        }
        values += items == 0 ? 1 : items;
      }
      if (values > kMaxAttributeValuesPerDevice) {
        causes.push_back(FieldInvalid(p, values,
                                      absl::StrCat("the total number of attribute values must "
                                                   "not exceed ",
                                                   kMaxAttributeValuesPerDevice)));
      }
    }
    const bool allow_multiple = Present(d, "allowMultipleAllocations") &&
                                d["allowMultipleAllocations"].is_boolean() &&
                                d["allowMultipleAllocations"].get<bool>();
    for (const char* k : {"attributes", "capacity"}) {
      const nlohmann::json* m = AdmissionField(d, k);
      if (!m || !m->is_object()) continue;
      for (auto& [key, value] : m->items()) {
        std::string fp = absl::StrCat(p, ".", k, "[", key, "]");
        if (absl::Status s = IsDraAttributeName(key); !s.ok()) {
          causes.push_back(FieldInvalid(fp, key, std::string(s.message())));
        }
        if (std::string(k) == "attributes") {
          Attribute(value, fp);
        } else if (!allow_multiple && Present(value, "requestPolicy")) {
          causes.push_back(
              FieldForbidden(fp + ".requestPolicy", "allowMultipleAllocations must be true"));
        }
      }
    }
    const nlohmann::json* taints = AdmissionField(d, "taints");
    if (taints && taints->is_array()) {
      if (kep4815 && taints->size() > kMaxTaintsPerDevice) {
        causes.push_back(FieldTooMany(p + ".taints", taints->size(), kMaxTaintsPerDevice));
      }
      std::vector<std::string> effects = {"NoExecute", "NoSchedule"};
      if (kep4815) effects.push_back("None");  // the None effect is 1.35+
      for (size_t j = 0; j < taints->size(); ++j) {
        std::string tp = absl::StrCat(p, ".taints[", j, "]");
        const nlohmann::json& taint = (*taints)[j];
        const nlohmann::json* effect = AdmissionField(taint, "effect");
        std::string e = effect && effect->is_string() ? effect->get<std::string>() : "";
        if (e.empty()) {
          causes.push_back(FieldRequired(tp + ".effect"));
        } else if (std::find(effects.begin(), effects.end(), e) == effects.end()) {
          causes.push_back(FieldNotSupported(tp + ".effect", e, effects));
        }
        const nlohmann::json* key = AdmissionField(taint, "key");
        if (!key || !key->is_string() || key->get<std::string>().empty()) {
          causes.push_back(FieldInvalid(tp + ".key", "", "name part must be non-empty"));
        }
      }
    }
    const nlohmann::json* consumes = AdmissionField(d, "consumesCounters");
    if (kep4815 && consumes && consumes->is_array()) {
      if (consumes->size() > kMaxConsumptionsPerDevice) {
        causes.push_back(
            FieldTooMany(p + ".consumesCounters", consumes->size(), kMaxConsumptionsPerDevice));
      }
      std::set<std::string> sets;
      for (size_t j = 0; j < consumes->size(); ++j) {
        std::string cp = absl::StrCat(p, ".consumesCounters[", j, "]");
        NamedCounters((*consumes)[j], cp, "counterSet", kMaxCountersPerConsumption, sets);
      }
    } else if (consumes && consumes->is_array()) {
      for (size_t j = 0; j < consumes->size(); ++j) {
        const nlohmann::json* set = AdmissionField((*consumes)[j], "counterSet");
        std::string name = set && set->is_string() ? set->get<std::string>() : "";
        std::string cp = absl::StrCat(p, ".consumesCounters[", j, "].counterSet");
        if (name.empty()) causes.push_back(FieldRequired(cp));
        if (!slice_counter_sets.count(name)) {
          causes.push_back(FieldInvalid(
              cp, name, "must reference a counterSet defined in the ResourceSlice sharedCounters"));
        }
      }
    }
    if (kep4815) {
      if (per_device_nodes) {
        int set = 0;
        for (const char* k : {"nodeName", "nodeSelector", "allNodes"}) set += Present(d, k);
        if (set != 1) {
          std::string detail =
              "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
              "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
          causes.push_back(set == 0 ? FieldRequired(p, detail)
                                    : FieldInvalid(p, "<value omitted>", detail));
        }
      } else if (UsesDeviceNodeSelection(d)) {
        causes.push_back(FieldInvalid(p, nullptr,
                                      "`nodeName`, `nodeSelector` and `allNodes` can only be set "
                                      "if `perDeviceNodeSelection` is set to true in the "
                                      "ResourceSlice spec"));
      }
    }
  }

  // validateDeviceAttribute: exactly one value; lists not empty, strings at most 64 bytes.
  void Attribute(const nlohmann::json& value, const std::string& fp) {
    int kinds = 0;
    for (const char* sk : {"int", "bool", "string", "version"}) {
      if (!Present(value, sk)) continue;
      ++kinds;
      const nlohmann::json& sv = value[sk];
      if ((std::string(sk) == "string" || std::string(sk) == "version") && sv.is_string() &&
          sv.get<std::string>().size() > kMaxAttributeValueLength) {
        causes.push_back(FieldTooLong(absl::StrCat(fp, ".", sk), kMaxAttributeValueLength));
      }
    }
    for (const char* kind : kListKinds) {
      if (!Present(value, kind)) continue;
      ++kinds;
      const nlohmann::json& list = value[kind];
      std::string lp = absl::StrCat(fp, ".", kind);
      if (!list.is_array() || list.empty()) {
        causes.push_back(FieldInvalid(lp, list, "must not be empty if specified"));
        continue;
      }
      if (std::string(kind) != "strings" && std::string(kind) != "versions") continue;
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].is_string() && list[i].get<std::string>().size() > kMaxAttributeValueLength) {
          causes.push_back(FieldTooLong(absl::StrCat(lp, "[", i, "]"), kMaxAttributeValueLength));
        }
      }
    }
    if (kinds == 0) {
      causes.push_back(FieldInvalid(fp, "", "exactly one value must be specified"));
    } else if (kinds > 1) {
      causes.push_back(FieldInvalid(fp, value, "exactly one value must be specified"));
    }
  }

  // A counter set or a counter consumption: its name (key `name_key`) and 1..max counters.
  void NamedCounters(const nlohmann::json& item, const std::string& path, const char* name_key,
                     size_t max_counters, std::set<std::string>& seen) {
    const nlohmann::json* name = AdmissionField(item, name_key);
    std::string np = absl::StrCat(path, ".", name_key);
    if (!name || !name->is_string() || name->get<std::string>().empty()) {
      causes.push_back(FieldRequired(np));
    } else if (absl::Status s = IsDnsLabel(name->get<std::string>()); !s.ok()) {
      causes.push_back(FieldInvalid(np, *name, std::string(s.message())));
    } else if (!seen.insert(name->get<std::string>()).second) {
      causes.push_back(FieldDuplicate(path, *name));
    }
    const nlohmann::json* counters = AdmissionField(item, "counters");
    if (!counters || !counters->is_object() || counters->empty()) {
      causes.push_back(FieldRequired(path + ".counters"));
    } else if (counters->size() > max_counters) {
      causes.push_back(FieldTooMany(path + ".counters", counters->size(), max_counters));
    }
  }

  void CounterSets(const nlohmann::json& sets) {
    if (sets.size() > kMaxCounterSets) {
      causes.push_back(FieldTooMany("spec.sharedCounters", sets.size(), kMaxCounterSets));
    }
    std::set<std::string> names;
    for (size_t i = 0; i < sets.size(); ++i) {
      NamedCounters(sets[i], absl::StrCat("spec.sharedCounters[", i, "]"), "name",
                    kMaxCountersPerSet, names);
    }
  }

  void Slice(const nlohmann::json& object, const nlohmann::json* old) {
    const nlohmann::json* spec = AdmissionField(object, "spec");
    if (!spec) {
      causes.push_back(FieldRequired("spec"));
      return;
    }
    const nlohmann::json* driver = AdmissionField(*spec, "driver");
    if (!driver || !driver->is_string() || driver->get<std::string>().empty()) {
      causes.push_back(FieldRequired("spec.driver"));
    } else if (absl::Status s = IsDraDriverName(driver->get<std::string>()); !s.ok()) {
      causes.push_back(FieldInvalid("spec.driver", *driver, std::string(s.message())));
    }
    const nlohmann::json* pool = AdmissionField(*spec, "pool");
    if (!pool) {
      causes.push_back(FieldRequired("spec.pool"));
    } else {
      const nlohmann::json* name = AdmissionField(*pool, "name");
      if (!name || !name->is_string() || name->get<std::string>().empty()) {
        causes.push_back(FieldRequired("spec.pool.name"));
      }
      const nlohmann::json* count = AdmissionField(*pool, "resourceSliceCount");
      if (!count || !count->is_number_integer() || count->get<int64_t>() <= 0) {
        causes.push_back(FieldInvalid("spec.pool.resourceSliceCount",
                                      count ? *count : nlohmann::json(0),
                                      "must be greater than zero"));
      }
      const nlohmann::json* gen = AdmissionField(*pool, "generation");
      if (gen && (!gen->is_number_integer() || gen->get<int64_t>() < 0)) {
        causes.push_back(
            FieldInvalid("spec.pool.generation", *gen, "must be greater than or equal to 0"));
      }
    }
    int selectors = 0;
    for (const char* k : {"nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection"}) {
      const nlohmann::json* f = AdmissionField(*spec, k);
      if (f && !f->is_null() && !(f->is_boolean() && !f->get<bool>()) &&
          !(f->is_string() && f->get<std::string>().empty())) {
        ++selectors;
      }
    }
    if (selectors != 1) {
      causes.push_back(
          selectors == 0
              ? FieldRequired("spec",
                              "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                              "`perDeviceNodeSelection` is required")
              : FieldInvalid("spec", "<value omitted>",
                             "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                             "`perDeviceNodeSelection` is required, but multiple fields are set"));
    }
    const bool kep4815 = kube.minor >= 35;
    const nlohmann::json* devices = AdmissionField(*spec, "devices");
    const nlohmann::json* counter_sets = AdmissionField(*spec, "sharedCounters");
    if (kep4815 && devices && !devices->is_null() && counter_sets && !counter_sets->is_null()) {
      causes.push_back(
          FieldInvalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"));
    }
    const nlohmann::json* per_device = AdmissionField(*spec, "perDeviceNodeSelection");
    const bool per_device_nodes = per_device && per_device->is_boolean() && per_device->get<bool>();
    std::set<std::string> slice_counter_sets;
    if (counter_sets && counter_sets->is_array()) {
      for (const nlohmann::json& set : *counter_sets) {
        const nlohmann::json* name = AdmissionField(set, "name");
        if (name && name->is_string()) slice_counter_sets.insert(name->get<std::string>());
      }
    }
    if (devices && devices->is_array()) {
      size_t max_devices = kMaxDevicesPerSlice;
      for (const nlohmann::json& d : *devices) {
        if (kep4815 && d.is_object() &&
            (HasTaints(d) || ConsumesCounters(d) || HasListAttribute(d))) {
          max_devices = kMaxDevicesPerSliceWithAdvancedFeatures;
        }
      }
      if (devices->size() > max_devices) {
        causes.push_back(FieldTooMany("spec.devices", devices->size(), max_devices));
      } else {
        std::set<std::string> names;
        for (size_t i = 0; i < devices->size(); ++i) {
          const nlohmann::json& d = (*devices)[i];
          std::string p = absl::StrCat("spec.devices[", i, "]");
          const nlohmann::json* name = AdmissionField(d, "name");
          if (!name || !name->is_string()) {
            causes.push_back(FieldRequired(p + ".name"));
          } else if (absl::Status s = IsDnsLabel(name->get<std::string>()); !s.ok()) {
            causes.push_back(FieldInvalid(p + ".name", *name, std::string(s.message())));
          } else if (!names.insert(name->get<std::string>()).second) {
            causes.push_back(FieldDuplicate(p + ".name", *name));
          }
          Device(d, p, per_device_nodes, slice_counter_sets);
        }
      }
    }
    if (counter_sets && counter_sets->is_array()) {
      if (kep4815) {
        CounterSets(*counter_sets);
      } else {
        size_t total = 0;
        for (const nlohmann::json& set : *counter_sets) {
          const nlohmann::json* counters = AdmissionField(set, "counters");
          if (counters && counters->is_object()) total += counters->size();
        }
        if (total > kMaxSharedCountersBefore135) {
          causes.push_back(
              FieldInvalid("spec.sharedCounters", total,
                           absl::StrCat("the total number of shared counters must not exceed ",
                                        kMaxSharedCountersBefore135)));
        }
      }
    }
    if (old) {
      const nlohmann::json* old_spec = AdmissionField(*old, "spec");
      for (const char* k : {"driver", "nodeName"}) {
        const nlohmann::json* a = AdmissionField(*spec, k);
        const nlohmann::json* b = old_spec ? AdmissionField(*old_spec, k) : nullptr;
        if ((a ? *a : nlohmann::json()) != (b ? *b : nlohmann::json())) {
          causes.push_back(FieldInvalid(absl::StrCat("spec.", k), a ? *a : nlohmann::json(),
                                        "field is immutable"));
        }
      }
      const nlohmann::json* op = old_spec ? AdmissionField(*old_spec, "pool") : nullptr;
      nlohmann::json a =
          pool && AdmissionField(*pool, "name") ? *AdmissionField(*pool, "name") : nlohmann::json();
      nlohmann::json b =
          op && AdmissionField(*op, "name") ? *AdmissionField(*op, "name") : nlohmann::json();
      if (a != b) causes.push_back(FieldInvalid("spec.pool.name", a, "field is immutable"));
    }
  }
};

}  // namespace

std::vector<std::string> UnknownDraFields(const ResourceType& type, const KubeVersion& kube,
                                          const nlohmann::json& wire) {
  std::vector<std::string> out;
  if (type.resource == "deviceclasses") {
    const nlohmann::json* spec = AdmissionField(wire, "spec");
    if (kube.minor < 34 && spec && AdmissionField(*spec, "extendedResourceName")) {
      out.push_back("spec.extendedResourceName");
    }
    return out;
  }
  if (type.resource != "resourceclaimtemplates" && type.resource != "resourceclaims") return out;
  const nlohmann::json* spec = ClaimSpecOf(type, wire);
  const nlohmann::json* devices = spec ? AdmissionField(*spec, "devices") : nullptr;
  const nlohmann::json* requests = devices ? AdmissionField(*devices, "requests") : nullptr;
  if (!requests || !requests->is_array()) return out;
  const std::string prefix = type.resource == "resourceclaimtemplates"
                                 ? "spec.spec.devices.requests"
                                 : "spec.devices.requests";
  // A request's own fields (v1beta1: flat; v1beta2/v1: under `exactly`), or a subrequest's.
  auto request_fields = [&](const nlohmann::json& r, const std::string& path) {
    if (kube.minor < 33 && AdmissionField(r, "tolerations")) out.push_back(path + ".tolerations");
    if (kube.minor < 34 && AdmissionField(r, "capacity")) out.push_back(path + ".capacity");
  };
  for (size_t i = 0; i < requests->size(); ++i) {
    const nlohmann::json& r = (*requests)[i];
    const std::string path = absl::StrCat(prefix, "[", i, "]");
    const nlohmann::json* first = AdmissionField(r, "firstAvailable");
    if (kube.minor < 33 && first) out.push_back(path + ".firstAvailable");
    request_fields(r, path);
    if (const nlohmann::json* exactly = AdmissionField(r, "exactly")) {
      request_fields(*exactly, path + ".exactly");
    }
    if (kube.minor >= 33 && first && first->is_array()) {
      for (size_t j = 0; j < first->size(); ++j) {
        request_fields((*first)[j], absl::StrCat(path, ".firstAvailable[", j, "]"));
      }
    }
  }
  return out;
}

absl::Status CanonicalizeDraQuantities(const ResourceType& type, const KubeVersion& kube,
                                       nlohmann::json& object) {
  if (kube.minor < 34) return absl::OkStatus();  // no capacity field before 1.34
  if (type.resource != "resourceclaimtemplates" && type.resource != "resourceclaims") {
    return absl::OkStatus();
  }
  nlohmann::json* spec = ClaimSpecOf(type, object);
  nlohmann::json* devices = spec ? AdmissionField(*spec, "devices") : nullptr;
  nlohmann::json* requests = devices ? AdmissionField(*devices, "requests") : nullptr;
  if (!requests || !requests->is_array()) return absl::OkStatus();
  auto canonicalize = [](nlohmann::json& request) -> absl::Status {
    nlohmann::json* capacity = AdmissionField(request, "capacity");
    nlohmann::json* amounts = capacity ? AdmissionField(*capacity, "requests") : nullptr;
    if (!amounts || !amounts->is_object()) return absl::OkStatus();
    for (auto& [name, value] : amounts->items()) {
      std::string text = value.is_string()   ? value.get<std::string>()
                         : value.is_number() ? value.dump()
                                             : "";
      absl::StatusOr<Quantity> q = Quantity::Parse(text);
      if (!q.ok()) return q.status();
      value = q->ToString();
    }
    return absl::OkStatus();
  };
  for (nlohmann::json& r : *requests) {
    if (nlohmann::json* exactly = AdmissionField(r, "exactly")) {
      if (absl::Status s = canonicalize(*exactly); !s.ok()) return s;
    }
    if (nlohmann::json* first = AdmissionField(r, "firstAvailable"); first && first->is_array()) {
      for (nlohmann::json& sub : *first) {
        if (absl::Status s = canonicalize(sub); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

void DefaultDra(const ResourceType& type, const FeatureGates& gates, nlohmann::json& object,
                const nlohmann::json* old) {
  if (type.resource == "deviceclasses") {
    nlohmann::json* spec = AdmissionField(object, "spec");
    if (spec && !gates.Enabled(kDRAExtendedResource) && !UsesField(old, "extendedResourceName")) {
      spec->erase("extendedResourceName");
    }
    return;
  }
  if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
    nlohmann::json* spec = ClaimSpecOf(type, object);
    nlohmann::json* devices = spec ? AdmissionField(*spec, "devices") : nullptr;
    nlohmann::json* requests = devices ? AdmissionField(*devices, "requests") : nullptr;
    if (!requests || !requests->is_array()) return;
    RequestDrops drops;
    drops.admin_access = !gates.Enabled(kDRAAdminAccess) && !UsesField(old, "adminAccess");
    drops.tolerations = !gates.Enabled(kDRADeviceTaints) && !UsesField(old, "tolerations");
    drops.capacity = !gates.Enabled(kDRAConsumableCapacity) && !UsesField(old, "capacity");
    RequestDrops sub_drops = drops;
    sub_drops.admin_access = true;  // not a field of a subrequest
    bool drop_first = !gates.Enabled(kDRAPrioritizedList) && !UsesField(old, "firstAvailable");
    for (nlohmann::json& r : *requests) {
      if (!r.is_object()) continue;
      if (drop_first) r.erase("firstAvailable");
      if (nlohmann::json* exactly = AdmissionField(r, "exactly")) DefaultExact(*exactly, drops);
      if (nlohmann::json* first = AdmissionField(r, "firstAvailable"); first && first->is_array()) {
        for (nlohmann::json& sub : *first) DefaultExact(sub, sub_drops);
      }
    }
    return;
  }
  if (type.resource == "resourceslices") DropDisabledSliceFields(gates, object, old);
}

std::vector<StatusCause> ValidateDra(const ResourceType& type, const KubeVersion& kube,
                                     const FeatureGates& gates, const nlohmann::json& object,
                                     const nlohmann::json* old) {
  AdmissionValidator v{kube, gates, {}};
  const std::string name = NameOf(object);
  if (absl::Status s = IsDnsSubdomain(name); !name.empty() && !s.ok()) {
    v.causes.push_back(FieldInvalid("metadata.name", name, std::string(s.message())));
  }
  if (type.resource == "deviceclasses") {
    const nlohmann::json* spec = AdmissionField(object, "spec");
    if (!spec) {
      v.causes.push_back(FieldRequired("spec"));
      return v.causes;
    }
    const nlohmann::json* old_spec = old ? AdmissionField(*old, "spec") : nullptr;
    v.Selectors(AdmissionField(*spec, "selectors"), "spec.selectors",
                old_spec ? AdmissionField(*old_spec, "selectors") : nullptr);
    v.Configs(AdmissionField(*spec, "config"), "spec.config");
    // v1helper.IsExtendedResourceName: outside kubernetes.io, no "requests." prefix, and
    // "requests.<name>" a qualified name.
    const nlohmann::json* ext = AdmissionField(*spec, "extendedResourceName");
    if (ext && ext->is_string()) {
      const std::string n = ext->get<std::string>();
      const bool native =
          n.find('/') == std::string::npos || n.find("kubernetes.io/") != std::string::npos;
      if (native || n.rfind("requests.", 0) == 0 ||
          !QualifiedNameErrors(absl::StrCat("requests.", n)).empty()) {
        v.causes.push_back(
            FieldInvalid("spec.extendedResourceName", n, "must be a valid extended resource name"));
      }
    }
  } else if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
    std::string path = type.resource == "resourceclaimtemplates" ? "spec.spec" : "spec";
    const nlohmann::json* old_claim_spec = old ? ClaimSpecOf(type, *old) : nullptr;
    v.ClaimSpec(ClaimSpecOf(type, object), path, old_claim_spec);
    if (old) {
      const nlohmann::json* a = AdmissionField(object, "spec");
      const nlohmann::json* b = AdmissionField(*old, "spec");
      if ((a ? *a : nlohmann::json()) != (b ? *b : nlohmann::json())) {
        v.causes.push_back(FieldInvalid("spec", a ? *a : nlohmann::json(), "field is immutable"));
      }
    }
  } else if (type.resource == "resourceslices") {
    v.Slice(object, old);
  }
  return v.causes;
}

}  // namespace gpuprofile::e2e
