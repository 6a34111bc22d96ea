// File: e2e/emulator/quota_admission.cc
#include "e2e/emulator/quota_admission.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "controller/core/names.h"
#include "controller/core/quantity.h"

namespace gpuprofile::e2e {
namespace {

// pkg/apis/core/helper: standardQuotaResources, standardResources, integerResources.
const std::set<std::string>& StandardQuotaResources() {
  static const auto* names = new std::set<std::string>{"cpu",
                                                       "memory",
                                                       "ephemeral-storage",
                                                       "requests.cpu",
                                                       "requests.memory",
                                                       "requests.storage",
                                                       "requests.ephemeral-storage",
                                                       "limits.cpu",
                                                       "limits.memory",
                                                       "limits.ephemeral-storage",
                                                       "pods",
                                                       "resourcequotas",
                                                       "services",
                                                       "replicationcontrollers",
                                                       "secrets",
                                                       "persistentvolumeclaims",
                                                       "configmaps",
                                                       "services.nodeports",
                                                       "services.loadbalancers"};
  return *names;
}

const std::set<std::string>& StandardResources() {
  static const auto* names = [] {
    auto* s = new std::set<std::string>(StandardQuotaResources());
    s->insert("storage");
    return s;
  }();
  return *names;
}

const std::set<std::string>& IntegerResources() {
  static const auto* names = new std::set<std::string>{"pods",
                                                       "resourcequotas",
                                                       "services",
                                                       "replicationcontrollers",
                                                       "secrets",
                                                       "configmaps",
                                                       "persistentvolumeclaims",
                                                       "services.nodeports",
                                                       "services.loadbalancers"};
  return *names;
}

bool IsQuotaHugePageResourceName(const std::string& name) {
  return absl::StartsWith(name, "hugepages-") || absl::StartsWith(name, "requests.hugepages-");
}

// helper.IsNativeResource: no domain, or a domain in kubernetes.io.
bool IsNativeResource(const std::string& name) {
  return name.find('/') == std::string::npos || absl::StrContains(name, "kubernetes.io/");
}

// helper.IsExtendedResourceName.
bool IsExtendedResourceName(const std::string& name) {
  if (IsNativeResource(name) || absl::StartsWith(name, "requests.")) return false;
  return QualifiedNameErrors(absl::StrCat("requests.", name)).empty();
}

bool IsIntegerResourceName(const std::string& name) {
  return IntegerResources().count(name) > 0 || IsExtendedResourceName(name);
}

// A resource name is a core.ResourceName, which has a String() method: field errors print it
// without quotes ("Invalid value: limits.pods: ...").
StatusCause InvalidName(const std::string& path, const std::string& name, const std::string& msg) {
  return {"FieldValueInvalid", absl::StrCat("Invalid value: ", name, ": ", msg), path};
}

// ValidateResourceQuotaResourceName (with validateResourceName).
void ValidateName(const std::string& name, const std::string& path,
                  std::vector<StatusCause>& causes) {
  std::vector<std::string> messages = QualifiedNameErrors(name);
  for (const std::string& m : messages) causes.push_back(InvalidName(path, name, m));
  const bool bare = name.find('/') == std::string::npos;
  if (messages.empty() && bare && StandardResources().count(name) == 0 &&
      !IsQuotaHugePageResourceName(name)) {
    causes.push_back(
        InvalidName(path, name, "must be a standard resource type or fully qualified"));
  }
  if (bare && StandardQuotaResources().count(name) == 0 && !IsQuotaHugePageResourceName(name)) {
    causes.push_back(InvalidName(path, name, "must be a standard resource for quota"));
  }
}

// How Go's %#v prints the resource.Quantity that ParseQuantity returns for `text`, for the
// values whose int64 fast path it takes (every decimal quantity of up to 18 digits and scale
// >= -9): the field error of a non-integer count carries the struct, not the string. Other
// values (fractional binary quantities: an *inf.Dec whose address Go prints) fall back to the
// canonical string (e2e/README.md).
std::string GoQuantity(const std::string& text, const Quantity& q) {
  size_t pos = 0;
  bool positive = true;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    positive = text[pos] == '+';
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') ++pos;
  size_t start = pos;
  while (pos < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  std::string num = text.substr(start, pos - start);
  if (num.empty()) num = "0";
  std::string denom;
  if (pos < text.size() && text[pos] == '.') {
    start = ++pos;
    while (pos < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    denom = text.substr(start, pos - start);
  }
  const std::string suffix = text.substr(pos);
  int exponent = 0;
  std::string format = "DecimalSI";
  static const std::pair<const char*, int> kDecimal[] = {{"", 0},   {"n", -9}, {"u", -6}, {"m", -3},
                                                         {"k", 3},  {"M", 6},  {"G", 9},  {"T", 12},
                                                         {"P", 15}, {"E", 18}};
  bool known = false;
  for (const auto& [s, e] : kDecimal) {
    if (suffix == s) {
      exponent = e;
      known = true;
    }
  }
  if (!known && !suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E')) {
    format = "DecimalExponent";
    known = absl::SimpleAtoi(suffix.substr(1), &exponent);
  }
  const std::string fallback = q.ToString();
  if (!known) return fallback;  // binary suffixes
  if (18 - static_cast<int>(num.size() + denom.size()) < 0) return fallback;
  const int scale = exponent - static_cast<int>(denom.size());
  if (scale < -9) return fallback;
  const std::string shifted = num + denom;
  int64_t value = 0;
  if (!absl::SimpleAtoi(shifted, &value)) return fallback;
  if (!positive) value = -value;
  std::string cached;
  if (scale % 3 == 0 && !absl::EndsWith(shifted, "000") && shifted[0] != '0') cached = text;
  return absl::StrCat("resource.Quantity{i:resource.int64Amount{value:", value, ", scale:", scale,
                      "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"", cached,
                      "\", Format:\"", format, "\"}");
}

// ValidateResourceQuantityValue.
void ValidateValue(const std::string& name, const nlohmann::json& value, const std::string& path,
                   std::vector<StatusCause>& causes) {
  const std::string text = value.is_string()   ? value.get<std::string>()
                           : value.is_number() ? value.dump()
                                               : "";
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) return;
  if (q->Sign() < 0) {
    causes.push_back(FieldInvalid(path, q->ToString(), "must be greater than or equal to 0"));
  }
  if (IsIntegerResourceName(name) && !q->IsInteger()) {
    // value.MilliValue() % 1000 != 0, MilliValue rounding up.
    const double milli = std::ceil(q->AsApproximateDouble() * 1000);
    if (std::fmod(milli, 1000) != 0) {
      causes.push_back(
          {"FieldValueInvalid",
           absl::StrCat("Invalid value: ", GoQuantity(text, *q), ": must be an integer"), path});
    }
  }
}

void ValidateList(const nlohmann::json& object, const char* field, const std::string& path,
                  std::vector<StatusCause>& causes) {
  const nlohmann::json* list = nullptr;
  if (auto it = object.find(field); it != object.end()) list = &*it;
  if (!list || !list->is_object()) return;
  for (const auto& [name, value] : list->items()) {  // sorted: nlohmann orders keys
    std::string p = absl::StrCat(path, "[", name, "]");
    ValidateName(name, p, causes);
    ValidateValue(name, value, p, causes);
  }
}

const nlohmann::json* QuotaChild(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

}  // namespace

namespace {

// Calls `f(value)` for every quantity of spec.hard, status.hard and status.used.
template <typename Json, typename F>
absl::Status ForEachQuantity(Json& object, F f) {
  for (const char* part : {"spec", "status"}) {
    auto p = object.find(part);
    if (p == object.end() || !p->is_object()) continue;
    for (const char* field : {"hard", "used"}) {
      if (std::string(part) == "spec" && std::string(field) == "used") continue;
      auto list = p->find(field);
      if (list == p->end() || !list->is_object()) continue;
      for (auto& [name, value] : list->items()) {
        // JSON numbers decode as quantities too.
        std::string text = value.is_string()   ? value.template get<std::string>()
                           : value.is_number() ? value.dump()
                                               : "";
        absl::StatusOr<Quantity> q = Quantity::Parse(text);
        if (!q.ok()) return q.status();
        f(value, *q);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckQuotaQuantities(const nlohmann::json& object) {
  return ForEachQuantity(object, [](const nlohmann::json&, const Quantity&) {});
}

void CanonicalizeQuotaQuantities(nlohmann::json& object) {
  absl::Status s = ForEachQuantity(
      object, [](nlohmann::json& value, const Quantity& q) { value = q.ToString(); });
  (void)s;  // checked by CheckQuotaQuantities before
}

std::vector<StatusCause> ValidateResourceQuota(const nlohmann::json& object) {
  // metadata.name (a DNS subdomain) is checked for every kind before admission.
  std::vector<StatusCause> causes;
  if (const nlohmann::json* spec = QuotaChild(object, "spec")) {
    ValidateList(*spec, "hard", "spec.hard", causes);
  }
  if (const nlohmann::json* status = QuotaChild(object, "status")) {
    ValidateList(*status, "hard", "status.hard", causes);
    ValidateList(*status, "used", "status.used", causes);
  }
  return causes;
}

std::vector<StatusCause> ValidateResourceQuotaStatus(const nlohmann::json& object) {
  std::vector<StatusCause> causes;
  if (const nlohmann::json* status = QuotaChild(object, "status")) {
    ValidateList(*status, "hard", "status.hard", causes);
    ValidateList(*status, "used", "status.used", causes);
  }
  return causes;
}

void SyncResourceQuotaStatus(nlohmann::json& object) {
  const nlohmann::json* spec = QuotaChild(object, "spec");
  const nlohmann::json* hard = spec ? QuotaChild(*spec, "hard") : nullptr;
  nlohmann::json status = object.contains("status") && object["status"].is_object()
                              ? object["status"]
                              : nlohmann::json::object();
  nlohmann::json used = nlohmann::json::object();
  if (hard && hard->is_object() && !hard->empty()) {
    status["hard"] = *hard;
    if (const nlohmann::json* old_used = QuotaChild(status, "used");
        old_used && old_used->is_object()) {
      for (const auto& [k, v] : old_used->items()) {
        if (hard->contains(k)) used[k] = v;
      }
    }
  } else {
    status.erase("hard");
  }
  if (used.empty()) {
    status.erase("used");
  } else {
    status["used"] = used;
  }
  if (status.empty()) {
    object.erase("status");
  } else {
    object["status"] = status;
  }
}

namespace {

constexpr char kClaimCount[] = "count/resourceclaims.resource.k8s.io";
constexpr char kPerClassSuffix[] = ".deviceclass.resource.k8s.io/devices";
constexpr int64_t kAllocationResultsMaxSize = 32;

// A request's or subrequest's device count for quota; 0 for an unknown mode.
int64_t DeviceCount(const nlohmann::json& r) {
  const nlohmann::json* mode = QuotaChild(r, "allocationMode");
  const std::string m = mode && mode->is_string() ? mode->get<std::string>() : "";
  if (m == "All") return kAllocationResultsMaxSize;
  if (m != "ExactCount") return 0;  // unknown modes do not count
  const nlohmann::json* count = QuotaChild(r, "count");
  return count && count->is_number_integer() ? count->get<int64_t>() : 0;
}

std::string ClassKey(const nlohmann::json& r) {
  const nlohmann::json* cls = QuotaChild(r, "deviceClassName");
  return absl::StrCat(cls && cls->is_string() ? cls->get<std::string>() : "", kPerClassSuffix);
}

bool CoveredByClaimEvaluator(const std::string& key) {
  return key == kClaimCount || absl::EndsWith(key, kPerClassSuffix);
}

}  // namespace

std::map<std::string, int64_t> ResourceClaimUsage(
    const std::vector<std::shared_ptr<const nlohmann::json>>& claims) {
  std::map<std::string, int64_t> usage;
  for (const auto& claim : claims) {
    usage[kClaimCount] += 1;
    const nlohmann::json* spec = QuotaChild(*claim, "spec");
    const nlohmann::json* devices = spec ? QuotaChild(*spec, "devices") : nullptr;
    const nlohmann::json* requests = devices ? QuotaChild(*devices, "requests") : nullptr;
    if (!requests || !requests->is_array()) continue;
    for (const nlohmann::json& r : *requests) {
      const nlohmann::json* first = QuotaChild(r, "firstAvailable");
      if (first && first->is_array() && !first->empty()) {
        std::map<std::string, int64_t> worst;
        for (const nlohmann::json& sub : *first) {
          int64_t& w = worst[ClassKey(sub)];
          w = std::max(w, DeviceCount(sub));
        }
        for (const auto& [key, n] : worst) usage[key] += n;
      } else if (const nlohmann::json* exactly = QuotaChild(r, "exactly")) {
        usage[ClassKey(*exactly)] += DeviceCount(*exactly);
      }
    }
  }
  return usage;
}

bool ApplyResourceClaimUsage(const std::map<std::string, int64_t>& usage, nlohmann::json& quota) {
  const nlohmann::json* status = QuotaChild(quota, "status");
  const nlohmann::json* hard = status ? QuotaChild(*status, "hard") : nullptr;
  if (!hard || !hard->is_object()) return false;
  nlohmann::json used = QuotaChild(*status, "used") && (*status)["used"].is_object()
                            ? (*status)["used"]
                            : nlohmann::json::object();
  const nlohmann::json before = used;
  for (const auto& [key, value] : hard->items()) {
    if (!CoveredByClaimEvaluator(key)) continue;
    auto it = usage.find(key);
    used[key] = std::to_string(it == usage.end() ? 0 : it->second);
  }
  if (used == before) return false;
  quota["status"]["used"] = used;
  return true;
}

std::string QuotaTableCell(const nlohmann::json& object, bool limits) {
  const nlohmann::json* status = QuotaChild(object, "status");
  const nlohmann::json* hard = status ? QuotaChild(*status, "hard") : nullptr;
  const nlohmann::json* used = status ? QuotaChild(*status, "used") : nullptr;
  if (!hard || !hard->is_object()) return "";
  std::string out;
  for (const auto& [name, value] : hard->items()) {
    const size_t dot = name.find('.');
    const bool is_limit = dot != std::string::npos && name.substr(0, dot) == "limits";
    if (is_limit != limits) continue;
    std::string u = "0";
    if (used && used->contains(name) && (*used)[name].is_string()) {
      u = (*used)[name].get<std::string>();
    }
    std::string h = value.is_string() ? value.get<std::string>() : value.dump();
    if (!out.empty()) out += ", ";
    absl::StrAppend(&out, name, ": ", u, "/", h);
  }
  return out;
}

}  // namespace gpuprofile::e2e
