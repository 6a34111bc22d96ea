// File: controller/dra/resource_claim.cc
#include "controller/dra/resource_claim.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/node_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "controller/meta/field_codec.h"

namespace gpuprofile::dra {
namespace {

// The values of every ClaimSymbol; node-based, so a value's address never moves.
struct SymbolTable {
  absl::Mutex mu;
  absl::node_hash_set<std::string> values ABSL_GUARDED_BY(mu);
};

SymbolTable& Symbols() {
  static SymbolTable* const table = new SymbolTable();  // never destroyed: symbols outlive exit
  return *table;
}

const std::string* Intern(absl::string_view value) {
  SymbolTable& table = Symbols();
  absl::MutexLock lock(&table.mu);
  return &*table.values.emplace(value).first;
}

using json = nlohmann::json;
using meta::FieldErrors;

constexpr char kClaimKind[] = "ResourceClaim";
constexpr char kClaimModeAll[] = "All";
constexpr char kClaimModeExactCount[] = "ExactCount";

// The exact fields of a request (v1beta1: on the request; later: under `exactly`) or of a
// firstAvailable subrequest. Returns the class name.
std::string ReadClaimExactRequest(const json& exact, absl::string_view path, ClaimRequest* request,
                                  bool first, FieldErrors* errors) {
  std::string device_class =
      meta::StringField(exact, "deviceClassName", path, /*required=*/true, errors).value_or("");
  std::string mode = meta::StringField(exact, "allocationMode", path, false, errors).value_or("");
  if (!mode.empty() && mode != kClaimModeAll && mode != kClaimModeExactCount) {
    errors->AddUnsupported(meta::FieldChild(path, "allocationMode"), mode,
                           {kClaimModeAll, kClaimModeExactCount});
  }
  std::optional<int64_t> count = meta::IntField(exact, "count", path, false, errors);
  if (count && *count < 1) {
    errors->AddInvalid(meta::FieldChild(path, "count"), absl::StrCat(*count),
                       "must be greater than zero");
  }
  if (first) {
    request->all = mode == kClaimModeAll;
    request->count = static_cast<int32_t>(std::min<int64_t>(count.value_or(1), INT32_MAX));
  }
  if (const json* capacity = meta::ObjectField(exact, "capacity", path, false, errors)) {
    std::string capacity_path = meta::FieldChild(path, "capacity");
    if (const json* requests =
            meta::ObjectField(*capacity, "requests", capacity_path, false, errors)) {
      request->requests_capacity |= !requests->empty();
    }
  }
  return device_class;
}

void ReadRequest(const json& item, absl::string_view path, bool v1beta1, ClaimRequest* request,
                 FieldErrors* errors) {
  request->name = meta::StringField(item, "name", path, /*required=*/true, errors).value_or("");
  const json* first_available = meta::ArrayField(item, "firstAvailable", path, false, errors);
  if (first_available != nullptr && !first_available->empty()) {
    std::string list_path = meta::FieldChild(path, "firstAvailable");
    for (size_t i = 0; i < first_available->size(); ++i) {
      std::string sub_path = meta::FieldIndex(list_path, i);
      const json& sub = (*first_available)[i];
      if (!meta::CheckObject(sub, sub_path, errors)) continue;
      request->subrequests.push_back(
          meta::StringField(sub, "name", sub_path, /*required=*/true, errors).value_or(""));
      request->device_classes.push_back(
          ReadClaimExactRequest(sub, sub_path, request, i == 0, errors));
    }
    return;
  }
  if (v1beta1) {
    request->device_classes.push_back(ReadClaimExactRequest(item, path, request, true, errors));
    return;
  }
  const json* exact = meta::ObjectField(item, "exactly", path, false, errors);
  if (exact == nullptr) {
    errors->Add(path, "exactly one of exactly or firstAvailable is required");
    return;
  }
  request->device_classes.push_back(
      ReadClaimExactRequest(*exact, meta::FieldChild(path, "exactly"), request, true, errors));
}

void ReadMetadata(const json& obj, ResourceClaim* claim, FieldErrors* errors) {
  const json* meta = meta::ObjectField(obj, "metadata", "", /*required=*/true, errors);
  if (meta == nullptr) return;
  const std::string name = meta::StringField(*meta, "name", "metadata", true, errors).value_or("");
  claim->namespace_name =
      meta::StringField(*meta, "namespace", "metadata", true, errors).value_or("");
  const std::string resource_version =
      meta::StringField(*meta, "resourceVersion", "metadata", false, errors).value_or("");
  std::string owner_pod;
  if (std::optional<std::string> created =
          meta::StringField(*meta, "creationTimestamp", "metadata", false, errors)) {
    absl::Time t;
    std::string err;
    if (absl::ParseTime(absl::RFC3339_full, *created, &t, &err)) {
      claim->set_created(t);
    } else {
      errors->AddInvalid("metadata.creationTimestamp", *created, "must be an RFC 3339 time");
    }
  }
  claim->deleting = meta::JsonMember(*meta, "deletionTimestamp") != nullptr;
  if (const json* annotations =
          meta::ObjectField(*meta, "annotations", "metadata", false, errors)) {
    if (const json* pod_claim = meta::JsonMember(*annotations, kPodClaimNameAnnotation);
        pod_claim && pod_claim->is_string()) {
      claim->pod_claim_name = pod_claim->get_ref<const std::string&>();
    }
  }
  const json* owners = meta::ArrayField(*meta, "ownerReferences", "metadata", false, errors);
  for (size_t i = 0; owners != nullptr && i < owners->size(); ++i) {
    const json& owner = (*owners)[i];
    std::string path = meta::FieldIndex("metadata.ownerReferences", i);
    if (!meta::CheckObject(owner, path, errors)) continue;
    if (!meta::MemberEquals(owner, "kind", "Pod") || !meta::MemberEquals(owner, "apiVersion", "v1"))
      continue;
    if (!meta::BoolField(owner, "controller", path, errors).value_or(false)) continue;
    owner_pod = meta::StringField(owner, "name", path, true, errors).value_or("");
  }
  // ClaimStrings keeps 16-bit sizes; the API server's names are far shorter.
  bool fits = true;
  const std::string namespace_name = claim->namespace_name;
  const std::pair<const char*, const std::string*> sized[] = {
      {"metadata.name", &name},
      {"metadata.namespace", &namespace_name},
      {"metadata.resourceVersion", &resource_version},
      {"metadata.ownerReferences.name", &owner_pod}};
  for (const auto& [field, value] : sized) {
    if (value->size() > UINT16_MAX) {
      errors->AddInvalid(field, value->substr(0, 16) + "...", "must be at most 65535 characters");
      fits = false;
    }
  }
  if (fits) claim->strings = ClaimStrings(namespace_name, name, resource_version, owner_pod);
}

// status.devices[].conditions[i] at `path`.
DeviceStatusCondition ReadCondition(const json& item, absl::string_view path, FieldErrors* errors) {
  DeviceStatusCondition c;
  c.type = meta::StringField(item, "type", path, /*required=*/true, errors).value_or("");
  c.status = meta::StringField(item, "status", path, /*required=*/true, errors).value_or("");
  c.reason = meta::StringField(item, "reason", path, false, errors).value_or("");
  c.message = meta::StringField(item, "message", path, false, errors).value_or("");
  (void)meta::StringField(item, "lastTransitionTime", path, false, errors);  // type-checked only
  (void)meta::IntField(item, "observedGeneration", path, false, errors);
  return c;
}

// status.devices into *out (null: type-check only). data and networkData are the driver's own
// and are not read.
void ReadDeviceStatuses(const json& status, std::vector<AllocatedDeviceStatus>* out,
                        FieldErrors* errors) {
  meta::ForEachObject(
      status, "devices", "status", errors, [&](const json& item, const std::string& path) {
        AllocatedDeviceStatus d;
        d.driver = meta::StringField(item, "driver", path, true, errors).value_or("");
        d.pool = meta::StringField(item, "pool", path, true, errors).value_or("");
        d.device = meta::StringField(item, "device", path, true, errors).value_or("");
        (void)meta::StringField(item, "shareID", path, false, errors);
        meta::ForEachObject(item, "conditions", path, errors,
                            [&](const json& c, const std::string& c_path) {
                              d.conditions.push_back(ReadCondition(c, c_path, errors));
                            });
        if (out != nullptr) out->push_back(std::move(d));
      });
}

void ReadStatus(const json& status, ResourceClaim* claim, FieldErrors* errors) {
  ReadDeviceStatuses(status, nullptr, errors);
  std::vector<ConsumedCapacity> consumed_capacity;
  if (const json* allocation = meta::ObjectField(status, "allocation", "status", false, errors)) {
    claim->allocated = true;
    const json* devices =
        meta::ObjectField(*allocation, "devices", "status.allocation", false, errors);
    const json* results =
        devices ? meta::ArrayField(*devices, "results", "status.allocation.devices", false, errors)
                : nullptr;
    if (results != nullptr) {
      for (size_t i = 0; i < results->size(); ++i) {
        const json& item = (*results)[i];
        std::string path = meta::FieldIndex("status.allocation.devices.results", i);
        if (!meta::CheckObject(item, path, errors)) continue;
        ClaimDeviceResult result;
        result.request = meta::StringField(item, "request", path, true, errors).value_or("");
        result.driver = meta::StringField(item, "driver", path, true, errors).value_or("");
        result.pool = meta::StringField(item, "pool", path, true, errors).value_or("");
        result.device = meta::StringField(item, "device", path, true, errors).value_or("");
        (void)meta::StringField(item, "shareID", path, false, errors);  // type-checked only
        if (const json* consumed =
                meta::ObjectField(item, "consumedCapacity", path, false, errors)) {
          for (const auto& [name, value] : consumed->items()) {
            const std::string field =
                meta::FieldChild(meta::FieldChild(path, "consumedCapacity"), name);
            if (!value.is_string()) {
              errors->AddInvalid(field, value.dump(), "must be a quantity");
              continue;
            }
            absl::StatusOr<Quantity> amount = Quantity::Parse(value.get_ref<const std::string&>());
            if (!amount.ok()) {
              errors->AddInvalid(field, value.get_ref<const std::string&>(), "must be a quantity");
              continue;
            }
            consumed_capacity.push_back(
                ConsumedCapacity{static_cast<uint32_t>(claim->results.size()), ClaimSymbol(name),
                                 *std::move(amount)});
          }
        }
        claim->results.push_back(std::move(result));
      }
    }
  }
  if (!consumed_capacity.empty()) {
    claim->consumed_capacity =
        std::make_shared<const std::vector<ConsumedCapacity>>(std::move(consumed_capacity));
  }
  const json* reserved = meta::ArrayField(status, "reservedFor", "status", false, errors);
  if (reserved == nullptr) return;
  for (size_t i = 0; i < reserved->size(); ++i) {
    const json& consumer = (*reserved)[i];
    std::string path = meta::FieldIndex("status.reservedFor", i);
    if (!meta::CheckObject(consumer, path, errors)) continue;
    std::string resource = meta::StringField(consumer, "resource", path, true, errors).value_or("");
    std::string name = meta::StringField(consumer, "name", path, true, errors).value_or("");
    std::string group = meta::StringField(consumer, "apiGroup", path, false, errors).value_or("");
    if (resource == "pods" && group.empty()) claim->reserved_for_pods.push_back(std::move(name));
  }
}

}  // namespace

ClaimSymbol::ClaimSymbol() {
  static const std::string* const empty = Intern("");
  value_ = empty;
}

ClaimSymbol::ClaimSymbol(absl::string_view value) : value_(Intern(value)) {}

ClaimStrings::ClaimStrings(absl::string_view namespace_name, absl::string_view name,
                           absl::string_view resource_version, absl::string_view owner_pod)
    : namespace_size_(static_cast<uint16_t>(namespace_name.size())),
      name_size_(static_cast<uint16_t>(name.size())),
      version_size_(static_cast<uint16_t>(resource_version.size())),
      owner_size_(static_cast<uint16_t>(owner_pod.size())) {
  const absl::string_view slash = namespace_name.empty() ? "" : "/";
  const absl::string_view parts[] = {namespace_name, slash, name, resource_version, owner_pod};
  size_t size = 0;
  for (absl::string_view part : parts) size += part.size();
  if (size == 0) return;
  data_ = std::make_unique<char[]>(size);
  char* out = data_.get();
  for (absl::string_view part : parts) {
    std::copy(part.begin(), part.end(), out);
    out += part.size();
  }
}

ClaimStrings::ClaimStrings(const ClaimStrings& other)
    : namespace_size_(other.namespace_size_),
      name_size_(other.name_size_),
      version_size_(other.version_size_),
      owner_size_(other.owner_size_) {
  const size_t size = other.key_size() + version_size_ + owner_size_;
  if (size == 0) return;
  data_ = std::make_unique<char[]>(size);
  std::copy(other.data_.get(), other.data_.get() + size, data_.get());
}

ClaimStrings& ClaimStrings::operator=(const ClaimStrings& other) {
  if (this != &other) *this = ClaimStrings(other);
  return *this;
}

ClaimSymbol ResourceClaim::ClassOfResult(const ClaimDeviceResult& result) const {
  absl::string_view request_name = result.request.str();
  absl::string_view subrequest;
  if (size_t slash = request_name.find('/'); slash != absl::string_view::npos) {
    subrequest = request_name.substr(slash + 1);
    request_name = request_name.substr(0, slash);
  }
  for (const ClaimRequest& request : requests) {
    if (request.name != request_name) continue;
    if (subrequest.empty()) {
      return request.subrequests.empty() && !request.device_classes.empty()
                 ? request.device_classes.front()
                 : ClaimSymbol();
    }
    for (size_t i = 0; i < request.subrequests.size(); ++i) {
      if (request.subrequests[i] == subrequest) return request.device_classes[i];
    }
  }
  return ClaimSymbol();
}

bool IsResourceClaim(const json& obj) {
  return meta::MemberEquals(obj, "kind", kClaimKind) &&
         meta::JsonMember(obj, "apiVersion") != nullptr &&
         (*meta::JsonMember(obj, "apiVersion")).is_string() &&
         absl::StartsWith((*meta::JsonMember(obj, "apiVersion")).get<std::string>(),
                          "resource.k8s.io/");
}

absl::StatusOr<ResourceClaim> DecodeResourceClaim(const json& obj) {
  const std::string label = meta::ObjectLabel(obj, kClaimKind);
  FieldErrors errors;
  ResourceClaim claim;
  if (!meta::CheckObject(obj, "(root)", &errors)) return errors.ToStatus(label);
  std::string api_version =
      meta::StringField(obj, "apiVersion", "", /*required=*/true, &errors).value_or("");
  bool v1beta1 = api_version == "resource.k8s.io/v1beta1";
  if (!api_version.empty() && !v1beta1 && api_version != "resource.k8s.io/v1beta2" &&
      api_version != "resource.k8s.io/v1") {
    errors.AddUnsupported(
        "apiVersion", api_version,
        {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"});
  }
  ReadMetadata(obj, &claim, &errors);
  if (const json* spec = meta::ObjectField(obj, "spec", "", /*required=*/true, &errors)) {
    const json* devices = meta::ObjectField(*spec, "devices", "spec", false, &errors);
    const json* requests =
        devices ? meta::ArrayField(*devices, "requests", "spec.devices", false, &errors) : nullptr;
    if (requests != nullptr) {
      for (size_t i = 0; i < requests->size(); ++i) {
        std::string path = meta::FieldIndex("spec.devices.requests", i);
        if (!meta::CheckObject((*requests)[i], path, &errors)) continue;
        ClaimRequest request;
        ReadRequest((*requests)[i], path, v1beta1, &request, &errors);
        claim.requests.push_back(std::move(request));
      }
    }
  }
  if (const json* status = meta::ObjectField(obj, "status", "", false, &errors)) {
    ReadStatus(*status, &claim, &errors);
  }
  if (errors.empty()) return claim;
  return errors.ToStatus(label);
}

absl::StatusOr<std::vector<AllocatedDeviceStatus>> DecodeClaimDeviceStatuses(const json& obj) {
  FieldErrors errors;
  std::vector<AllocatedDeviceStatus> out;
  if (!meta::CheckObject(obj, "(root)", &errors))
    return errors.ToStatus(meta::ObjectLabel(obj, kClaimKind));
  if (const json* status = meta::ObjectField(obj, "status", "", false, &errors)) {
    ReadDeviceStatuses(*status, &out, &errors);
  }
  if (errors.empty()) return out;
  return errors.ToStatus(meta::ObjectLabel(obj, kClaimKind));
}

}  // namespace gpuprofile::dra
