// File: controller/dra/resource_claim_template.h
// The internal, version-independent model of a ResourceClaimTemplate with the shape the operator
// generates: one or more device requests, each exact or a prioritized `firstAvailable` list of
// subrequests (v1beta1 puts the exact fields on the request; v1beta2 and v1 nest them under
// `exactly`). Per-version JSON shapes are in dra_object_codec.h.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/core/quantity.h"
#include "controller/dra/device_class.h"
#include "controller/dra/device_toleration.h"
#include "controller/meta/object_meta.h"

namespace gpuprofile::dra {

struct ExactDeviceRequest {
  std::string name;  // the request name (DNS label)
  std::string device_class_name;
  std::vector<std::string> selectors;  // extra CEL selectors on the request (the operator: none)
  // "ExactCount" | "All"; empty = unset (the server defaults it to ExactCount).
  std::string allocation_mode;
  // Unset for All; the server defaults ExactCount without count to 1.
  std::optional<int64_t> count;
  std::optional<bool> admin_access;
  // DRADeviceTaints (1.33+): taints the request tolerates.
  std::vector<DeviceToleration> tolerations;
  // DRAConsumableCapacity (1.34+): `capacity.requests`, what the request takes of each device
  // (capacity name -> amount).
  std::map<std::string, Quantity> capacity_requests;
  // DRAPrioritizedList (1.33+): when non-empty the request is `firstAvailable` and the fields
  // above except `name` are unused; each subrequest has its own name and exact fields (its
  // own first_available is empty).
  std::vector<ExactDeviceRequest> first_available;
  // True when the server's object has request fields this model does not hold (today only
  // derivedAttributes, 1.37 alpha): such a template never equals a desired one.
  bool has_unmodelled_fields = false;
};

struct ResourceClaimTemplate {
  meta::ObjectMeta metadata;  // namespace_name is set
  // spec.metadata (labels and annotations copied to each generated claim).
  std::map<std::string, std::string> claim_labels;
  std::map<std::string, std::string> claim_annotations;
  std::vector<ExactDeviceRequest> requests;
  std::vector<OpaqueDeviceConfig> config;
  // True when spec.devices.constraints is non-empty (the operator generates none).
  bool has_constraints = false;
};

}  // namespace gpuprofile::dra
