// File: controller/dra/dra_object_codec.h
// Per-version JSON for the DRA objects the operator writes (DeviceClass, ResourceClaimTemplate),
// decoding of the same objects read back from a server or from files, and the comparison that
// drift detection uses.
//
// Shapes (docs/dra-reference.md §2):
// - DeviceClass: spec.selectors[{cel:{expression}}], spec.config[{opaque:{driver, parameters}}],
//   spec.extendedResourceName (only in the 1.34+ schemas of every version).
// - ResourceClaimTemplate: spec.metadata{labels, annotations}, spec.spec.devices{requests, config}.
//   A request is exact or a prioritized list:
//   - exact, v1beta1 (flat): {name, deviceClassName, selectors, allocationMode, count,
//     adminAccess, tolerations, capacity}; v1beta2 and v1 nest all but the name under `exactly`.
//   - prioritized list, every version: {name, firstAvailable: [1..8 subrequests]}, no
//     deviceClassName and no `exactly`. A subrequest is flat in every version: {name,
//     deviceClassName, selectors, allocationMode, count, tolerations, capacity} (no adminAccess).
//   - tolerations: [{key, operator, value, effect, tolerationSeconds}], empty members left out;
//     capacity: {requests: {<capacity name>: <quantity>}}, quantities in canonical form.
//   Which releases have these fields: firstAvailable and tolerations 1.33+, capacity 1.34+ (in
//   every version that release serves); whether a server keeps them depends on its gates.
//
// Modelled (decoded into the model, encoded, compared): every request field above. Not modelled:
// spec.devices.constraints (has_constraints) and a request's or subrequest's derivedAttributes
// (1.37 alpha; has_unmodelled_fields); such objects never equal a desired one, and encoding a
// decoded object that had them loses them. Unknown fields are ignored.
//
// Encoders return nlohmann::ordered_json with Kubernetes' conventional key order (apiVersion,
// kind, metadata, spec; fields in Go struct order) and leave out empty optional fields, so the
// same model always gives the same bytes. Metadata is object_meta_codec's EncodeObjectMeta.
//
// Decoders accept all three versions (picked by apiVersion), are strict about the types of what
// they read, ignore fields they do not know, and report every problem at once as InvalidArgument,
// one line each, naming the object and the field path:
//   ResourceClaimTemplate "ml-train/large-memory": spec.spec.devices.requests[0].exactly.count:
//   must be an integer, got string
// Nothing here throws. Pure functions; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/core/kube_version.h"
#include "controller/dra/api_version.h"
#include "controller/dra/device_class.h"
#include "controller/dra/resource_claim_template.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

// True when release `kube` has DeviceClass.spec.extendedResourceName in `version` (1.34+, every
// version). Whether the server keeps it also needs the DRAExtendedResource gate (alpha in 1.34
// and 1.35, beta 1.36), which only the caller can know.
bool HasExtendedResourceNameField(DraApiVersion version, const KubeVersion& kube);

// The DeviceClass as `version` of release `kube` spells it. extendedResourceName is written only
// when set and HasExtendedResourceNameField. Class config ignores OpaqueDeviceConfig::requests.
// include_server_fields=false leaves out what only a server assigns (uid, resourceVersion,
// generation, creationTimestamp, deletionTimestamp, ownerReferences), as `render` prints;
// true writes those that are set. A null `parameters` is written as {} (the field is required).
nlohmann::ordered_json EncodeDeviceClass(const DeviceClass& device_class, DraApiVersion version,
                                         const KubeVersion& kube, bool include_server_fields);

// The ResourceClaimTemplate as `version` spells it (see the shapes above); spec.metadata only
// when it has labels or annotations; unset allocationMode / count / adminAccess and empty
// tolerations / capacity requests are left out. A request with first_available is written as
// {name, firstAvailable} and its own exact fields are ignored; a subrequest's admin_access is
// ignored (the API has none).
// `kube` changes nothing: every field the model holds is written when set, even where release
// `kube` has no such field (firstAvailable / tolerations before 1.33, capacity before 1.34) or
// its gate is off. Deciding what a release and its gates can express, and refusing the rest, is
// the caller's job (the server would reject or silently drop such fields).
nlohmann::ordered_json EncodeResourceClaimTemplate(const ResourceClaimTemplate& rct,
                                                   DraApiVersion version, const KubeVersion& kube,
                                                   bool include_server_fields);

// True for `kind: DeviceClass` / `kind: ResourceClaimTemplate` with an apiVersion of the
// resource.k8s.io group (any version; the decoders reject versions they do not know).
bool IsDeviceClass(const nlohmann::json& obj);
bool IsResourceClaimTemplate(const nlohmann::json& obj);

// Decode objects of any of the three versions. metadata.name and spec are required; a
// ResourceClaimTemplate request needs a name and exactly one of its device class (flat in
// v1beta1, under `exactly` otherwise) or firstAvailable (1 to 8 subrequests, each with a name and
// a device class; in v1beta1 no other exact field may sit next to it). A request written in the
// other version's shape (flat fields in v1beta2/v1, `exactly` in v1beta1) is an error that says
// so. Toleration operators must be Equal or Exists (absent stays ""), capacity requests valid
// quantities (strings, or JSON numbers as Kubernetes also accepts).
absl::StatusOr<DeviceClass> DecodeDeviceClass(const nlohmann::json& obj);
absl::StatusOr<ResourceClaimTemplate> DecodeResourceClaimTemplate(const nlohmann::json& obj);

// Whether `actual` (read from a server) stores what writing `desired` would store, so that the
// operator writes nothing when it does:
// - metadata: name and namespace equal; every desired label, annotation and owner reference is
//   present in actual (others may add their own); server-only fields and finalizers are ignored;
// - spec.metadata labels/annotations, selectors and config (in order) exactly equal;
// - requests pairwise equal (name; exact fields, or firstAvailable subrequests pairwise with
//   their names and exact fields) after server defaulting: unset allocationMode is ExactCount,
//   an ExactCount request or subrequest without count (or count 0) has count 1, unset
//   adminAccess is false, a toleration's empty operator is Equal; tolerations compare in order,
//   member by member (tolerationSeconds unset differs from 0); capacity requests compare as
//   quantities ("1Gi" equals "1024Mi");
// - never equal when either side has unmodelled request fields or constraints.
bool SameDesiredState(const ResourceClaimTemplate& desired, const ResourceClaimTemplate& actual);

// The same for DeviceClass. extendedResourceName set in desired but unset in actual counts as
// equal only when !extended_resource_name_served (the server dropped it: gate off or the field
// does not exist in that release); otherwise it must match exactly.
bool SameDesiredState(const DeviceClass& desired, const DeviceClass& actual,
                      bool extended_resource_name_served);

}  // namespace gpuprofile::dra
