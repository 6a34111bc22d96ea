// File: controller/dra/resource_claim_template.h
// The internal, version-independent model of a ResourceClaimTemplate with the shape the operator
// generates: one or more exact device requests (v1beta1 puts the fields on the request; v1beta2
// and v1 nest them under `exactly`). Per-version JSON shapes are in dra_object_codec.h.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/meta/object_meta.h"
#include "controller/dra/device_class.h"

namespace gpuprofile::dra {

struct ExactDeviceRequest {
  std::string name;               // the request name (DNS label)
  std::string device_class_name;
  std::vector<std::string> selectors;  // extra CEL selectors on the request (the operator: none)
  // "ExactCount" | "All"; empty = unset (the server defaults it to ExactCount).
  std::string allocation_mode;
  // Unset for All; the server defaults ExactCount without count to 1.
  std::optional<int64_t> count;
  std::optional<bool> admin_access;
  // True when the server's object uses a shape the operator does not generate (firstAvailable,
  // tolerations, capacity requests...): such a template never equals a desired one.
  bool has_unmodelled_fields = false;
};

struct ResourceClaimTemplate {
  api::ObjectMeta metadata;  // namespace_name is set
  // spec.metadata (labels and annotations copied to each generated claim).
  std::map<std::string, std::string> claim_labels;
  std::map<std::string, std::string> claim_annotations;
  std::vector<ExactDeviceRequest> requests;
  std::vector<OpaqueDeviceConfig> config;
  // True when spec.devices.constraints is non-empty (the operator generates none).
  bool has_constraints = false;
};

}  // namespace gpuprofile::dra
