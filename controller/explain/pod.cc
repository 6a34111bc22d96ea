// File: controller/explain/pod.cc
#include "controller/explain/pod.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "controller/core/quantity.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/node.h"

namespace gpuprofile::explain {
namespace {

// Field readers that record a problem instead of throwing. A null member counts as absent.
class Reader {
 public:
  const nlohmann::json* Member(const nlohmann::json& obj, const char* key) const {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }
  std::string String(const nlohmann::json& obj, const char* key, const std::string& path) {
    const nlohmann::json* v = Member(obj, key);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      Add(path, absl::StrCat("must be a string, got ", v->type_name()));
      return "";
    }
    return v->get<std::string>();
  }
  const nlohmann::json* Object(const nlohmann::json& obj, const char* key,
                               const std::string& path) {
    const nlohmann::json* v = Member(obj, key);
    if (v == nullptr) return nullptr;
    if (!v->is_object()) {
      Add(path, absl::StrCat("must be an object, got ", v->type_name()));
      return nullptr;
    }
    return v;
  }
  const nlohmann::json* Array(const nlohmann::json& obj, const char* key, const std::string& path) {
    const nlohmann::json* v = Member(obj, key);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Add(path, absl::StrCat("must be a list, got ", v->type_name()));
      return nullptr;
    }
    return v;
  }
  void Add(const std::string& path, const std::string& reason) {
    errors_.push_back(absl::StrCat(path, ": ", reason));
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::string> errors_;
};

// Calls f(item, path) for each item of the list parent[key] (at `path`; absent is empty). An
// item that is not an object is an error and skipped.
template <typename F>
void ForEachObject(Reader& r, const nlohmann::json& parent, const char* key,
                   const std::string& path, F f) {
  const nlohmann::json* list = r.Array(parent, key, path);
  if (list == nullptr) return;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const nlohmann::json& item = (*list)[i];
    if (!item.is_object()) {
      r.Add(at, "must be an object");
      continue;
    }
    f(item, at);
  }
}

bool IsDevicePluginResource(const std::string& name) {
  return name == meta::kDevicePluginGpuResource ||
         absl::StartsWith(name, meta::kDevicePluginMigResourcePrefix);
}

// The device-plugin resources one container asks for: its limit, else its request.
std::map<std::string, int64_t> ContainerDevicePluginRequests(Reader& r, const nlohmann::json& c,
                                                             const std::string& path) {
  std::map<std::string, int64_t> out;
  const nlohmann::json* resources = r.Object(c, "resources", path + ".resources");
  if (resources == nullptr) return out;
  for (const char* kind : {"requests", "limits"}) {  // limits last: they win
    const std::string at = absl::StrCat(path, ".resources.", kind);
    const nlohmann::json* list = r.Object(*resources, kind, at);
    if (list == nullptr) continue;
    for (const auto& [name, value] : list->items()) {
      if (!IsDevicePluginResource(name)) continue;
      const std::string field = absl::StrCat(at, "[", name, "]");
      std::optional<std::string> text = meta::QuantityText(value);
      absl::StatusOr<int64_t> n = absl::InvalidArgumentError("");
      if (text) {
        absl::StatusOr<Quantity> q = Quantity::Parse(*text);
        if (q.ok()) n = q->AsInt64();
      }
      if (!n.ok() || *n < 0) {
        r.Add(field, "must be a whole number of devices");
        continue;
      }
      out[name] = *n;
    }
  }
  return out;
}

// Pod.device_plugin_requests from spec.containers and spec.initContainers.
std::map<std::string, int64_t> DevicePluginRequests(Reader& r, const nlohmann::json& spec) {
  std::map<std::string, int64_t> sum, init_max;
  for (const char* list_name : {"containers", "initContainers"}) {
    const bool init = std::string(list_name) == "initContainers";
    ForEachObject(r, spec, list_name, absl::StrCat("spec.", list_name),
                  [&](const nlohmann::json& c, const std::string& path) {
                    const bool sidecar =
                        init && r.String(c, "restartPolicy", path + ".restartPolicy") == "Always";
                    for (const auto& [name, n] : ContainerDevicePluginRequests(r, c, path)) {
                      if (init && !sidecar) {
                        init_max[name] = std::max(init_max[name], n);
                      } else {
                        sum[name] += n;
                      }
                    }
                  });
  }
  for (const auto& [name, n] : init_max) sum[name] = std::max(sum[name], n);
  for (auto it = sum.begin(); it != sum.end();) {
    it = it->second == 0 ? sum.erase(it) : std::next(it);
  }
  return sum;
}

// spec.resourceClaims: each entry names a claim or a template, exactly one of them.
std::vector<PodClaimRef> ClaimRefs(Reader& r, const nlohmann::json& spec) {
  std::vector<PodClaimRef> refs;
  ForEachObject(r, spec, "resourceClaims", "spec.resourceClaims",
                [&](const nlohmann::json& c, const std::string& path) {
                  PodClaimRef ref;
                  ref.name = r.String(c, "name", path + ".name");
                  ref.claim_name = r.String(c, "resourceClaimName", path + ".resourceClaimName");
                  ref.template_name =
                      r.String(c, "resourceClaimTemplateName", path + ".resourceClaimTemplateName");
                  if (ref.name.empty()) r.Add(path + ".name", "required");
                  if (ref.claim_name.empty() == ref.template_name.empty()) {
                    r.Add(path,
                          "exactly one of resourceClaimName and resourceClaimTemplateName is "
                          "required");
                  }
                  refs.push_back(std::move(ref));
                });
  return refs;
}

// status.resourceClaimStatuses. An entry without resourceClaimName keeps claim_name empty
// (nullopt): no claim was needed.
std::vector<PodClaimStatus> ClaimStatuses(Reader& r, const nlohmann::json& status) {
  std::vector<PodClaimStatus> out;
  ForEachObject(r, status, "resourceClaimStatuses", "status.resourceClaimStatuses",
                [&](const nlohmann::json& s, const std::string& path) {
                  PodClaimStatus cs;
                  cs.name = r.String(s, "name", path + ".name");
                  if (r.Member(s, "resourceClaimName") != nullptr) {
                    cs.claim_name = r.String(s, "resourceClaimName", path + ".resourceClaimName");
                  }
                  out.push_back(std::move(cs));
                });
  return out;
}

// The PodScheduled condition of status.conditions (the last, should there be several); every
// condition is checked for shape.
std::optional<PodScheduledCondition> ScheduledCondition(Reader& r, const nlohmann::json& status) {
  std::optional<PodScheduledCondition> scheduled;
  ForEachObject(r, status, "conditions", "status.conditions",
                [&](const nlohmann::json& c, const std::string& path) {
                  if (r.String(c, "type", path + ".type") != "PodScheduled") return;
                  PodScheduledCondition cond;
                  cond.status = r.String(c, "status", path + ".status");
                  cond.reason = r.String(c, "reason", path + ".reason");
                  cond.message = r.String(c, "message", path + ".message");
                  scheduled = std::move(cond);
                });
  return scheduled;
}

// "claim:<entry>/<request>" or "claim:<entry>" into h->pod_claim and h->request.
void SplitClaimResource(PodDeviceHealth* h) {
  constexpr absl::string_view kClaimPrefix = "claim:";
  absl::string_view name = h->resource;
  if (!absl::ConsumePrefix(&name, kClaimPrefix)) return;
  const size_t slash = name.find('/');
  h->pod_claim = std::string(name.substr(0, slash));
  if (slash != absl::string_view::npos) h->request = std::string(name.substr(slash + 1));
}

// One container's allocatedResourcesStatus (container status `c` at `path`), appended to *out.
void ContainerDeviceHealth(Reader& r, const nlohmann::json& c, const std::string& path,
                           std::vector<PodDeviceHealth>* out) {
  PodDeviceHealth h;
  h.container = r.String(c, "name", path + ".name");
  ForEachObject(r, c, "allocatedResourcesStatus", path + ".allocatedResourcesStatus",
                [&](const nlohmann::json& rs, const std::string& rs_path) {
                  h.resource = r.String(rs, "name", rs_path + ".name");
                  h.pod_claim.clear();
                  h.request.clear();
                  SplitClaimResource(&h);
                  ForEachObject(r, rs, "resources", rs_path + ".resources",
                                [&](const nlohmann::json& d, const std::string& at) {
                                  PodDeviceHealth one = h;
                                  one.resource_id = r.String(d, "resourceID", at + ".resourceID");
                                  one.health = r.String(d, "health", at + ".health");
                                  one.message = r.String(d, "message", at + ".message");
                                  out->push_back(std::move(one));
                                });
                });
}

// The kubelet's device health of every container (Pod::device_health).
std::vector<PodDeviceHealth> DeviceHealth(Reader& r, const nlohmann::json& status) {
  std::vector<PodDeviceHealth> out;
  for (const char* list :
       {"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"}) {
    ForEachObject(r, status, list, absl::StrCat("status.", list),
                  [&](const nlohmann::json& c, const std::string& path) {
                    ContainerDeviceHealth(r, c, path, &out);
                  });
  }
  return out;
}

}  // namespace

const PodClaimStatus* Pod::StatusOf(const std::string& entry) const {
  for (const PodClaimStatus& s : claim_statuses) {
    if (s.name == entry) return &s;
  }
  return nullptr;
}

bool IsPod(const nlohmann::json& obj) {
  if (!obj.is_object()) return false;
  auto kind = obj.find("kind");
  auto api_version = obj.find("apiVersion");
  return kind != obj.end() && *kind == "Pod" && api_version != obj.end() && *api_version == "v1";
}

absl::StatusOr<Pod> DecodePod(const nlohmann::json& obj) {
  Reader r;
  Pod pod;
  if (!obj.is_object()) return absl::InvalidArgumentError("Pod: must be an object");
  if (const nlohmann::json* meta = r.Object(obj, "metadata", "metadata")) {
    pod.name = r.String(*meta, "name", "metadata.name");
    pod.namespace_name = r.String(*meta, "namespace", "metadata.namespace");
  }
  if (pod.name.empty()) r.Add("metadata.name", "required");
  if (const nlohmann::json* spec = r.Object(obj, "spec", "spec")) {
    pod.node_name = r.String(*spec, "nodeName", "spec.nodeName");
    pod.device_plugin_requests = DevicePluginRequests(r, *spec);
    pod.claims = ClaimRefs(r, *spec);
  }
  if (const nlohmann::json* status = r.Object(obj, "status", "status")) {
    pod.phase = r.String(*status, "phase", "status.phase");
    pod.claim_statuses = ClaimStatuses(r, *status);
    pod.scheduled = ScheduledCondition(r, *status);
    pod.device_health = DeviceHealth(r, *status);
  }
  if (!r.errors().empty()) {
    const std::string who = absl::StrCat("Pod \"", pod.namespace_name,
                                         pod.namespace_name.empty() ? "" : "/", pod.name, "\": ");
    std::vector<std::string> lines;
    for (const std::string& e : r.errors()) lines.push_back(who + e);
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }
  return pod;
}

}  // namespace gpuprofile::explain
