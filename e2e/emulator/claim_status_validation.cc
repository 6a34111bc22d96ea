// File: e2e/emulator/claim_status_validation.cc
#include "e2e/emulator/claim_status_validation.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "e2e/emulator/server_util.h"

namespace gpuprofile::e2e {
namespace {

using nlohmann::json;

// pkg/apis/resource/types.go.
constexpr size_t kMaxReservedFor132 = 32;         // ResourceClaimReservedForMaxSize, 1.32
constexpr size_t kMaxReservedFor = 256;           // 1.33+
constexpr size_t kMaxResults = 32;                // AllocationResultsMaxSize
constexpr size_t kMaxAllocationConfigs = 2 * 32;  // 2 * DeviceConfigMaxSize (class + claim)
constexpr size_t kMaxConfigRequests = 32;         // DeviceRequestsMaxSize
constexpr size_t kMaxOpaqueParameters = 10 * 1024;
constexpr size_t kMaxBindingConditions = 4;
constexpr size_t kMaxBindingFailureConditions = 4;
constexpr size_t kMaxDeviceConditions = 8;  // AllocatedDeviceStatusMaxConditions
constexpr size_t kMaxDeviceData = 10 * 1024;
constexpr size_t kMaxIps = 16;
constexpr size_t kMaxInterfaceName = 256;
constexpr size_t kMaxHardwareAddress = 128;
constexpr size_t kMaxPoolName = 253;
constexpr size_t kMaxDriverName = 63;
// metav1validation.ValidateCondition.
constexpr size_t kMaxConditionReason = 1024;
constexpr size_t kMaxConditionMessage = 32 * 1024;

const json* StatusField(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}
json* StatusField(json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}
std::string StatusText(const json& o, const char* key) {
  const json* f = StatusField(o, key);
  return f && f->is_string() ? f->get<std::string>() : std::string();
}
// A list field: empty when absent, null or not a list.
const json& StatusList(const json& o, const char* key) {
  static const json kEmpty = json::array();
  const json* f = StatusField(o, key);
  return f && f->is_array() ? *f : kEmpty;
}
const json* Allocation(const json& claim) {
  const json* status = StatusField(claim, "status");
  return status ? StatusField(*status, "allocation") : nullptr;
}
const json& Results(const json* allocation) {
  static const json kEmpty = json::array();
  const json* devices = allocation ? StatusField(*allocation, "devices") : nullptr;
  return devices ? StatusList(*devices, "results") : kEmpty;
}

// structured.SharedDeviceID's String(): driver/pool/device[/shareID].
std::string DeviceId(const json& d, bool with_share) {
  std::string id = absl::StrCat(StatusText(d, "driver"), "/", StatusText(d, "pool"), "/",
                                StatusText(d, "device"));
  if (with_share && StatusField(d, "shareID")) absl::StrAppend(&id, "/", StatusText(d, "shareID"));
  return id;
}

// Causes whose value field.Error prints with fmt.Stringer (unquoted), as a DeviceID.
StatusCause InvalidText(const std::string& field, const std::string& value,
                        const std::string& detail) {
  return {"FieldValueInvalid", absl::StrCat("Invalid value: ", value, ": ", detail), field};
}
StatusCause DuplicateText(const std::string& field, const std::string& value) {
  return {"FieldValueDuplicate", absl::StrCat("Duplicate value: ", value), field};
}

// Which rules of validation.go the release has (see e2e/README.md for the sources).
struct Rules {
  int minor;
  // 1.32-1.34: validateSet reports a duplicate at the key's field (`reservedFor[1].uid`) and a
  // list over its limit after its items' errors; 1.35+ (declarative validation, #134333) at the
  // item (`reservedFor[1]`), and the limit alone.
  bool legacy_sets() const { return minor <= 34; }
  // 1.33+: requests with subrequests ("req/sub").
  bool subrequests() const { return minor >= 33; }
  size_t max_reserved_for() const { return minor == 32 ? kMaxReservedFor132 : kMaxReservedFor; }
  bool binding_conditions() const { return minor >= 34; }
  bool share_ids() const { return minor >= 34; }
  bool validates_share_id() const { return minor >= 35; }  // validateUID, #134391
  // The raw-extension message lost its "parameters " prefix with 1.35.
  const char* json_object_message() const {
    return minor <= 34 ? "parameters must be a valid JSON object" : "must be a valid JSON object";
  }
  // ValidateCSIDriverName: an empty name also failed the DNS subdomain rule up to 1.35.
  bool empty_driver_also_invalid() const { return minor <= 35; }
  // A result's tolerations are validated in the 1.37 sources (not in those of 1.35).
  bool validates_result_tolerations() const { return minor >= 37; }
};

// One request (or `request/subrequest`) the claim's spec names.
using RequestNames = std::map<std::string, std::set<std::string>>;

RequestNames GatherRequestNames(const json& claim) {
  RequestNames names;
  const json* spec = StatusField(claim, "spec");
  const json* devices = spec ? StatusField(*spec, "devices") : nullptr;
  if (!devices) return names;
  for (const json& r : StatusList(*devices, "requests")) {
    std::set<std::string>& subs = names[StatusText(r, "name")];
    for (const json& s : StatusList(r, "firstAvailable")) subs.insert(StatusText(s, "name"));
  }
  return names;
}

class StatusValidator {
 public:
  StatusValidator(Rules rules, RequestNames names) : rules_(rules), names_(std::move(names)) {}

  std::vector<StatusCause> Take() { return std::move(causes_); }

  // validateResourceClaimStatusUpdate.
  void Status(const json& claim, const json& old) {
    static const json kNone = json::object();
    const json* status = StatusField(claim, "status");
    const json& s = status ? *status : kNone;
    const json* old_status = StatusField(old, "status");
    const json& os = old_status ? *old_status : kNone;
    const json& reserved = StatusList(s, "reservedFor");
    const json* allocation = StatusField(s, "allocation");
    const json* old_allocation = StatusField(os, "allocation");

    Set(
        reserved, rules_.max_reserved_for(), "status.reservedFor",
        [&](const json& ref, const std::string& p) { UserReference(ref, p); },
        [](const json& ref) { return json(StatusText(ref, "uid")); }, "uid", false);

    std::set<std::string> allocated;
    for (const json& r : Results(allocation)) allocated.insert(DeviceId(r, rules_.share_ids()));
    Set(
        StatusList(s, "devices"), -1, "status.devices",
        [&](const json& d, const std::string& p) { DeviceStatus(d, p, allocated); },
        [&](const json& d) { return json(DeviceId(d, rules_.share_ids())); }, "deviceID", true);

    if (!reserved.empty()) {
      if (!allocation) {
        causes_.push_back(FieldForbidden("status.reservedFor",
                                         "may not be specified when `allocated` is not set"));
      } else if (StatusField(old, "metadata") &&
                 StatusField(old["metadata"], "deletionTimestamp")) {
        // Entries may be removed while the claim is being deleted, not added.
        std::set<std::string> before;
        for (const json& ref : StatusList(os, "reservedFor")) before.insert(ref.dump());
        for (const json& ref : reserved) {
          if (!before.count(ref.dump())) {
            causes_.push_back(FieldForbidden("status.reservedFor",
                                             "new entries may not be added while "
                                             "`deallocationRequested` or `deletionTimestamp` "
                                             "are set"));
            break;
          }
        }
      }
    }

    if (old_allocation && allocation) {
      if (Semantic(*allocation) != Semantic(*old_allocation)) {
        causes_.push_back(FieldInvalid("status.allocation", *allocation, "field is immutable"));
      }
    } else if (allocation) {
      AllocationResult(*allocation, "status.allocation");
    }
  }

 private:
  // apiequality.Semantic.DeepEqual treats null and empty lists and maps alike.
  static json Semantic(const json& value) {
    if (value.is_object()) {
      json out = json::object();
      for (const auto& [k, v] : value.items()) {
        if (v.is_null() || ((v.is_array() || v.is_object()) && v.empty())) continue;
        out[k] = Semantic(v);
      }
      return out;
    }
    if (value.is_array()) {
      json out = json::array();
      for (const json& v : value) out.push_back(Semantic(v));
      return out;
    }
    return value;
  }

  // validateSlice and validateSet: each item, then the size limit (1.32-1.34; 1.35+ reports only
  // the limit), then duplicates (when `key` is set).
  template <typename ItemFn, typename KeyFn>
  void Set(const json& list, long max, const std::string& path, ItemFn item, KeyFn key,
           const char* key_field, bool key_unquoted) {
    const bool too_many = max >= 0 && list.size() > static_cast<size_t>(max);
    if (too_many && !rules_.legacy_sets()) {
      causes_.push_back(FieldTooMany(path, list.size(), static_cast<size_t>(max)));
      return;
    }
    for (size_t i = 0; i < list.size(); ++i) item(list[i], absl::StrCat(path, "[", i, "]"));
    if (too_many) causes_.push_back(FieldTooMany(path, list.size(), static_cast<size_t>(max)));
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      json k = key(list[i]);
      if (k.is_null()) continue;  // not a set
      if (seen.insert(k.dump()).second) continue;
      std::string p = absl::StrCat(path, "[", i, "]");
      if (rules_.legacy_sets() && key_field && *key_field) absl::StrAppend(&p, ".", key_field);
      causes_.push_back(key_unquoted && k.is_string() ? DuplicateText(p, k.get<std::string>())
                                                      : FieldDuplicate(p, k));
    }
  }
  template <typename ItemFn>
  void Slice(const json& list, long max, const std::string& path, ItemFn item) {
    Set(
        list, max, path, item, [](const json&) { return json(); }, "", false);
  }

  void UserReference(const json& ref, const std::string& p) {
    for (const char* k : {"resource", "name", "uid"}) {
      if (StatusText(ref, k).empty()) causes_.push_back(FieldRequired(absl::StrCat(p, ".", k)));
    }
  }

  // corevalidation.ValidateCSIDriverName.
  void DriverName(const std::string& name, const std::string& p) {
    if (name.empty()) {
      causes_.push_back(FieldRequired(p));
      if (!rules_.empty_driver_also_invalid()) return;
    }
    if (name.size() > kMaxDriverName) causes_.push_back(FieldTooLong(p, kMaxDriverName));
    for (const std::string& m : DnsSubdomainErrors(absl::AsciiStrToLower(name))) {
      causes_.push_back(FieldInvalid(p, name, m));
    }
  }

  // validatePoolName: one or more DNS subdomains separated by slashes.
  void PoolName(const std::string& name, const std::string& p) {
    if (name.empty()) {
      causes_.push_back(FieldRequired(p));
      return;
    }
    if (name.size() > kMaxPoolName) causes_.push_back(FieldTooLong(p, kMaxPoolName));
    for (absl::string_view part : absl::StrSplit(name, '/')) {
      for (const std::string& m : DnsSubdomainErrors(part)) {
        causes_.push_back(FieldInvalid(p, std::string(part), m));
      }
    }
  }

  void DnsLabel(const std::string& name, const std::string& p) {
    for (const std::string& m : DnsLabelErrors(name)) causes_.push_back(FieldInvalid(p, name, m));
  }

  // validateRequestNameRef.
  void RequestRef(const std::string& name, const std::string& p) {
    if (!rules_.subrequests()) {
      DnsLabel(name, p);
      if (!names_.count(name)) {
        causes_.push_back(FieldInvalid(p, name, "must be the name of a request in the claim"));
      }
      return;
    }
    static const char kDetail[] =
        "must be the name of a request in the claim or the name of a request and a subrequest "
        "separated by '/'";
    std::vector<std::string> segments = absl::StrSplit(name, '/');
    if (segments.size() > 2) {
      causes_.push_back(FieldInvalid(p, name, kDetail));
      return;
    }
    for (const std::string& s : segments) DnsLabel(s, p);
    auto it = names_.find(segments[0]);
    bool found = it != names_.end() && (segments.size() == 1 || it->second.count(segments[1]));
    if (!found) causes_.push_back(FieldInvalid(p, name, kDetail));
  }

  // validateUID (1.35+).
  void Uid(const std::string& uid, const std::string& p) {
    auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    std::string error;
    std::string body = uid;
    if (uid.size() == 45) {
      if (!absl::EqualsIgnoreCase(uid.substr(0, 9), "urn:uuid:")) {
        error = absl::StrCat("invalid urn prefix: \"", uid.substr(0, 9), "\"");
      }
      body = uid.substr(9);
    } else if (uid.size() == 38) {
      body = uid.substr(1, 36);
    } else if (uid.size() == 32) {
      if (!std::all_of(uid.begin(), uid.end(), hex)) error = "invalid UUID format";
      body.clear();
    } else if (uid.size() != 36) {
      error = absl::StrCat("invalid UUID length: ", uid.size());
      body.clear();
    }
    if (error.empty() && body.size() == 36) {
      for (size_t i = 0; i < body.size(); ++i) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? body[i] != '-' : !hex(body[i])) {
          error = "invalid UUID format";
          break;
        }
      }
    }
    if (!error.empty()) {
      causes_.push_back(FieldInvalid(p, uid, absl::StrCat("error validating uid: ", error)));
    } else if (uid.size() != 36 || uid != absl::AsciiStrToLower(uid)) {
      causes_.push_back(FieldInvalid(p, uid,
                                     "uid must be in RFC 4122 normalized form, "
                                     "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                                     "hexadecimal characters"));
    }
  }

  // validateRawExtension of a new value.
  void RawObject(const json* value, const std::string& p, size_t max) {
    if (!value) {
      causes_.push_back(FieldRequired(p));
    } else if (value->dump().size() > max) {
      causes_.push_back(FieldTooLong(p, max));
    } else if (!value->is_object()) {
      causes_.push_back(FieldInvalid(p, "<value omitted>", rules_.json_object_message()));
    }
  }

  // validateAllocationResult.
  void AllocationResult(const json& allocation, const std::string& path) {
    const json* devices = StatusField(allocation, "devices");
    static const json kNone = json::object();
    const json& d = devices ? *devices : kNone;
    const std::string dp = path + ".devices";
    Slice(StatusList(d, "results"), kMaxResults, dp + ".results",
          [&](const json& r, const std::string& p) { RequestResult(r, p); });
    Slice(StatusList(d, "config"), kMaxAllocationConfigs, dp + ".config",
          [&](const json& c, const std::string& p) { AllocationConfig(c, p); });
    if (const json* selector = StatusField(allocation, "nodeSelector")) {
      NodeSelector(*selector, path + ".nodeSelector");
    }
  }

  // validateDeviceRequestAllocationResult.
  void RequestResult(const json& r, const std::string& p) {
    RequestRef(StatusText(r, "request"), p + ".request");
    DriverName(StatusText(r, "driver"), p + ".driver");
    PoolName(StatusText(r, "pool"), p + ".pool");
    DnsLabel(StatusText(r, "device"), p + ".device");
    if (rules_.binding_conditions()) BindingConditions(r, p);
    const json& tolerations = StatusList(r, "tolerations");
    for (size_t i = 0; rules_.validates_result_tolerations() && i < tolerations.size(); ++i) {
      Toleration(tolerations[i], absl::StrCat(p, ".tolerations[", i, "]"));
    }
    if (rules_.validates_share_id() && StatusField(r, "shareID")) {
      Uid(StatusText(r, "shareID"), p + ".shareID");
    }
  }

  // validateDeviceToleration (1.37: effects NoExecute, NoSchedule, None).
  void Toleration(const json& t, const std::string& p) {
    const std::string key = StatusText(t, "key");
    if (!key.empty()) {
      for (const std::string& m : QualifiedNameErrors(key)) {
        causes_.push_back(FieldInvalid(p + ".key", key, m));
      }
    }
    const std::string op = StatusText(t, "operator");
    const std::string value = StatusText(t, "value");
    if (op == "Exists") {
      if (!value.empty()) {
        causes_.push_back(FieldInvalid(p + ".value", value, "must be empty for operator `Exists`"));
      }
    } else if (op == "Equal") {
      for (const std::string& m : LabelValueErrors(value)) {
        causes_.push_back(FieldInvalid(p + ".value", value, m));
      }
    } else if (op.empty()) {
      causes_.push_back(FieldRequired(p + ".operator"));
    } else {
      causes_.push_back(FieldNotSupported(p + ".operator", op, {"Equal", "Exists"}));
    }
    const std::string effect = StatusText(t, "effect");
    if (!effect.empty() && effect != "NoExecute" && effect != "NoSchedule" && effect != "None") {
      causes_.push_back(
          FieldNotSupported(p + ".effect", effect, {"NoExecute", "NoSchedule", "None"}));
    }
  }

  // validateDeviceBindingParameters.
  void BindingConditions(const json& r, const std::string& p) {
    const json& conditions = StatusList(r, "bindingConditions");
    const json& failures = StatusList(r, "bindingFailureConditions");
    auto label_names = [&](const json& list, size_t max, const std::string& lp) {
      Slice(list, static_cast<long>(max), lp, [&](const json& v, const std::string& ip) {
        std::string name = v.is_string() ? v.get<std::string>() : "";
        for (const std::string& m : QualifiedNameErrors(name)) {
          causes_.push_back(FieldInvalid(ip, name, m));
        }
      });
    };
    label_names(conditions, kMaxBindingConditions, p + ".bindingConditions");
    label_names(failures, kMaxBindingFailureConditions, p + ".bindingFailureConditions");
    std::set<std::string> seen;
    for (size_t i = 0; i < conditions.size(); ++i) {
      if (!seen.insert(conditions[i].dump()).second) {
        causes_.push_back(
            FieldDuplicate(absl::StrCat(p, ".bindingConditions[", i, "]"), conditions[i]));
      }
    }
    std::set<std::string> seen_failures;
    for (size_t i = 0; i < failures.size(); ++i) {
      const std::string fp = absl::StrCat(p, ".bindingFailureConditions[", i, "]");
      if (!seen_failures.insert(failures[i].dump()).second) {
        causes_.push_back(FieldDuplicate(fp, failures[i]));
      }
      if (seen.count(failures[i].dump())) {
        causes_.push_back(FieldInvalid(fp, failures[i],
                                       "bindingFailureConditions must not overlap with "
                                       "bindingConditions"));
      }
    }
    // field.Invalid prints the empty []string with %#v.
    if (conditions.empty() && !failures.empty()) {
      causes_.push_back(
          InvalidText(p + ".bindingConditions",
                      StatusField(r, "bindingConditions") ? "[]string{}" : "[]string(nil)",
                      "bindingConditions are required to use "
                      "bindingFailureConditions"));
    }
    if (failures.empty() && !conditions.empty()) {
      causes_.push_back(
          InvalidText(p + ".bindingFailureConditions",
                      StatusField(r, "bindingFailureConditions") ? "[]string{}" : "[]string(nil)",
                      "bindingFailureConditions are required to use "
                      "bindingConditions"));
    }
  }

  // validateDeviceAllocationConfiguration.
  void AllocationConfig(const json& c, const std::string& p) {
    const std::string source = StatusText(c, "source");
    if (source.empty()) {
      causes_.push_back(FieldRequired(p + ".source"));
    } else if (source != "FromClaim" && source != "FromClass") {
      causes_.push_back(FieldNotSupported(p + ".source", source, {"FromClaim", "FromClass"}));
    }
    Set(
        StatusList(c, "requests"), kMaxConfigRequests, p + ".requests",
        [&](const json& name, const std::string& ip) {
          RequestRef(name.is_string() ? name.get<std::string>() : "", ip);
        },
        [](const json& name) { return name; }, "", false);
    const json* opaque = StatusField(c, "opaque");
    if (!opaque) {
      causes_.push_back(FieldRequired(p + ".opaque"));
      return;
    }
    DriverName(StatusText(*opaque, "driver"), p + ".opaque.driver");
    RawObject(StatusField(*opaque, "parameters"), p + ".opaque.parameters", kMaxOpaqueParameters);
  }

  // corevalidation.ValidateNodeSelector (allowInvalidLabelValueInRequiredNodeAffinity false).
  void NodeSelector(const json& selector, const std::string& path) {
    const std::string tp = path + ".nodeSelectorTerms";
    const json& terms = StatusList(selector, "nodeSelectorTerms");
    if (terms.empty()) {
      causes_.push_back(FieldRequired(tp, "must have at least one node selector term"));
      return;
    }
    for (size_t i = 0; i < terms.size(); ++i) {
      const std::string p = absl::StrCat(tp, "[", i, "]");
      const json& expressions = StatusList(terms[i], "matchExpressions");
      for (size_t j = 0; j < expressions.size(); ++j) {
        LabelRequirement(expressions[j], absl::StrCat(p, ".matchExpressions[", j, "]"));
      }
      const json& fields = StatusList(terms[i], "matchFields");
      for (size_t j = 0; j < fields.size(); ++j) {
        FieldRequirement(fields[j], absl::StrCat(p, ".matchFields[", j, "]"));
      }
    }
  }

  // ValidateNodeSelectorRequirement.
  void LabelRequirement(const json& rq, const std::string& p) {
    const std::string op = StatusText(rq, "operator");
    const json& values = StatusList(rq, "values");
    if (op == "In" || op == "NotIn") {
      if (values.empty()) {
        causes_.push_back(
            FieldRequired(p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty()) {
        causes_.push_back(FieldForbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else if (op == "Gt" || op == "Lt") {
      if (values.size() != 1) {
        causes_.push_back(FieldRequired(
            p + ".values", "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
    } else {
      causes_.push_back(FieldInvalid(p + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = StatusText(rq, "key");
    for (const std::string& m : QualifiedNameErrors(key)) {
      causes_.push_back(FieldInvalid(p + ".key", key, m));
    }
    for (size_t k = 0; k < values.size(); ++k) {
      std::string v = values[k].is_string() ? values[k].get<std::string>() : "";
      for (const std::string& m : LabelValueErrors(v)) {
        causes_.push_back(FieldInvalid(absl::StrCat(p, ".values[", k, "]"), v, m));
      }
    }
  }

  // ValidateNodeFieldSelectorRequirement: only metadata.name, with In or NotIn and one value.
  void FieldRequirement(const json& rq, const std::string& p) {
    const std::string op = StatusText(rq, "operator");
    const json& values = StatusList(rq, "values");
    if (op == "In" || op == "NotIn") {
      if (values.size() != 1) {
        causes_.push_back(FieldRequired(
            p + ".values",
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
      }
    } else {
      causes_.push_back(FieldInvalid(p + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = StatusText(rq, "key");
    if (key != "metadata.name") {
      causes_.push_back(FieldInvalid(p + ".key", key, "not a valid field selector key"));
      return;
    }
    for (size_t k = 0; k < values.size(); ++k) {
      std::string v = values[k].is_string() ? values[k].get<std::string>() : "";
      for (const std::string& m : DnsSubdomainErrors(v)) {
        causes_.push_back(FieldInvalid(absl::StrCat(p, ".values[", k, "]"), v, m));
      }
    }
  }

  // validateDeviceStatus.
  void DeviceStatus(const json& d, const std::string& p, const std::set<std::string>& allocated) {
    DriverName(StatusText(d, "driver"), p + ".driver");
    PoolName(StatusText(d, "pool"), p + ".pool");
    DnsLabel(StatusText(d, "device"), p + ".device");
    if (rules_.validates_share_id() && StatusField(d, "shareID")) {
      Uid(StatusText(d, "shareID"), p + ".shareID");
    }
    const std::string id = DeviceId(d, rules_.share_ids());
    if (!allocated.count(id)) {
      causes_.push_back(InvalidText(p, id, "must be an allocated device in the claim"));
    }
    const json& conditions = StatusList(d, "conditions");
    if (conditions.size() > kMaxDeviceConditions) {
      causes_.push_back(FieldTooMany(p + ".conditions", conditions.size(), kMaxDeviceConditions));
    }
    Conditions(conditions, p + ".conditions");
    if (const json* data = StatusField(d, "data")) RawObject(data, p + ".data", kMaxDeviceData);
    if (const json* network = StatusField(d, "networkData")) {
      const std::string np = p + ".networkData";
      if (StatusText(*network, "interfaceName").size() > kMaxInterfaceName) {
        causes_.push_back(FieldTooLong(np + ".interfaceName", kMaxInterfaceName));
      }
      if (StatusText(*network, "hardwareAddress").size() > kMaxHardwareAddress) {
        causes_.push_back(FieldTooLong(np + ".hardwareAddress", kMaxHardwareAddress));
      }
      // The addresses' format (IsValidInterfaceAddress) is not checked: README.
      Set(
          StatusList(*network, "ips"), kMaxIps, np + ".ips", [](const json&, const std::string&) {},
          [](const json& ip) { return ip; }, "", false);
    }
  }

  // metav1validation.ValidateConditions.
  void Conditions(const json& conditions, const std::string& path) {
    std::set<std::string> types;
    for (size_t i = 0; i < conditions.size(); ++i) {
      const json& c = conditions[i];
      const std::string p = absl::StrCat(path, "[", i, "]");
      const std::string type = StatusText(c, "type");
      if (!types.insert(type).second) causes_.push_back(FieldDuplicate(p + ".type", type));
      for (const std::string& m : QualifiedNameErrors(type)) {
        causes_.push_back(FieldInvalid(p + ".type", type, m));
      }
      const std::string status = StatusText(c, "status");
      if (status != "True" && status != "False" && status != "Unknown") {
        causes_.push_back(FieldNotSupported(p + ".status", status, {"False", "True", "Unknown"}));
      }
      if (const json* g = StatusField(c, "observedGeneration");
          g && g->is_number_integer() && g->get<int64_t>() < 0) {
        causes_.push_back(
            FieldInvalid(p + ".observedGeneration", *g, "must be greater than or equal to zero"));
      }
      if (StatusText(c, "lastTransitionTime").empty()) {
        causes_.push_back(FieldRequired(p + ".lastTransitionTime", "must be set"));
      }
      const std::string reason = StatusText(c, "reason");
      if (reason.empty()) {
        causes_.push_back(FieldRequired(p + ".reason", "must be set"));
      } else {
        if (!ValidReason(reason)) {
          causes_.push_back(FieldInvalid(
              p + ".reason", reason,
              "a condition reason must start with alphabetic character, optionally followed by "
              "a string of alphanumeric characters or '_,:', and must end with an alphanumeric "
              "character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or "
              "'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
              "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"));
        }
        if (reason.size() > kMaxConditionReason) {
          causes_.push_back(FieldTooLong(p + ".reason", kMaxConditionReason));
        }
      }
      if (StatusText(c, "message").size() > kMaxConditionMessage) {
        causes_.push_back(FieldTooLong(p + ".message", kMaxConditionMessage));
      }
    }
  }

  // [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?
  static bool ValidReason(const std::string& r) {
    auto alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if (r.empty() || !alpha(r.front())) return false;
    if (r.size() == 1) return true;
    if (!word(r.back())) return false;
    return std::all_of(r.begin(), r.end(), [&](char c) { return word(c) || c == ',' || c == ':'; });
  }

  Rules rules_;
  RequestNames names_;
  std::vector<StatusCause> causes_;
};

// Whether the stored claim's spec asks for consumable capacity
// (resourceclaimspec.DRAConsumableCapacityFeatureInUse): request capacities or a
// distinctAttribute constraint.
bool SpecUsesConsumableCapacity(const json& claim) {
  const json* spec = StatusField(claim, "spec");
  const json* devices = spec ? StatusField(*spec, "devices") : nullptr;
  if (!devices) return false;
  for (const json& r : StatusList(*devices, "requests")) {
    if (const json* exactly = StatusField(r, "exactly");
        exactly && StatusField(*exactly, "capacity")) {
      return true;
    }
    for (const json& s : StatusList(r, "firstAvailable")) {
      if (StatusField(s, "capacity")) return true;
    }
  }
  for (const json& c : StatusList(*devices, "constraints")) {
    if (StatusField(c, "distinctAttribute")) return true;
  }
  return false;
}

bool SpecUsesAdminAccess(const json& claim) {
  const json* spec = StatusField(claim, "spec");
  const json* devices = spec ? StatusField(*spec, "devices") : nullptr;
  if (!devices) return false;
  for (const json& r : StatusList(*devices, "requests")) {
    if (const json* exactly = StatusField(r, "exactly");
        exactly && StatusField(*exactly, "adminAccess")) {
      return true;
    }
  }
  return false;
}

template <typename Pred>
bool AnyResult(const json& claim, Pred pred) {
  for (const json& r : Results(Allocation(claim))) {
    if (pred(r)) return true;
  }
  return false;
}

const json& StatusDevices(const json& claim) {
  static const json kEmpty = json::array();
  const json* status = StatusField(claim, "status");
  return status ? StatusList(*status, "devices") : kEmpty;
}

}  // namespace

std::vector<std::string> UnknownClaimStatusFields(const KubeVersion& kube, const json& claim) {
  std::vector<std::string> out;
  const json* allocation = Allocation(claim);
  if (allocation && kube.minor < 34 && StatusField(*allocation, "allocationTimestamp")) {
    out.push_back("status.allocation.allocationTimestamp");
  }
  const json& results = Results(allocation);
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string p = absl::StrCat("status.allocation.devices.results[", i, "]");
    auto unknown = [&](const char* key, int since) {
      if (kube.minor < since && results[i].is_object() && results[i].contains(key)) {
        out.push_back(absl::StrCat(p, ".", key));
      }
    };
    unknown("tolerations", 33);
    for (const char* key :
         {"bindingConditions", "bindingFailureConditions", "consumedCapacity", "shareID"}) {
      unknown(key, 34);
    }
    unknown("skipNodeOperations", 37);
  }
  const json& devices = StatusDevices(claim);
  for (size_t i = 0; i < devices.size(); ++i) {
    if (kube.minor < 34 && devices[i].is_object() && devices[i].contains("shareID")) {
      out.push_back(absl::StrCat("status.devices[", i, "].shareID"));
    }
  }
  return out;
}

void PrepareClaimStatus(const KubeVersion& kube, const FeatureGates& gates, json& claim,
                        const json& old) {
  json* status = StatusField(claim, "status");
  if (!status || !status->is_object()) return;
  // Decoding: what the release's types do not have.
  auto erase_in_results = [&](std::initializer_list<const char*> keys) {
    json* allocation = StatusField(*status, "allocation");
    json* devices = allocation ? StatusField(*allocation, "devices") : nullptr;
    json* results = devices ? StatusField(*devices, "results") : nullptr;
    if (!results || !results->is_array()) return;
    for (json& r : *results) {
      if (!r.is_object()) continue;
      for (const char* k : keys) r.erase(k);
    }
  };
  auto erase_in_devices = [&](const char* key) {
    json* devices = StatusField(*status, "devices");
    if (!devices || !devices->is_array()) return;
    for (json& d : *devices) {
      if (d.is_object()) d.erase(key);
    }
  };
  if (kube.minor < 33) erase_in_results({"tolerations"});
  if (kube.minor < 34) {
    erase_in_results(
        {"bindingConditions", "bindingFailureConditions", "consumedCapacity", "shareID"});
    erase_in_devices("shareID");
    if (json* allocation = StatusField(*status, "allocation");
        allocation && allocation->is_object()) {
      allocation->erase("allocationTimestamp");
    }
  }
  if (kube.minor < 37) erase_in_results({"skipNodeOperations"});

  // dropDisabledStatusFields.
  const bool devices_in_use = !StatusDevices(old).empty();
  if (!gates.Enabled(kDRAResourceClaimDeviceStatus) && !devices_in_use) status->erase("devices");
  const bool admin_in_use = SpecUsesAdminAccess(old) || AnyResult(old, [](const json& r) {
                              return StatusField(r, "adminAccess") != nullptr;
                            });
  if (!gates.Enabled(kDRAAdminAccess) && !admin_in_use) erase_in_results({"adminAccess"});
  const bool capacity_in_use =
      SpecUsesConsumableCapacity(old) ||
      AnyResult(old,
                [](const json& r) {
                  return StatusField(r, "shareID") || StatusField(r, "consumedCapacity");
                }) ||
      std::any_of(StatusDevices(old).begin(), StatusDevices(old).end(),
                  [](const json& d) { return StatusField(d, "shareID") != nullptr; });
  if (!gates.Enabled(kDRAConsumableCapacity) && !capacity_in_use) {
    erase_in_results({"shareID", "consumedCapacity"});
    erase_in_devices("shareID");
  }
  const bool binding_in_use = AnyResult(old, [](const json& r) {
    return StatusField(r, "bindingConditions") || StatusField(r, "bindingFailureConditions");
  });
  if (!gates.Enabled(kDRADeviceBindingConditions) && !binding_in_use) {
    erase_in_results({"bindingConditions", "bindingFailureConditions"});
  }

  // dropDeallocatedStatusDevices: the status of devices the new allocation no longer has.
  if (!gates.Enabled(kDRAResourceClaimDeviceStatus) && !devices_in_use) return;
  json* devices = StatusField(*status, "devices");
  if (!devices || !devices->is_array()) return;
  const bool share = kube.minor >= 34;
  std::set<std::string> deallocated;
  for (const json& r : Results(Allocation(old))) deallocated.insert(DeviceId(r, share));
  for (const json& r : Results(StatusField(*status, "allocation")))
    deallocated.erase(DeviceId(r, share));
  json kept = json::array();
  for (json& d : *devices) {
    if (!deallocated.count(DeviceId(d, share))) kept.push_back(std::move(d));
  }
  if (kept.empty()) {
    status->erase("devices");
  } else {
    *devices = std::move(kept);
  }
}

std::vector<StatusCause> ValidateClaimStatus(const KubeVersion& kube, const json& claim,
                                             const json& old) {
  StatusValidator v(Rules{kube.minor}, GatherRequestNames(claim));
  v.Status(claim, old);
  return v.Take();
}

std::optional<HttpResponse> AdmitClaimStatus(const KubeVersion& kube, const FeatureGates& gates,
                                             const std::string& field_validation, json& claim,
                                             const json& old, std::vector<std::string>& warnings) {
  std::vector<std::string> unknown = UnknownClaimStatusFields(kube, claim);
  if (!unknown.empty()) {
    if (field_validation == "Strict") {
      std::vector<std::string> parts;
      for (const std::string& f : unknown)
        parts.push_back(absl::StrCat("unknown field \"", f, "\""));
      return ErrorResponse(
          BadRequest(absl::StrCat("strict decoding error: ", absl::StrJoin(parts, ", "))));
    }
    if (field_validation != "Ignore") {
      for (const std::string& f : unknown) {
        warnings.push_back(absl::StrCat("unknown field \\\"", f, "\\\""));
      }
    }
  }
  PrepareClaimStatus(kube, gates, claim, old);
  std::vector<StatusCause> causes = ValidateClaimStatus(kube, claim, old);
  if (causes.empty()) return std::nullopt;
  std::string name;
  if (const json* m = StatusField(claim, "metadata")) name = StatusText(*m, "name");
  return WithWarnings(
      ErrorResponse(Invalid("ResourceClaim", "resource.k8s.io", name, std::move(causes))),
      warnings);
}

}  // namespace gpuprofile::e2e
