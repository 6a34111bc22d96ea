// File: e2e/emulator/write_handlers.cc
// create, update, patch, delete and deletecollection, with admission.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/api_server.h"
#include "e2e/emulator/claim_status_validation.h"
#include "e2e/emulator/conversion.h"
#include "e2e/emulator/crd.h"
#include "e2e/emulator/discovery.h"
#include "e2e/emulator/list_schema.h"
#include "e2e/emulator/pod_validation.h"
#include "e2e/emulator/quota_admission.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/server_side_apply.h"
#include "e2e/emulator/server_util.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/table.h"
#include "e2e/emulator/validation_rules.h"

namespace gpuprofile::e2e {
namespace {

// A body the API server cannot decode into the Go type (a quantity that does not parse): 400
// with the serializer's wording.
std::string CannotBeHandled(const ResourceType& type, const std::string& version,
                            const absl::Status& status) {
  return absl::StrCat(type.kind, " in version \"", version, "\" cannot be handled as a ", type.kind,
                      ": ", status.message());
}

// The list and map types server-side apply uses for a kind in a version.
std::shared_ptr<const ObjectSchema> SchemaFor(const ResourceType& type,
                                              const std::string& version) {
  if (type.is_custom) {
    auto it = type.schemas.find(version);
    if (it != type.schemas.end()) return CustomResourceSchema(it->second);
    return BuiltinSchema("", "");  // metadata only
  }
  return BuiltinSchema(type.group, type.kind);
}

// The fieldManager query parameter, else the User-Agent's product, else "unknown", as
// kube-apiserver names Update managers.
std::string ManagerOf(const HttpRequest& request) {
  std::string manager = request.Query("fieldManager");
  if (manager.empty()) manager = ManagerFromUserAgent(request.Header("user-agent"));
  if (manager.empty()) manager = "unknown";
  return manager;
}

FieldManagerOperation OperationFor(const ResourceType& type, const ApiServer::Route& route,
                                   std::string manager, std::string time) {
  FieldManagerOperation op;
  op.manager = std::move(manager);
  op.api_version = type.ApiVersion(route.version);
  op.subresource = route.subresource;
  op.time = std::move(time);
  if (route.subresource == "status") {
    op.reset.Insert({"f:spec"});
  } else if (type.status_subresource) {
    op.reset.Insert({"f:status"});
  }
  return op;
}

nlohmann::json WithoutManagedFields(nlohmann::json object) {
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    m->erase("managedFields");
  }
  return object;
}

// Equal managedFields but for their times: kube-apiserver does not store an update that
// changes nothing else (its IgnoreManagedFieldsTimestampsTransformer).
bool SameManagedFieldsIgnoringTimes(const nlohmann::json& a, const nlohmann::json& b) {
  auto strip = [](const nlohmann::json& o) {
    const nlohmann::json* m = Lookup(o, "metadata.managedFields");
    if (!m || !m->is_array()) return nlohmann::json();
    nlohmann::json out = *m;
    for (auto& e : out) {
      if (e.is_object()) e.erase("time");
    }
    return out;
  };
  return strip(a) == strip(b);
}

// Whether FromStorage changes nothing but apiVersion and kind for this version (conversion.h).
bool StorageShapeIsWireShape(const ResourceType& type, const std::string& version) {
  if (type.group == "events.k8s.io") return false;
  if (type.group == "resource.k8s.io" && version == "v1beta1") {
    return type.resource != "resourceclaimtemplates" && type.resource != "resourceclaims" &&
           type.resource != "resourceslices";
  }
  return true;
}

void SetManagedFields(nlohmann::json& object, const nlohmann::json& managed) {
  if (managed.is_null()) {
    object["metadata"].erase("managedFields");
  } else {
    object["metadata"]["managedFields"] = managed;
  }
}

}  // namespace

void ApiServer::TrackManagedFields(const HttpRequest& request, const Route& route,
                                   const ResourceType& type, const nlohmann::json* old,
                                   const nlohmann::json* requested, nlohmann::json& updated) {
  // As kube-apiserver: a request may set managedFields directly (not on a subresource); `[]` or
  // `[{}]` clears them; an empty or undecodable list keeps the live ones.
  ManagedFields base;
  bool from_request = false;
  if (route.subresource.empty() && requested && !requested->is_null()) {
    if (IsResetManagedFields(*requested)) {
      from_request = true;
    } else if (absl::StatusOr<ManagedFields> d = DecodeManagedFields(*requested);
               d.ok() && !d->empty()) {
      base = *std::move(d);
      from_request = true;
    }
  }
  if (!from_request && old) {
    const nlohmann::json* live = Lookup(*old, "metadata.managedFields");
    if (live) {
      if (absl::StatusOr<ManagedFields> d = DecodeManagedFields(*live); d.ok()) {
        base = *std::move(d);
      }
    }
  }
  std::shared_ptr<const ObjectSchema> schema = SchemaFor(type, route.version);
  FieldManagerOperation op = OperationFor(type, route, ManagerOf(request), Timestamp());
  ManagedFields managers;
  static const nlohmann::json kNothing = nlohmann::json::object();
  if (StorageShapeIsWireShape(type, route.version)) {
    // Compared in place: the two forms differ only in apiVersion, and apiVersion, kind and
    // managedFields are never part of a set. Saves two copies of the object per write.
    managers = TrackUpdate(std::move(base), old ? *old : kNothing, updated, schema->root(), op);
  } else {
    nlohmann::json old_wire =
        old ? WithoutManagedFields(FromStorage(type, route.version, *old)) : kNothing;
    nlohmann::json new_wire = WithoutManagedFields(FromStorage(type, route.version, updated));
    managers = TrackUpdate(std::move(base), old_wire, new_wire, schema->root(), op);
  }
  SetManagedFields(updated, EncodeManagedFields(std::move(managers)));
}

std::optional<HttpResponse> ApiServer::Admit(const HttpRequest& request, const ResourceType& type,
                                             const std::string& version, nlohmann::json& object,
                                             const nlohmann::json* old,
                                             std::vector<std::string>& warnings) {
  const std::string name = NameOf(object);
  std::vector<StatusCause> causes;
  if (const nlohmann::json* labels = Lookup(object, "metadata.labels")) {
    if (!labels->is_object()) {
      causes.push_back(FieldInvalid("metadata.labels", *labels, "must be a map"));
    } else {
      for (auto& [k, v] : labels->items()) {
        if (absl::Status s = IsQualifiedName(k); !s.ok()) {
          causes.push_back(FieldInvalid("metadata.labels", k, std::string(s.message())));
        }
        if (!v.is_string()) {
          causes.push_back(
              FieldInvalid(absl::StrCat("metadata.labels[", k, "]"), v, "must be a string"));
        } else if (absl::Status s = IsLabelValue(v.get<std::string>()); !s.ok()) {
          causes.push_back(FieldInvalid("metadata.labels", v, std::string(s.message())));
        }
      }
    }
  }
  if (type.group == "resource.k8s.io") {
    nlohmann::json wire = FromStorage(type, version, object);
    absl::Status decoded = absl::OkStatus();
    if (type.resource == "deviceclasses") decoded = dra::DecodeDeviceClass(wire).status();
    if (type.resource == "resourceclaimtemplates") {
      decoded = dra::DecodeResourceClaimTemplate(wire).status();
    }
    if (!decoded.ok() && decoded.code() == absl::StatusCode::kInvalidArgument &&
        std::string(decoded.message()).find("must be") != std::string::npos) {
      // Type errors are decoding errors on a real server (400), not validation (422).
      return ErrorResponse(BadRequest(std::string(decoded.message())));
    }
    std::vector<std::string> unknown = UnknownDraFields(type, options_.kube_version, wire);
    if (!unknown.empty()) {
      const std::string mode = request.Query("fieldValidation");
      if (mode == "Strict") {
        std::vector<std::string> parts;
        for (const std::string& f : unknown) {
          parts.push_back(absl::StrCat("unknown field \"", f, "\""));
        }
        return ErrorResponse(
            BadRequest(absl::StrCat("strict decoding error: ", absl::StrJoin(parts, ", "))));
      }
      if (mode != "Ignore") {
        for (const std::string& f : unknown) {
          warnings.push_back(absl::StrCat("unknown field \\\"", f, "\\\""));
        }
      }
    }
    if (absl::Status s = CanonicalizeDraQuantities(type, options_.kube_version, object); !s.ok()) {
      return ErrorResponse(BadRequest(CannotBeHandled(type, version, s)));
    }
    DefaultDra(type, gates_, object, old);
    std::vector<StatusCause> dra = ValidateDra(type, options_.kube_version, gates_, object, old);
    causes.insert(causes.end(), dra.begin(), dra.end());
  }
  if (type.is_custom) {
    auto schema = type.schemas.find(version);
    if (schema != type.schemas.end()) {
      SchemaOutcome outcome = ApplyStructuralSchema(schema->second, object);
      if (!outcome.pruned_fields.empty()) {
        std::string mode = request.Query("fieldValidation");
        if (mode == "Strict") {
          std::vector<std::string> parts;
          for (const std::string& f : outcome.pruned_fields) {
            parts.push_back(absl::StrCat("unknown field \"", f, "\""));
          }
          return ErrorResponse(
              BadRequest(absl::StrCat("strict decoding error: ", absl::StrJoin(parts, ", "))));
        }
        if (mode != "Ignore") {
          for (const std::string& f : outcome.pruned_fields) {
            warnings.push_back(absl::StrCat("unknown field \\\"", f, "\\\""));
          }
        }
      }
      causes.insert(causes.end(), outcome.errors.begin(), outcome.errors.end());
      if (HasBlockingSchemaError(outcome.errors)) {
        causes.push_back(RulesNotCheckedCause());
      } else {
        RulesOutcome rules = ApplyValidationRules(schema->second, object, old);
        causes.insert(causes.end(), rules.errors.begin(), rules.errors.end());
        warnings.insert(warnings.end(), rules.warnings.begin(), rules.warnings.end());
      }
    }
  }
  if (type.storage_key == kQuotaKey) {
    if (absl::Status s = CheckQuotaQuantities(object); !s.ok()) {
      return ErrorResponse(BadRequest(CannotBeHandled(type, version, s)));
    }
    std::vector<StatusCause> quota = ValidateResourceQuota(object);
    causes.insert(causes.end(), quota.begin(), quota.end());
    if (causes.empty()) {
      CanonicalizeQuotaQuantities(object);
      SyncResourceQuotaStatus(object);
      ApplyResourceClaimUsage(ResourceClaimUsage(store_.List(kClaimKey, NamespaceOf(object))),
                              object);
    }
  }
  if (type.storage_key == "pods") {
    std::vector<StatusCause> pod = ValidatePodResourceClaims(object);
    causes.insert(causes.end(), pod.begin(), pod.end());
  }
  if (type.storage_key == kCrdKey) {
    std::vector<StatusCause> crd = ValidateCrd(object);
    causes.insert(causes.end(), crd.begin(), crd.end());
  }
  // Warnings of the decoding (unknown fields) go out with a rejection too.
  if (!causes.empty()) {
    return WithWarnings(ErrorResponse(Invalid(type.kind, type.group, name, causes)), warnings);
  }
  return std::nullopt;
}

HttpResponse ApiServer::CreateObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type, const std::string& body,
                                     const nlohmann::json* applied_managed_fields) {
  nlohmann::json object = nlohmann::json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return ErrorResponse(BadRequest("couldn't get version/kind; json parse error: invalid JSON"));
  }
  std::optional<nlohmann::json> requested_managed;
  if (const nlohmann::json* mf = Lookup(object, "metadata.managedFields")) requested_managed = *mf;
  std::string want_av = type.ApiVersion(route.version);
  if (object.contains("apiVersion") && object["apiVersion"] != want_av) {
    return ErrorResponse(BadRequest(
        absl::StrCat("the API version in the data (",
                     object["apiVersion"].is_string() ? object["apiVersion"].get<std::string>()
                                                      : object["apiVersion"].dump(),
                     ") does not match the expected API version (", want_av, ")")));
  }
  if (object.contains("kind") && object["kind"] != type.kind) {
    return ErrorResponse(
        BadRequest(absl::StrCat("the kind in the data (", object["kind"].dump(),
                                ") does not match the expected kind (", type.kind, ")")));
  }
  if (!object.contains("metadata")) object["metadata"] = nlohmann::json::object();
  if (!object["metadata"].is_object()) {
    return ErrorResponse(BadRequest("metadata must be an object"));
  }
  DropEmptyMetadata(object);
  nlohmann::json& meta = object["metadata"];
  if (type.namespaced) {
    std::string body_ns = NamespaceOf(object);
    if (!body_ns.empty() && body_ns != route.ns) {
      return ErrorResponse(BadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
    meta["namespace"] = route.ns;
  } else {
    meta.erase("namespace");
  }
  if (NameOf(object).empty()) {
    std::string prefix = FieldString(object, "metadata.generateName");
    if (prefix.empty()) {
      return ErrorResponse(
          Invalid(type.kind, type.group, "",
                  {FieldRequired("metadata.name", "name or generateName is required")}));
    }
    static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += kAlphabet[random_() % (sizeof(kAlphabet) - 1)];
    meta["name"] = prefix + suffix;
  }
  const std::string name = NameOf(object);
  absl::Status name_ok =
      type.storage_key == "namespaces" ? IsDnsLabel(name) : IsDnsSubdomain(name);
  if (!name_ok.ok()) {
    return ErrorResponse(
        Invalid(type.kind, type.group, name,
                {FieldInvalid("metadata.name", name, std::string(name_ok.message()))}));
  }
  if (type.namespaced) {
    ObjectPtr ns = store_.Get("namespaces", "", route.ns);
    if (!ns) return ErrorResponse(NotFound({"", "namespaces"}, route.ns));
    if (Deleting(*ns)) {
      ApiError e = Forbidden(type.group_resource(), name,
                             absl::StrCat("unable to create new content in namespace ", route.ns,
                                          " because it is being terminated"));
      e.causes.push_back({"NamespaceTerminating",
                          absl::StrCat("namespace ", route.ns, " is being terminated"),
                          "metadata.namespace"});
      return ErrorResponse(e);
    }
  }
  if (store_.Get(type.storage_key, route.ns, name)) {
    return ErrorResponse(AlreadyExists(type.group_resource(), name));
  }
  nlohmann::json stored = ToStorage(type, route.version, std::move(object));
  nlohmann::json& m = stored["metadata"];
  // -f seeds keep a uid they carry, so fixtures can name each other as owners (Nodes owning
  // ResourceSlices), as objects restored from a backup would; API clients never choose uids.
  if (!seeding_ || !m.contains("uid") || !m["uid"].is_string() ||
      m["uid"].get<std::string>().empty()) {
    m["uid"] = NewUid();
  }
  m["creationTimestamp"] = Timestamp();
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  m.erase("resourceVersion");
  m.erase("managedFields");
  if (seeding_ && requested_managed) m["managedFields"] = *requested_managed;
  if (type.tracks_generation) {
    m["generation"] = 1;
  } else {
    m.erase("generation");
  }
  // The field manager sees the object before the namespace strategy adds its finalizer and
  // name label (kube-apiserver tracks a create before PrepareForCreate).
  std::optional<nlohmann::json> tracked_form;
  if (type.storage_key == "namespaces") tracked_form = stored;
  if (type.storage_key == "namespaces") {
    stored["spec"]["finalizers"] = {"kubernetes"};
    stored["status"] = {{"phase", "Active"}};
    if (!stored["metadata"].contains("labels"))
      stored["metadata"]["labels"] = nlohmann::json::object();
    stored["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
  }
  if ((type.is_custom || type.resource == "resourceclaims" || type.storage_key == kQuotaKey) &&
      type.status_subresource && !seeding_) {
    stored.erase("status");
  }
  std::vector<std::string> warnings;
  if (std::optional<HttpResponse> rejected =
          Admit(request, type, route.version, stored, nullptr, warnings)) {
    return *rejected;
  }
  if (type.storage_key == kCrdKey) {
    std::vector<std::string> fin = Finalizers(stored);
    if (std::find(fin.begin(), fin.end(), kCrdFinalizer) == fin.end()) fin.push_back(kCrdFinalizer);
    SetFinalizers(stored, fin);
    nlohmann::json names = stored["spec"]["names"];
    if (!names.contains("singular")) {
      std::string s = names.value("kind", "");
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      names["singular"] = s;
    }
    if (!names.contains("listKind")) names["listKind"] = names.value("kind", "") + "List";
    stored["spec"]["names"] = names;
    std::string storage;
    for (const auto& v : stored["spec"]["versions"]) {
      if (v.value("storage", false)) storage = v.value("name", "");
    }
    std::string now = Timestamp();
    stored["status"] = {{"acceptedNames", names},
                        {"storedVersions", {storage}},
                        {"conditions",
                         {{{"type", "NamesAccepted"},
                           {"status", "True"},
                           {"reason", "NoConflicts"},
                           {"message", "no conflicts found"},
                           {"lastTransitionTime", now}},
                          {{"type", "Established"},
                           {"status", "True"},
                           {"reason", "InitialNamesAccepted"},
                           {"message", "the initial names have been accepted"},
                           {"lastTransitionTime", now}}}}};
  }
  if (applied_managed_fields) {
    SetManagedFields(stored, *applied_managed_fields);
  } else if (!seeding_) {
    nlohmann::json& tracked = tracked_form ? *tracked_form : stored;
    TrackManagedFields(request, route, type, nullptr,
                       requested_managed ? &*requested_managed : nullptr, tracked);
    if (tracked_form) {
      SetManagedFields(stored, tracked_form->value("metadata", nlohmann::json::object())
                                   .value("managedFields", nlohmann::json()));
    }
  }
  if (request.Query("dryRun") == "All") {
    return WithWarnings(JsonResponse(201, FromStorage(type, route.version, stored)), warnings);
  }
  ObjectPtr created = store_.Create(type.storage_key, std::move(stored));
  if (type.storage_key == kCrdKey) OnCrdWritten(*created);
  if (type.storage_key == kClaimKey) SyncClaimQuotas(NamespaceOf(*created));
  Collect(created.get());
  return WithWarnings(JsonResponse(201, FromStorage(type, route.version, *created)), warnings);
}

HttpResponse ApiServer::UpdateObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type, const std::string& body,
                                     bool is_patch, const nlohmann::json* applied_managed_fields) {
  nlohmann::json object = nlohmann::json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return ErrorResponse(BadRequest("couldn't get version/kind; json parse error: invalid JSON"));
  }
  std::optional<nlohmann::json> requested_managed;
  if (const nlohmann::json* mf = Lookup(object, "metadata.managedFields")) requested_managed = *mf;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = nlohmann::json::object();
  }
  DropEmptyMetadata(object);
  std::string body_name = NameOf(object);
  if (!body_name.empty() && body_name != route.name) {
    return ErrorResponse(
        BadRequest(absl::StrCat("the name of the object (", body_name,
                                ") does not match the name on the URL (", route.name, ")")));
  }
  if (type.namespaced && !NamespaceOf(object).empty() && NamespaceOf(object) != route.ns) {
    return ErrorResponse(
        BadRequest("the namespace of the provided object does not match the namespace sent on the "
                   "request"));
  }
  std::string want_av = type.ApiVersion(route.version);
  if (object.contains("apiVersion") && object["apiVersion"] != want_av) {
    return ErrorResponse(
        BadRequest(absl::StrCat("the API version in the data (", object["apiVersion"].dump(),
                                ") does not match the expected API version (", want_av, ")")));
  }
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  std::string rv = FieldString(object, "metadata.resourceVersion");
  if (!rv.empty() && rv != FieldString(*old, "metadata.resourceVersion")) {
    return ErrorResponse(StaleConflict(type.group_resource(), route.name));
  }
  object["metadata"]["name"] = route.name;
  if (type.namespaced) object["metadata"]["namespace"] = route.ns;
  nlohmann::json incoming = ToStorage(type, route.version, std::move(object));
  nlohmann::json updated;
  if (route.subresource == "status") {
    updated = *old;
    if (incoming.contains("status")) {
      updated["status"] = incoming["status"];
    } else {
      updated.erase("status");
    }
  } else {
    updated = std::move(incoming);
    if (type.status_subresource) {
      if (old->contains("status")) {
        updated["status"] = (*old)["status"];
      } else {
        updated.erase("status");
      }
    }
    nlohmann::json& m = updated["metadata"];
    const nlohmann::json& om = (*old)["metadata"];
    for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "generation", "namespace"}) {
      if (om.contains(k)) {
        m[k] = om[k];
      } else {
        m.erase(k);
      }
    }
    m.erase("managedFields");
    if (type.storage_key == "namespaces") {
      if (old->contains("spec")) updated["spec"] = (*old)["spec"];
    }
    if (type.storage_key == kCrdKey) {
      // The cleanup finalizer stays until the server removes it.
      std::vector<std::string> fin = Finalizers(updated);
      if (std::find(fin.begin(), fin.end(), kCrdFinalizer) == fin.end() &&
          !Finalizers(*old).empty()) {
        std::vector<std::string> old_fin = Finalizers(*old);
        if (std::find(old_fin.begin(), old_fin.end(), kCrdFinalizer) != old_fin.end()) {
          fin.push_back(kCrdFinalizer);
        }
      }
      SetFinalizers(updated, fin);
    }
  }
  std::vector<std::string> warnings;
  if (route.subresource.empty()) {
    if (std::optional<HttpResponse> rejected =
            Admit(request, type, route.version, updated, old.get(), warnings)) {
      return *rejected;
    }
  } else if (type.is_custom) {
    if (std::optional<HttpResponse> rejected =
            Admit(request, type, route.version, updated, old.get(), warnings)) {
      return *rejected;
    }
  } else if (type.storage_key == kClaimKey) {
    if (std::optional<HttpResponse> rejected =
            AdmitClaimStatus(options_.kube_version, gates_, request.Query("fieldValidation"),
                             updated, *old, warnings)) {
      return *rejected;
    }
  } else if (type.storage_key == kQuotaKey) {
    if (absl::Status s = CheckQuotaQuantities(updated); !s.ok()) {
      return ErrorResponse(BadRequest(CannotBeHandled(type, route.version, s)));
    }
    std::vector<StatusCause> causes = ValidateResourceQuotaStatus(updated);
    if (!causes.empty()) {
      return ErrorResponse(Invalid(type.kind, type.group, route.name, std::move(causes)));
    }
    CanonicalizeQuotaQuantities(updated);
  }
  if (type.tracks_generation && route.subresource.empty() &&
      GenerationRelevant(updated, type.status_subresource) !=
          GenerationRelevant(*old, type.status_subresource)) {
    int64_t gen = 0;
    if (const nlohmann::json* g = Lookup(*old, "metadata.generation"); g && g->is_number()) {
      gen = g->get<int64_t>();
    }
    updated["metadata"]["generation"] = gen + 1;
  }
  (void)is_patch;
  if (applied_managed_fields) {
    SetManagedFields(updated, *applied_managed_fields);
  } else if (!seeding_) {
    TrackManagedFields(request, route, type, old.get(),
                       requested_managed ? &*requested_managed : nullptr, updated);
  } else if (requested_managed) {
    updated["metadata"]["managedFields"] = *requested_managed;
  }
  if (WithoutVolatile(updated) == WithoutVolatile(*old) &&
      SameManagedFieldsIgnoringTimes(updated, *old)) {
    return WithWarnings(JsonResponse(200, FromStorage(type, route.version, *old)), warnings);
  }
  if (request.Query("dryRun") == "All") {
    return WithWarnings(JsonResponse(200, FromStorage(type, route.version, updated)), warnings);
  }
  ObjectPtr result;
  if (Deleting(updated) && Finalizers(updated).empty() && type.storage_key != "namespaces") {
    result = Remove(type.storage_key, updated);
  } else {
    result = store_.Update(type.storage_key, std::move(updated));
    if (type.storage_key == kCrdKey) OnCrdWritten(*result);
  }
  Collect(Deleting(*result) ? nullptr : result.get());
  return WithWarnings(JsonResponse(200, FromStorage(type, route.version, *result)), warnings);
}

HttpResponse ApiServer::PatchObject(const HttpRequest& request, const Route& route,
                                    const ResourceType& type) {
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  std::string media = MediaType(request.Header("content-type"));
  bool merge = media == "application/merge-patch+json";
  bool strategic = media == "application/strategic-merge-patch+json";
  bool json_patch = media == "application/json-patch+json";
  if (media == "application/apply-patch+yaml") return ApplyObject(request, route, type);
  if (request.HasQuery("force")) {
    return ErrorResponse(
        Invalid("PatchOptions", "meta.k8s.io", "",
                {FieldForbidden("force", "may not be specified for non-apply patch")}));
  }
  if (strategic && type.is_custom) return ErrorResponse(UnsupportedMediaType(media));
  if (!merge && !strategic && !json_patch) return ErrorResponse(UnsupportedMediaType(media));
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json patch = nlohmann::json::parse(request.body, nullptr, false);
  if (patch.is_discarded()) {
    return ErrorResponse(BadRequest("error decoding patch: invalid JSON"));
  }
  nlohmann::json current = FromStorage(type, route.version, *old);
  nlohmann::json patched;
  try {
    if (json_patch) {
      if (!patch.is_array()) {
        return ErrorResponse(
            BadRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch"));
      }
      patched = current.patch(patch);
    } else {
      if (!patch.is_object()) {
        return ErrorResponse(BadRequest("error decoding patch: the patch must be a JSON object"));
      }
      if (strategic) StripDirectives(patch);
      patched = current;
      patched.merge_patch(patch);
    }
  } catch (const nlohmann::json::exception& e) {
    ApiError err = Invalid("", "", "", {});
    err.causes.clear();
    err.message = (absl::StrCat("the server rejected our request due to an error in our request: ",
                                e.what()));
    return ErrorResponse(err);
  }
  // A resourceVersion in the patch is a precondition; otherwise the patch applies to the
  // current version.
  if (!patched.is_object()) return ErrorResponse(BadRequest("the patched object is not an object"));
  return UpdateObject(request, route, type, patched.dump(), true);
}

HttpResponse ApiServer::ApplyObject(const HttpRequest& request, const Route& route,
                                    const ResourceType& type) {
  // PatchOptions are validated before anything else.
  const std::string manager = request.Query("fieldManager");
  if (manager.empty()) {
    return ErrorResponse(Invalid("PatchOptions", "meta.k8s.io", "",
                                 {FieldRequired("fieldManager", "is required for apply patch")}));
  }
  bool force = false;
  if (request.HasQuery("force")) {
    std::optional<bool> f = ParseBool(request.Query("force"));
    if (!f) return ErrorResponse(BadRequest("invalid value for force: " + request.Query("force")));
    force = *f;
  }
  nlohmann::json config;
  {
    absl::StatusOr<std::vector<dra::ManifestObject>> parsed =
        dra::ParseManifests(request.body, "apply-patch");
    if (!parsed.ok()) {
      return ErrorResponse(
          BadRequest(absl::StrCat("error decoding YAML: ", parsed.status().message())));
    }
    if (parsed->size() != 1 || !(*parsed)[0].object.is_object()) {
      return ErrorResponse(BadRequest("error decoding YAML: the body must hold one object"));
    }
    config = std::move((*parsed)[0].object);
  }
  if (!config.contains("metadata") || !config["metadata"].is_object()) {
    config["metadata"] = nlohmann::json::object();
  }
  // kube-apiserver's field manager checks the group, version and kind first
  // (versionCheckManager), then managedFields (structuredMergeManager).
  const std::string want_av = type.ApiVersion(route.version);
  const std::string got_av = config.value("apiVersion", "");
  const std::string got_kind = config.value("kind", "");
  if (got_av != want_av || got_kind != type.kind) {
    size_t slash = got_av.find('/');
    std::string group = slash == std::string::npos ? "" : got_av.substr(0, slash);
    std::string version = slash == std::string::npos ? got_av : got_av.substr(slash + 1);
    return ErrorResponse(BadRequest(
        absl::StrCat("invalid object type: ", group, "/", version, ", Kind=", got_kind)));
  }
  if (const nlohmann::json* mf = Lookup(config, "metadata.managedFields"); mf && !mf->is_null()) {
    return ErrorResponse(BadRequest("metadata.managedFields must be nil"));
  }
  std::string body_name = NameOf(config);
  if (body_name.empty()) {
    config["metadata"]["name"] = route.name;
  } else if (body_name != route.name) {
    return ErrorResponse(
        BadRequest(absl::StrCat("the name of the object (", body_name,
                                ") does not match the name on the URL (", route.name, ")")));
  }
  if (type.namespaced && !NamespaceOf(config).empty() && NamespaceOf(config) != route.ns) {
    return ErrorResponse(
        BadRequest("the namespace of the provided object does not match the namespace sent on the "
                   "request"));
  }
  if (route.subresource == "status") {
    // /status takes only status (its strategy resets the rest).
    nlohmann::json only = {{"apiVersion", config["apiVersion"]},
                           {"kind", config["kind"]},
                           {"metadata", nlohmann::json::object()}};
    for (const char* k : {"name", "namespace", "resourceVersion"}) {
      if (config["metadata"].contains(k)) only["metadata"][k] = config["metadata"][k];
    }
    if (config.contains("status")) only["status"] = config["status"];
    config = std::move(only);
  }
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  if (!old && !route.subresource.empty()) {
    return ErrorResponse(NotFound(type.group_resource(), route.name));
  }
  ManagedFields managers;
  nlohmann::json live = nlohmann::json::object();
  if (old) {
    if (const nlohmann::json* mf = Lookup(*old, "metadata.managedFields")) {
      if (absl::StatusOr<ManagedFields> d = DecodeManagedFields(*mf); d.ok()) {
        managers = *std::move(d);
      }
    }
    live = WithoutManagedFields(FromStorage(type, route.version, *old));
  }
  std::shared_ptr<const ObjectSchema> schema = SchemaFor(type, route.version);
  if (old && managers.empty()) {
    // An object without managedFields (a -f seed, or one a client cleared): kube-apiserver first
    // records an Update of all of it by "before-first-apply", so an applier conflicts with what
    // it did not set.
    managers = TrackUpdate({}, nlohmann::json::object(), live, schema->root(),
                           OperationFor(type, route, "before-first-apply", Timestamp()));
  }
  ApplyOutcome outcome = Apply(live, config, std::move(managers), schema->root(),
                               OperationFor(type, route, manager, Timestamp()), force);
  if (!outcome.conflicts.empty()) {
    std::vector<StatusCause> causes;
    for (const auto& c : outcome.conflicts) {
      causes.push_back(
          {"FieldManagerConflict", absl::StrCat("conflict with ", c.manager), PathString(c.path)});
    }
    return ErrorResponse(ApplyConflictError(std::move(causes), ConflictMessage(outcome.conflicts)));
  }
  nlohmann::json managed = EncodeManagedFields(std::move(outcome.managers));
  if (!old) {
    if (!outcome.object.contains("apiVersion")) outcome.object["apiVersion"] = want_av;
    if (!outcome.object.contains("kind")) outcome.object["kind"] = type.kind;
    return CreateObject(request, route, type, outcome.object.dump(), &managed);
  }
  return UpdateObject(request, route, type, outcome.object.dump(), true, &managed);
}

HttpResponse ApiServer::DeleteObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type) {
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json options = nlohmann::json::object();
  if (!request.body.empty()) {
    options = nlohmann::json::parse(request.body, nullptr, false);
    if (options.is_discarded() || !options.is_object()) {
      return ErrorResponse(BadRequest("couldn't decode DeleteOptions: invalid JSON"));
    }
  }
  std::string policy = options.value("propagationPolicy", request.Query("propagationPolicy"));
  if (policy.empty()) {
    if (options.contains("orphanDependents") && options["orphanDependents"] == true) {
      policy = "Orphan";
    } else {
      policy = "Background";
    }
  }
  if (policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return ErrorResponse(Invalid(
        "DeleteOptions", "", "",
        {FieldNotSupported("propagationPolicy", policy, {"Background", "Foreground", "Orphan"})}));
  }
  if (const nlohmann::json* pre = Lookup(options, "preconditions"); pre && pre->is_object()) {
    std::string uid = pre->value("uid", "");
    std::string rv = pre->value("resourceVersion", "");
    if (!uid.empty() && uid != Uid(*old)) {
      return ErrorResponse(Conflict(type.group_resource(), route.name,
                                    absl::StrCat("Precondition failed: UID in precondition: ", uid,
                                                 ", UID in object meta: ", Uid(*old))));
    }
    std::string current_rv = FieldString(*old, "metadata.resourceVersion");
    if (!rv.empty() && rv != current_rv) {
      return ErrorResponse(
          Conflict(type.group_resource(), route.name,
                   absl::StrCat("Precondition failed: ResourceVersion in precondition: ", rv,
                                ", ResourceVersion in object meta: ", current_rv)));
    }
  }
  if (request.Query("dryRun") == "All") {
    return JsonResponse(200, FromStorage(type, route.version, *old));
  }
  auto [result, gone] = StartDelete(type.storage_key, old, policy);
  Collect();
  if (gone) {
    nlohmann::json details = {{"name", route.name}, {"kind", type.resource}, {"uid", Uid(*old)}};
    if (!type.group.empty()) details["group"] = type.group;
    return JsonResponse(200, {{"kind", "Status"},
                              {"apiVersion", "v1"},
                              {"metadata", nlohmann::json::object()},
                              {"status", "Success"},
                              {"details", details}});
  }
  ObjectPtr now = store_.Get(type.storage_key, route.ns, route.name);
  return JsonResponse(200, FromStorage(type, route.version, now ? *now : *result));
}

HttpResponse ApiServer::DeleteCollection(const HttpRequest& request, const Route& route,
                                         const ResourceType& type) {
  absl::StatusOr<Selectors> selectors =
      ParseSelectors(request.Query("labelSelector"), request.Query("fieldSelector"));
  if (!selectors.ok()) {
    return ErrorResponse(BadRequest(std::string(selectors.status().message())));
  }
  nlohmann::json items = nlohmann::json::array();
  for (const ObjectPtr& o : store_.List(type.storage_key, route.ns)) {
    nlohmann::json wire = FromStorage(type, route.version, *o);
    if (!MatchesLabels(selectors->labels, wire) || !MatchesFields(selectors->fields, wire))
      continue;
    ObjectPtr current = store_.Get(type.storage_key, NamespaceOf(*o), NameOf(*o));
    if (!current) continue;
    StartDelete(type.storage_key, current, "Background");
    items.push_back(wire);
  }
  Collect();
  return JsonResponse(
      200, {{"kind", type.list_kind},
            {"apiVersion", type.ApiVersion(route.version)},
            {"metadata", {{"resourceVersion", std::to_string(store_.resource_version())}}},
            {"items", items}});
}

}  // namespace gpuprofile::e2e
