// File: e2e/emulator/dra_admission.cc
#include "e2e/emulator/dra_admission.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/core/names.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "e2e/emulator/object_store.h"

namespace gpuprofile::e2e {
namespace {

struct GateInfo {
  const char* name;
  int default_on_from;  // first minor where the gate defaults to on; 0 = never in 1.32-1.36
};

constexpr GateInfo kGates[] = {
    {"DynamicResourceAllocation", 32},  // switched on for DRA in every mode the emulator serves
    {"DRAAdminAccess", 34},
    {"DRAResourceClaimDeviceStatus", 33},
    {"DRAPrioritizedList", 34},
    {"DRADeviceTaints", 36},
    {"DRAPartitionableDevices", 36},
    {"DRAExtendedResource", 36},
    {"DRAConsumableCapacity", 36},
    {"DRADeviceBindingConditions", 36},
};

constexpr size_t kMaxSelectors = 32;
constexpr size_t kMaxConfigs = 32;
constexpr size_t kMaxRequests = 32;
constexpr size_t kMaxConstraints = 32;
constexpr size_t kMaxSubRequests = 8;
constexpr size_t kMaxDevicesPerSlice = 128;
constexpr size_t kMaxAttributesAndCapacities = 32;
constexpr size_t kMaxExpressionLength = 10 * 1024;
constexpr size_t kMaxParametersSize = 10 * 1024;

nlohmann::json* Field(nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}
const nlohmann::json* Field(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

const nlohmann::json* ClaimSpecOf(const ResourceType& type, const nlohmann::json& object) {
  const nlohmann::json* spec = Field(object, "spec");
  if (!spec) return nullptr;
  return type.resource == "resourceclaimtemplates" ? Field(*spec, "spec") : spec;
}
nlohmann::json* ClaimSpecOf(const ResourceType& type, nlohmann::json& object) {
  nlohmann::json* spec = Field(object, "spec");
  if (!spec) return nullptr;
  return type.resource == "resourceclaimtemplates" ? Field(*spec, "spec") : spec;
}

void DefaultExact(nlohmann::json& request, const FeatureGates& gates, bool drop_admin) {
  if (!request.is_object()) return;
  const nlohmann::json* mode = Field(request, "allocationMode");
  if (!mode || (mode->is_string() && mode->get<std::string>().empty())) {
    request["allocationMode"] = "ExactCount";
  }
  if (request["allocationMode"] == "ExactCount") {
    const nlohmann::json* count = Field(request, "count");
    if (!count || (count->is_number() && count->get<double>() == 0)) request["count"] = 1;
  }
  if (drop_admin) request.erase("adminAccess");
  if (!gates.Enabled("DRADeviceTaints")) request.erase("tolerations");
  if (!gates.Enabled("DRAConsumableCapacity")) request.erase("capacity");
}

bool UsesField(const nlohmann::json* old, const std::string& needle) {
  return old && old->dump().find("\"" + needle + "\"") != std::string::npos;
}

struct Validator {
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
      const nlohmann::json* cel = Field(s, "cel");
      const nlohmann::json* expr = cel ? Field(*cel, "expression") : nullptr;
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
      auto env = cel::Environment::ForDeviceSelectors(kube, cel::ExpressionMode::kNewExpression,
                                                      gates.Enabled("DRAConsumableCapacity"));
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
      const nlohmann::json* opaque = Field((*configs)[i], "opaque");
      std::string p = absl::StrCat(path, "[", i, "].opaque");
      if (!opaque) {
        causes.push_back(FieldRequired(p));
        continue;
      }
      const nlohmann::json* driver = Field(*opaque, "driver");
      if (!driver || !driver->is_string() || driver->get<std::string>().empty()) {
        causes.push_back(FieldRequired(p + ".driver"));
      } else if (absl::Status s = IsDraDriverName(driver->get<std::string>()); !s.ok()) {
        causes.push_back(FieldInvalid(p + ".driver", *driver, std::string(s.message())));
      }
      const nlohmann::json* params = Field(*opaque, "parameters");
      if (!params) {
        causes.push_back(FieldRequired(p + ".parameters"));
      } else if (!params->is_object()) {
        causes.push_back(FieldInvalid(p + ".parameters", "<value omitted>",
                                      "parameters must be a valid JSON object"));
      } else if (params->dump().size() > kMaxParametersSize) {
        causes.push_back(FieldTooLong(p + ".parameters", kMaxParametersSize));
      }
    }
  }

  void ExactRequest(const nlohmann::json& r, const std::string& path, const nlohmann::json* old_r) {
    const nlohmann::json* cls = Field(r, "deviceClassName");
    if (!cls || !cls->is_string() || cls->get<std::string>().empty()) {
      causes.push_back(FieldRequired(path + ".deviceClassName"));
    } else if (absl::Status s = IsDnsSubdomain(cls->get<std::string>()); !s.ok()) {
      causes.push_back(FieldInvalid(path + ".deviceClassName", *cls, std::string(s.message())));
    }
    Selectors(Field(r, "selectors"), path + ".selectors",
              old_r ? Field(*old_r, "selectors") : nullptr);
    const nlohmann::json* mode = Field(r, "allocationMode");
    std::string m = mode && mode->is_string() ? mode->get<std::string>() : "";
    if (m != "ExactCount" && m != "All") {
      causes.push_back(FieldNotSupported(path + ".allocationMode",
                                         mode ? *mode : nlohmann::json(""), {"All", "ExactCount"}));
    }
    const nlohmann::json* count = Field(r, "count");
    if (m == "ExactCount" && count && (!count->is_number_integer() || count->get<int64_t>() <= 0)) {
      causes.push_back(FieldInvalid(path + ".count", *count, "must be greater than zero"));
    }
    if (m == "All" && count && !(count->is_number() && count->get<double>() == 0)) {
      causes.push_back(FieldInvalid(path + ".count", *count,
                                    "must not be specified when allocationMode is 'All'"));
    }
  }

  void ClaimSpec(const nlohmann::json* spec, const std::string& path,
                 const nlohmann::json* old_spec) {
    if (!spec) {
      causes.push_back(FieldRequired(path));
      return;
    }
    const nlohmann::json* devices = Field(*spec, "devices");
    if (!devices) return;
    const nlohmann::json* old_devices = old_spec ? Field(*old_spec, "devices") : nullptr;
    const nlohmann::json* old_requests = old_devices ? Field(*old_devices, "requests") : nullptr;
    std::string dpath = path + ".devices";
    const nlohmann::json* requests = Field(*devices, "requests");
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
          const nlohmann::json* name = Field(r, "name");
          if (!name || !name->is_string() || name->get<std::string>().empty()) {
            causes.push_back(FieldRequired(rpath + ".name"));
          } else if (absl::Status s = IsDnsLabel(name->get<std::string>()); !s.ok()) {
            causes.push_back(FieldInvalid(rpath + ".name", *name, std::string(s.message())));
          } else if (!names.insert(name->get<std::string>()).second) {
            causes.push_back(FieldDuplicate(rpath + ".name", *name));
          }
          const nlohmann::json* exactly = Field(r, "exactly");
          const nlohmann::json* first = Field(r, "firstAvailable");
          bool flat = kube.minor == 32;
          if (exactly && first) {
            causes.push_back(FieldInvalid(rpath, "<value omitted>",
                                          "exactly one of `exactly` or `firstAvailable` is "
                                          "required, but multiple fields are set"));
          } else if (exactly) {
            ExactRequest(*exactly, flat ? rpath : rpath + ".exactly",
                         old_r ? Field(*old_r, "exactly") : nullptr);
          } else if (first && first->is_array()) {
            if (first->size() > kMaxSubRequests) {
              causes.push_back(
                  FieldTooMany(rpath + ".firstAvailable", first->size(), kMaxSubRequests));
            }
            for (size_t j = 0; j < first->size() && j < kMaxSubRequests; ++j) {
              std::string spath = absl::StrCat(rpath, ".firstAvailable[", j, "]");
              const nlohmann::json* sub_name = Field((*first)[j], "name");
              if (!sub_name || !sub_name->is_string() ||
                  !IsDnsLabel(sub_name->get<std::string>()).ok()) {
                causes.push_back(FieldRequired(spath + ".name"));
              }
              ExactRequest((*first)[j], spath, nullptr);
            }
          } else {
            causes.push_back(FieldRequired(
                flat ? rpath + ".deviceClassName" : rpath,
                flat ? "" : "exactly one of `exactly` or `firstAvailable` is required"));
          }
        }
      }
    }
    const nlohmann::json* constraints = Field(*devices, "constraints");
    if (constraints && constraints->is_array() && constraints->size() > kMaxConstraints) {
      causes.push_back(FieldTooMany(dpath + ".constraints", constraints->size(), kMaxConstraints));
    }
    Configs(Field(*devices, "config"), dpath + ".config");
  }

  void Slice(const nlohmann::json& object, const nlohmann::json* old) {
    const nlohmann::json* spec = Field(object, "spec");
    if (!spec) {
      causes.push_back(FieldRequired("spec"));
      return;
    }
    const nlohmann::json* driver = Field(*spec, "driver");
    if (!driver || !driver->is_string() || driver->get<std::string>().empty()) {
      causes.push_back(FieldRequired("spec.driver"));
    } else if (absl::Status s = IsDraDriverName(driver->get<std::string>()); !s.ok()) {
      causes.push_back(FieldInvalid("spec.driver", *driver, std::string(s.message())));
    }
    const nlohmann::json* pool = Field(*spec, "pool");
    if (!pool) {
      causes.push_back(FieldRequired("spec.pool"));
    } else {
      const nlohmann::json* name = Field(*pool, "name");
      if (!name || !name->is_string() || name->get<std::string>().empty()) {
        causes.push_back(FieldRequired("spec.pool.name"));
      }
      const nlohmann::json* count = Field(*pool, "resourceSliceCount");
      if (!count || !count->is_number_integer() || count->get<int64_t>() <= 0) {
        causes.push_back(FieldInvalid("spec.pool.resourceSliceCount",
                                      count ? *count : nlohmann::json(0),
                                      "must be greater than zero"));
      }
      const nlohmann::json* gen = Field(*pool, "generation");
      if (gen && (!gen->is_number_integer() || gen->get<int64_t>() < 0)) {
        causes.push_back(
            FieldInvalid("spec.pool.generation", *gen, "must be greater than or equal to 0"));
      }
    }
    int selectors = 0;
    for (const char* k : {"nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection"}) {
      const nlohmann::json* f = Field(*spec, k);
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
    const nlohmann::json* devices = Field(*spec, "devices");
    if (devices && devices->is_array()) {
      if (devices->size() > kMaxDevicesPerSlice) {
        causes.push_back(FieldTooMany("spec.devices", devices->size(), kMaxDevicesPerSlice));
      } else {
        std::set<std::string> names;
        for (size_t i = 0; i < devices->size(); ++i) {
          const nlohmann::json& d = (*devices)[i];
          std::string p = absl::StrCat("spec.devices[", i, "]");
          const nlohmann::json* name = Field(d, "name");
          if (!name || !name->is_string()) {
            causes.push_back(FieldRequired(p + ".name"));
          } else if (absl::Status s = IsDnsLabel(name->get<std::string>()); !s.ok()) {
            causes.push_back(FieldInvalid(p + ".name", *name, std::string(s.message())));
          } else if (!names.insert(name->get<std::string>()).second) {
            causes.push_back(FieldDuplicate(p + ".name", *name));
          }
          size_t n = 0;
          for (const char* k : {"attributes", "capacity"}) {
            const nlohmann::json* m = Field(d, k);
            if (!m || !m->is_object()) continue;
            n += m->size();
            for (auto& [key, value] : m->items()) {
              std::string fp = absl::StrCat(p, ".", k, "[", key, "]");
              if (absl::Status s = IsDraAttributeName(key); !s.ok()) {
                causes.push_back(FieldInvalid(fp, key, std::string(s.message())));
              }
              if (std::string(k) == "attributes") {
                for (const char* sk : {"string", "version"}) {
                  const nlohmann::json* sv = Field(value, sk);
                  if (sv && sv->is_string() && sv->get<std::string>().size() > 64) {
                    causes.push_back(FieldTooLong(absl::StrCat(fp, ".", sk), 64));
                  }
                }
              }
            }
          }
          if (n > kMaxAttributesAndCapacities) {
            causes.push_back(FieldTooMany(p, n, kMaxAttributesAndCapacities));
          }
        }
      }
    }
    if (old) {
      const nlohmann::json* old_spec = Field(*old, "spec");
      for (const char* k : {"driver", "nodeName"}) {
        const nlohmann::json* a = Field(*spec, k);
        const nlohmann::json* b = old_spec ? Field(*old_spec, k) : nullptr;
        if ((a ? *a : nlohmann::json()) != (b ? *b : nlohmann::json())) {
          causes.push_back(FieldInvalid(absl::StrCat("spec.", k), a ? *a : nlohmann::json(),
                                        "field is immutable"));
        }
      }
      const nlohmann::json* op = old_spec ? Field(*old_spec, "pool") : nullptr;
      nlohmann::json a = pool && Field(*pool, "name") ? *Field(*pool, "name") : nlohmann::json();
      nlohmann::json b = op && Field(*op, "name") ? *Field(*op, "name") : nlohmann::json();
      if (a != b) causes.push_back(FieldInvalid("spec.pool.name", a, "field is immutable"));
    }
  }
};

}  // namespace

bool FeatureGates::Enabled(const std::string& gate) const {
  auto it = overrides_.find(gate);
  if (it != overrides_.end()) return it->second;
  for (const GateInfo& g : kGates) {
    if (gate == g.name) return g.default_on_from != 0 && kube_.minor >= g.default_on_from;
  }
  return false;
}

std::string FeatureGates::UnknownGates() const {
  std::string out;
  for (const auto& [name, value] : overrides_) {
    bool known = false;
    for (const GateInfo& g : kGates) known = known || name == g.name;
    if (!known) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

void DefaultDra(const ResourceType& type, const FeatureGates& gates, nlohmann::json& object,
                const nlohmann::json* old) {
  if (type.resource == "deviceclasses") {
    nlohmann::json* spec = Field(object, "spec");
    if (spec && !gates.Enabled("DRAExtendedResource") && !UsesField(old, "extendedResourceName")) {
      spec->erase("extendedResourceName");
    }
    return;
  }
  if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
    nlohmann::json* spec = ClaimSpecOf(type, object);
    nlohmann::json* devices = spec ? Field(*spec, "devices") : nullptr;
    nlohmann::json* requests = devices ? Field(*devices, "requests") : nullptr;
    if (!requests || !requests->is_array()) return;
    bool drop_admin = !gates.Enabled("DRAAdminAccess") && !UsesField(old, "adminAccess");
    bool drop_first = !gates.Enabled("DRAPrioritizedList") && !UsesField(old, "firstAvailable");
    for (nlohmann::json& r : *requests) {
      if (!r.is_object()) continue;
      if (drop_first) r.erase("firstAvailable");
      if (nlohmann::json* exactly = Field(r, "exactly")) {
        DefaultExact(*exactly, gates, drop_admin);
      }
      if (nlohmann::json* first = Field(r, "firstAvailable"); first && first->is_array()) {
        for (nlohmann::json& sub : *first) DefaultExact(sub, gates, true);
      }
    }
    return;
  }
  if (type.resource == "resourceslices") {
    nlohmann::json* spec = Field(object, "spec");
    if (!spec) return;
    if (!gates.Enabled("DRAPartitionableDevices") && !UsesField(old, "sharedCounters")) {
      spec->erase("sharedCounters");
      spec->erase("perDeviceNodeSelection");
    }
    nlohmann::json* devices = Field(*spec, "devices");
    if (!devices || !devices->is_array()) return;
    for (nlohmann::json& d : *devices) {
      if (!d.is_object()) continue;
      if (!gates.Enabled("DRADeviceTaints")) d.erase("taints");
      if (!gates.Enabled("DRAPartitionableDevices")) {
        for (const char* k : {"consumesCounters", "nodeName", "nodeSelector", "allNodes"}) {
          d.erase(k);
        }
      }
    }
  }
}

std::vector<StatusCause> ValidateDra(const ResourceType& type, const KubeVersion& kube,
                                     const FeatureGates& gates, const nlohmann::json& object,
                                     const nlohmann::json* old) {
  Validator v{kube, gates, {}};
  const std::string name = NameOf(object);
  if (absl::Status s = IsDnsSubdomain(name); !name.empty() && !s.ok()) {
    v.causes.push_back(FieldInvalid("metadata.name", name, std::string(s.message())));
  }
  if (type.resource == "deviceclasses") {
    const nlohmann::json* spec = Field(object, "spec");
    if (!spec) {
      v.causes.push_back(FieldRequired("spec"));
      return v.causes;
    }
    const nlohmann::json* old_spec = old ? Field(*old, "spec") : nullptr;
    v.Selectors(Field(*spec, "selectors"), "spec.selectors",
                old_spec ? Field(*old_spec, "selectors") : nullptr);
    v.Configs(Field(*spec, "config"), "spec.config");
  } else if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
    std::string path = type.resource == "resourceclaimtemplates" ? "spec.spec" : "spec";
    const nlohmann::json* old_claim_spec = old ? ClaimSpecOf(type, *old) : nullptr;
    v.ClaimSpec(ClaimSpecOf(type, object), path, old_claim_spec);
    if (old) {
      const nlohmann::json* a = Field(object, "spec");
      const nlohmann::json* b = Field(*old, "spec");
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
