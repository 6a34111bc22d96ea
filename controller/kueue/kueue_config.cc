// File: controller/kueue/kueue_config.cc
#include "controller/kueue/kueue_config.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "controller/dra/manifest_reader.h"

namespace gpuprofile::kueue {
namespace {

using json = nlohmann::json;

const char* JsonTypeName(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  return "a number";
}

absl::Status FieldError(const std::string& source, const std::string& field,
                        const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", field, ": ", problem));
}

absl::StatusOr<std::string> StringField(const json& object, const char* key,
                                        const std::string& source, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return FieldError(source, absl::StrCat(path, ".", key), "required");
  }
  if (!it->is_string()) {
    return FieldError(source, absl::StrCat(path, ".", key),
                      absl::StrCat("must be a string, not ", JsonTypeName(*it)));
  }
  return it->get<std::string>();
}

absl::StatusOr<DeviceClassMapping> DecodeMapping(const json& entry, const std::string& source,
                                                 const std::string& path) {
  if (!entry.is_object()) {
    return FieldError(source, path, absl::StrCat("must be an object, not ", JsonTypeName(entry)));
  }
  DeviceClassMapping mapping;
  absl::StatusOr<std::string> name = StringField(entry, "name", source, path);
  if (!name.ok()) return name.status();
  mapping.name = *std::move(name);
  const std::string classes_path = absl::StrCat(path, ".deviceClassNames");
  auto classes = entry.find("deviceClassNames");
  if (classes == entry.end() || classes->is_null()) {
    return FieldError(source, classes_path, "required");
  }
  if (!classes->is_array()) {
    return FieldError(source, classes_path,
                      absl::StrCat("must be a list, not ", JsonTypeName(*classes)));
  }
  for (size_t i = 0; i < classes->size(); ++i) {
    const json& c = (*classes)[i];
    if (!c.is_string()) {
      return FieldError(source, absl::StrCat(classes_path, "[", i, "]"),
                        absl::StrCat("must be a string, not ", JsonTypeName(c)));
    }
    mapping.device_class_names.push_back(c.get<std::string>());
  }
  return mapping;
}

absl::StatusOr<KueueConfig> DecodeConfiguration(const json& object, const std::string& source) {
  const std::string api_version = object.value("apiVersion", "");
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? api_version : api_version.substr(0, slash);
  if (group != kConfigGroup || object.value("kind", "") != kConfigKind) {
    return FieldError(source, "apiVersion/kind",
                      absl::StrCat("want ", kConfigGroup, "/<version> ", kConfigKind, ", got \"",
                                   api_version, "\" \"", object.value("kind", ""), "\""));
  }
  KueueConfig config;
  auto resources = object.find("resources");
  if (resources == object.end() || resources->is_null()) return config;
  if (!resources->is_object()) {
    return FieldError(source, "resources",
                      absl::StrCat("must be an object, not ", JsonTypeName(*resources)));
  }
  auto mappings = resources->find("deviceClassMappings");
  if (mappings == resources->end() || mappings->is_null()) return config;
  if (!mappings->is_array()) {
    return FieldError(source, "resources.deviceClassMappings",
                      absl::StrCat("must be a list, not ", JsonTypeName(*mappings)));
  }
  for (size_t i = 0; i < mappings->size(); ++i) {
    absl::StatusOr<DeviceClassMapping> m = DecodeMapping(
        (*mappings)[i], source, absl::StrCat("resources.deviceClassMappings[", i, "]"));
    if (!m.ok()) return m.status();
    config.mappings.push_back(*std::move(m));
  }
  return config;
}

}  // namespace

std::string KueueConfig::ResourceOf(const std::string& device_class) const {
  for (const DeviceClassMapping& m : mappings) {
    for (const std::string& c : m.device_class_names) {
      if (c == device_class) return m.name;
    }
  }
  return "";
}

std::string ConfigMapRef::Describe() const {
  return absl::StrCat("configmap ", namespace_name, "/", name);
}

absl::StatusOr<ConfigMapRef> ParseConfigMapRef(absl::string_view flag) {
  const auto usage = [&](const std::string& problem) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kueue-config: \"", flag, "\": ", problem,
                     " (want configmap/<namespace>/<name>[:<key>], e.g. "
                     "configmap/kueue-system/kueue-manager-config)"));
  };
  absl::string_view rest = flag;
  ConfigMapRef ref;
  if (size_t colon = rest.find(':'); colon != absl::string_view::npos) {
    ref.key = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (ref.key.empty()) return usage("the key after ':' is empty");
  }
  std::vector<std::string> parts = absl::StrSplit(rest, '/');
  if (parts.size() != 3 || (parts[0] != "configmap" && parts[0] != "configmaps")) {
    return usage("not of the form configmap/<namespace>/<name>");
  }
  if (absl::Status s = IsDnsLabel(parts[1]); !s.ok()) {
    return usage(absl::StrCat("namespace: ", s.message()));
  }
  if (absl::Status s = IsDnsSubdomain(parts[2]); !s.ok()) {
    return usage(absl::StrCat("name: ", s.message()));
  }
  ref.namespace_name = parts[1];
  ref.name = parts[2];
  return ref;
}

absl::StatusOr<KueueConfig> ParseKueueConfiguration(absl::string_view text,
                                                    const std::string& source) {
  absl::StatusOr<std::vector<dra::ManifestObject>> objects =
      dra::ParseManifests(std::string_view(text.data(), text.size()), source);
  if (!objects.ok()) return objects.status();
  if (objects->size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": holds ", objects->size(),
                                                   " objects; Kueue reads one Configuration"));
  }
  return DecodeConfiguration((*objects)[0].object, source);
}

absl::StatusOr<KueueConfig> ParseKueueConfigMap(const json& configmap, const ConfigMapRef& ref) {
  const std::string source = ref.Describe();
  if (!configmap.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not an object"));
  }
  auto data = configmap.find("data");
  if (data == configmap.end() || !data->is_object()) {
    return FieldError(source, "data", absl::StrCat("has no key ", ref.key));
  }
  auto text = data->find(ref.key);
  if (text == data->end()) {
    return FieldError(source, "data", absl::StrCat("has no key ", ref.key));
  }
  if (!text->is_string()) {
    return FieldError(source, absl::StrCat("data.", ref.key),
                      absl::StrCat("must be a string, not ", JsonTypeName(*text)));
  }
  return ParseKueueConfiguration(text->get<std::string>(),
                                 absl::StrCat(source, ", data.", ref.key));
}

}  // namespace gpuprofile::kueue
