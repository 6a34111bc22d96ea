// File: controller/kueue/kueue_config.h
// What the operator reads of Kueue's Configuration (docs/kueue.md): the DRA device class
// mappings, `resources.deviceClassMappings`, each a quota resource `name` and the
// `deviceClassNames` Kueue charges to it. Kueue (kubernetes-sigs/kueue, checked at v0.19.2 and
// main ff69552e) reads the Configuration from the file its `--config` flag names, which its
// default install mounts from the ConfigMap `kueue-manager-config` in `kueue-system`, key
// `controller_manager_config.yaml`; it reads it once, at startup.
//
// The parser reads what it needs and checks the shape of that only (apiVersion and kind, and
// the types of `resources`, `deviceClassMappings` and their two fields, as
// apis/config/v1beta{1,2}/configuration_types.go declare them); every other field is Kueue's
// business and is ignored. Errors name the source (the ConfigMap and its key) and the field.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kueue {

inline constexpr char kConfigGroup[] = "config.kueue.x-k8s.io";
inline constexpr char kConfigApiVersion[] = "config.kueue.x-k8s.io/v1beta2";
inline constexpr char kConfigKind[] = "Configuration";
// Where Kueue's default install keeps its Configuration.
inline constexpr char kDefaultConfigMapNamespace[] = "kueue-system";
inline constexpr char kDefaultConfigMapName[] = "kueue-manager-config";
inline constexpr char kDefaultConfigMapKey[] = "controller_manager_config.yaml";

// One entry of resources.deviceClassMappings (the counter/capacity `sources` of v1beta2 are not
// read: they change how a class is charged, not whether it is mapped).
struct DeviceClassMapping {
  std::string name;                             // the quota resource
  std::vector<std::string> device_class_names;  // as written
};

struct KueueConfig {
  std::vector<DeviceClassMapping> mappings;  // in the order written

  // The quota resource `device_class` is mapped to; empty when it is not mapped.
  std::string ResourceOf(const std::string& device_class) const;
};

// Which ConfigMap, and which key of its data, holds the Configuration.
struct ConfigMapRef {
  std::string namespace_name = kDefaultConfigMapNamespace;
  std::string name = kDefaultConfigMapName;
  std::string key = kDefaultConfigMapKey;

  // "configmap kueue-system/kueue-manager-config", for messages.
  std::string Describe() const;
};

// Parses --kueue-config: "configmap/<namespace>/<name>" with an optional ":<key>" (default key
// controller_manager_config.yaml). Errors say what is wrong with the value.
absl::StatusOr<ConfigMapRef> ParseConfigMapRef(absl::string_view flag);

// Parses the Configuration text (YAML or JSON, one document). `source` names where it came from
// in messages ("configmap kueue-system/kueue-manager-config, data.controller_manager_config.yaml").
absl::StatusOr<KueueConfig> ParseKueueConfiguration(absl::string_view text,
                                                    const std::string& source);

// The Configuration held by a ConfigMap object (JSON as the API server returns it) under
// `ref.key`. Errors name the ConfigMap and the field (data.<key>, then the Configuration's).
absl::StatusOr<KueueConfig> ParseKueueConfigMap(const nlohmann::json& configmap,
                                                const ConfigMapRef& ref);

}  // namespace gpuprofile::kueue
