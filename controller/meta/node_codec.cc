// File: controller/meta/node_codec.cc
#include "controller/meta/node_codec.h"

#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/core/quantity.h"
#include "controller/meta/field_codec.h"

namespace gpuprofile::meta {

using json = nlohmann::json;

absl::StatusOr<NodeGpus> DecodeNodeGpus(const json& object) {
  FieldErrors errors;
  NodeGpus out;
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Node <unnamed>: (root): must be an object, got ", JsonTypeName(object)));
  }
  if (const json* meta = ObjectField(object, "metadata", "", /*required=*/true, &errors)) {
    out.name = StringField(*meta, "name", "metadata", true, &errors).value_or("");
    out.resource_version =
        StringField(*meta, "resourceVersion", "metadata", false, &errors).value_or("");
    if (const json* labels = ObjectField(*meta, "labels", "metadata", false, &errors)) {
      if (const json* product = JsonMember(*labels, kGpuProductLabel);
          product && product->is_string()) {
        out.product = *product;
      }
      if (const json* memory = JsonMember(*labels, kGpuMemoryLabel);
          memory && memory->is_string()) {
        out.memory_mib = *memory;
      }
    }
  }
  const json* status = ObjectField(object, "status", "", false, &errors);
  const json* allocatable =
      status ? ObjectField(*status, "allocatable", "status", false, &errors) : nullptr;
  if (allocatable != nullptr) {
    for (const auto& [name, value] : allocatable->items()) {
      if (name != kDevicePluginGpuResource &&
          !absl::StartsWith(name, kDevicePluginMigResourcePrefix)) {
        continue;
      }
      const std::string path = FieldKey("status.allocatable", name);
      std::optional<std::string> text = QuantityText(value);
      if (!text) {
        errors.Add(path, absl::StrCat("must be a quantity, got ", JsonTypeName(value)));
        continue;
      }
      absl::StatusOr<Quantity> q = Quantity::Parse(*text);
      absl::StatusOr<int64_t> n = q.ok() ? q->AsInt64() : q.status();
      if (!n.ok() || *n < 0) {
        errors.AddInvalid(path, *text, "must be a whole number of devices");
        continue;
      }
      out.device_plugin_devices += *n;
    }
  }
  if (errors.empty()) return out;
  const std::string label =
      out.name.empty() ? "Node <unnamed>" : absl::StrCat("Node \"", out.name, "\"");
  std::vector<std::string> lines;
  for (const std::string& line : errors.lines()) lines.push_back(absl::StrCat(label, ": ", line));
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

}  // namespace gpuprofile::meta
