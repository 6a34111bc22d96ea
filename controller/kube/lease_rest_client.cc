// File: controller/kube/lease_rest_client.cc
#include "controller/kube/lease_rest_client.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "controller/kube/api_error.h"
#include "controller/runtime/event.h"

namespace gpuprofile::kube {
namespace {

const ResourcePath kLeases{"coordination.k8s.io", "v1", "leases", "", "", ""};

std::string Key(const std::string& namespace_name, const std::string& name) {
  return absl::StrCat(namespace_name, "/", name);
}

// `status` with canonical code `code`, keeping its message and payloads (the ApiError).
absl::Status WithCode(const absl::Status& status, absl::StatusCode code) {
  if (status.code() == code) return status;
  absl::Status out(code, status.message());
  status.ForEachPayload(
      [&out](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

// The codes lease_client.h promises, from the typed API error.
absl::Status MapError(const absl::Status& status) {
  if (apierrors::IsNotFound(status)) return WithCode(status, absl::StatusCode::kNotFound);
  if (apierrors::IsAlreadyExists(status)) {
    return WithCode(status, absl::StatusCode::kAlreadyExists);
  }
  if (apierrors::IsConflict(status)) return WithCode(status, absl::StatusCode::kAborted);
  return status;
}

absl::Status LeaseFieldError(const runtime::Lease& lease, absl::string_view field,
                        absl::string_view problem) {
  return absl::DataLossError(
      absl::StrCat("Lease ", lease.namespace_name, "/", lease.name, ": ", field, " ", problem));
}

absl::StatusOr<std::string> StringField(const runtime::Lease& lease, const nlohmann::json& object,
                                        const char* key, absl::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return LeaseFieldError(lease, field, "is not a string");
  return it->get<std::string>();
}

absl::StatusOr<int32_t> Int32Field(const runtime::Lease& lease, const nlohmann::json& object,
                                   const char* key, absl::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) return LeaseFieldError(lease, field, "is not an integer");
  const int64_t value = it->get<int64_t>();
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return LeaseFieldError(lease, field, absl::StrCat("is out of range: ", value));
  }
  return static_cast<int32_t>(value);
}

absl::StatusOr<absl::Time> TimeField(const runtime::Lease& lease, const nlohmann::json& object,
                                     const char* key, absl::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::UnixEpoch();
  if (!it->is_string()) return LeaseFieldError(lease, field, "is not a string");
  absl::StatusOr<absl::Time> time = ParseMicroTime(it->get<std::string>());
  if (!time.ok()) return LeaseFieldError(lease, field, time.status().message());
  return *time;
}

}  // namespace

absl::StatusOr<absl::Time> ParseMicroTime(absl::string_view text) {
  absl::Time time;
  std::string error;
  // %E*S takes any number of fractional digits (or none); %Ez takes "Z" or an offset.
  if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*S%Ez", text, &time, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not an RFC 3339 time (", error, ")"));
  }
  return time;
}

nlohmann::json EncodeLease(const runtime::Lease& lease, const nlohmann::json& base) {
  nlohmann::json out = base.is_object() ? base : nlohmann::json::object();
  out["apiVersion"] = "coordination.k8s.io/v1";
  out["kind"] = "Lease";
  nlohmann::json& metadata = out["metadata"];
  if (!metadata.is_object()) metadata = nlohmann::json::object();
  metadata["name"] = lease.name;
  metadata["namespace"] = lease.namespace_name;
  if (lease.resource_version.empty()) {
    metadata.erase("resourceVersion");
  } else {
    metadata["resourceVersion"] = lease.resource_version;
  }
  nlohmann::json& spec = out["spec"];
  if (!spec.is_object()) spec = nlohmann::json::object();
  const runtime::LeaseSpec& s = lease.spec;
  // client-go always writes these five, an empty holder included (a released Lease).
  spec["holderIdentity"] = s.holder_identity;
  spec["leaseDurationSeconds"] = s.lease_duration_seconds;
  spec["acquireTime"] = runtime::FormatMicroTime(s.acquire_time);
  spec["renewTime"] = runtime::FormatMicroTime(s.renew_time);
  spec["leaseTransitions"] = s.lease_transitions;
  return out;
}

absl::StatusOr<runtime::Lease> DecodeLease(const nlohmann::json& object) {
  runtime::Lease lease;
  if (!object.is_object()) return absl::DataLossError("Lease: the object is not a JSON object");
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return absl::DataLossError("Lease: metadata is missing");
  }
  {
    absl::StatusOr<std::string> name = StringField(lease, *metadata, "name", "metadata.name");
    if (!name.ok()) return name.status();
    lease.name = *name;
    absl::StatusOr<std::string> ns =
        StringField(lease, *metadata, "namespace", "metadata.namespace");
    if (!ns.ok()) return ns.status();
    lease.namespace_name = *ns;
    absl::StatusOr<std::string> rv =
        StringField(lease, *metadata, "resourceVersion", "metadata.resourceVersion");
    if (!rv.ok()) return rv.status();
    lease.resource_version = *rv;
  }
  auto spec = object.find("spec");
  if (spec == object.end() || spec->is_null()) return lease;
  if (!spec->is_object()) return LeaseFieldError(lease, "spec", "is not an object");
  runtime::LeaseSpec& s = lease.spec;
  absl::StatusOr<std::string> holder =
      StringField(lease, *spec, "holderIdentity", "spec.holderIdentity");
  if (!holder.ok()) return holder.status();
  s.holder_identity = *holder;
  absl::StatusOr<int32_t> duration =
      Int32Field(lease, *spec, "leaseDurationSeconds", "spec.leaseDurationSeconds");
  if (!duration.ok()) return duration.status();
  s.lease_duration_seconds = *duration;
  absl::StatusOr<int32_t> transitions =
      Int32Field(lease, *spec, "leaseTransitions", "spec.leaseTransitions");
  if (!transitions.ok()) return transitions.status();
  s.lease_transitions = *transitions;
  absl::StatusOr<absl::Time> acquire = TimeField(lease, *spec, "acquireTime", "spec.acquireTime");
  if (!acquire.ok()) return acquire.status();
  s.acquire_time = *acquire;
  absl::StatusOr<absl::Time> renew = TimeField(lease, *spec, "renewTime", "spec.renewTime");
  if (!renew.ok()) return renew.status();
  s.renew_time = *renew;
  return lease;
}

absl::StatusOr<runtime::Lease> RestLeaseClient::Remember(nlohmann::json object) {
  absl::StatusOr<runtime::Lease> lease = DecodeLease(object);
  if (!lease.ok()) return lease.status();
  absl::MutexLock lock(&mu_);
  last_seen_[Key(lease->namespace_name, lease->name)] = std::move(object);
  return lease;
}

absl::StatusOr<runtime::Lease> RestLeaseClient::Get(const std::string& namespace_name,
                                                    const std::string& name) {
  absl::StatusOr<nlohmann::json> object =
      client_->Get(kLeases.WithNamespace(namespace_name).WithName(name));
  if (!object.ok()) {
    if (apierrors::IsNotFound(object.status())) {
      absl::MutexLock lock(&mu_);
      last_seen_.erase(Key(namespace_name, name));
    }
    return MapError(object.status());
  }
  return Remember(*std::move(object));
}

absl::StatusOr<runtime::Lease> RestLeaseClient::Create(const runtime::Lease& lease) {
  runtime::Lease fresh = lease;
  fresh.resource_version.clear();
  absl::StatusOr<nlohmann::json> object =
      client_->Create(kLeases.WithNamespace(lease.namespace_name), EncodeLease(fresh));
  if (!object.ok()) return MapError(object.status());
  return Remember(*std::move(object));
}

absl::StatusOr<runtime::Lease> RestLeaseClient::Update(const runtime::Lease& lease) {
  if (lease.resource_version.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("update of Lease ", lease.namespace_name, "/",
                                                   lease.name, ": resourceVersion is required"));
  }
  nlohmann::json base;
  {
    absl::MutexLock lock(&mu_);
    auto it = last_seen_.find(Key(lease.namespace_name, lease.name));
    if (it != last_seen_.end()) {
      const nlohmann::json* rv = nullptr;
      if (auto m = it->second.find("metadata"); m != it->second.end() && m->is_object()) {
        if (auto r = m->find("resourceVersion"); r != m->end()) rv = &*r;
      }
      if (rv != nullptr && rv->is_string() && rv->get<std::string>() == lease.resource_version) {
        base = it->second;
      }
    }
  }
  // Server-owned bookkeeping is not sent back.
  if (auto m = base.find("metadata"); base.is_object() && m != base.end() && m->is_object()) {
    m->erase("managedFields");
  }
  absl::StatusOr<nlohmann::json> object = client_->Update(
      kLeases.WithNamespace(lease.namespace_name).WithName(lease.name), EncodeLease(lease, base));
  if (!object.ok()) return MapError(object.status());
  return Remember(*std::move(object));
}

}  // namespace gpuprofile::kube
