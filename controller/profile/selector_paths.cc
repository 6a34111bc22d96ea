// File: controller/profile/selector_paths.cc
#include "controller/profile/selector_paths.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/attribute_paths.h"
#include "controller/cel/environment.h"

namespace gpuprofile::profile {
namespace {

// A path the CEL engine reports (cel::AttributePath) as a DevicePath; nullopt when it covers a
// whole domain map, `device.attributes`/`device.capacity`, or `device` itself.
std::optional<DevicePath> ToDevicePath(const cel::AttributePath& read) {
  const std::vector<std::string>& q = read.qualifiers;
  if (q.empty()) return std::nullopt;
  if (q[0] == "attributes" || q[0] == "capacity") {
    // Deeper reads (`...['id'].x`) depend only on the entry's value.
    if (q.size() < 3) return std::nullopt;
    return DevicePath{
        q[0] == "attributes" ? DevicePath::Kind::kAttribute : DevicePath::Kind::kCapacity, q[1],
        q[2]};
  }
  if (q[0] == "driver") return DevicePath{DevicePath::Kind::kDriver, "", ""};
  return DevicePath{DevicePath::Kind::kOtherField, "", q[0]};
}

// The attribute/capacity entry of `device` at (domain, id): unqualified names are in the
// driver's domain, and a qualified name in the driver's own domain means the same entry.
std::optional<dra::AttributeValue> LookupAttribute(const dra::Device& device,
                                                   const std::string& domain,
                                                   const std::string& id) {
  if (domain == device.driver()) {
    std::optional<dra::AttributeValue> value = device.FindAttribute(id);
    if (value.has_value()) return value;
  }
  return device.FindAttribute(absl::StrCat(domain, "/", id));
}

const Quantity* LookupCapacity(const dra::Device& device, const std::string& domain,
                               const std::string& id) {
  if (domain == device.driver()) {
    const Quantity* value = device.FindCapacity(id);
    if (value != nullptr) return value;
  }
  return device.FindCapacity(absl::StrCat(domain, "/", id));
}

void AppendAttribute(const dra::AttributeValue& value, std::string* key) {
  using Kind = dra::AttributeValue::Kind;
  switch (value.kind()) {
    case Kind::kInt:
      absl::StrAppend(key, "i", value.int_value());
      break;
    case Kind::kBool:
      absl::StrAppend(key, value.bool_value() ? "t" : "f");
      break;
    case Kind::kString:
      absl::StrAppend(key, "s", value.string_value().size(), ":", value.string_value());
      break;
    case Kind::kVersion:
      absl::StrAppend(key, "v", value.string_value().size(), ":", value.string_value());
      break;
    case Kind::kOpaque:
      absl::StrAppend(key, "o", value.string_value().size(), ":", value.string_value());
      break;
    case Kind::kIntList:
    case Kind::kBoolList:
    case Kind::kStringList:
    case Kind::kVersionList:
      absl::StrAppend(key, "l", static_cast<int>(value.kind()), "[", value.list_size(), "]");
      for (const dra::AttributeValue& item : value.list_items()) AppendAttribute(item, key);
      break;
  }
}

}  // namespace

bool DevicePath::operator==(const DevicePath& other) const {
  return kind == other.kind && domain == other.domain && id == other.id;
}

bool DevicePath::operator<(const DevicePath& other) const {
  return std::tie(kind, domain, id) < std::tie(other.kind, other.domain, other.id);
}

std::optional<std::vector<DevicePath>> ReadPaths(const cel::Program& program) {
  std::optional<std::vector<cel::AttributePath>> reads = program.ReadPaths(cel::kDeviceVariable);
  if (!reads.has_value()) return std::nullopt;
  std::vector<DevicePath> paths;
  for (const cel::AttributePath& read : *reads) {
    std::optional<DevicePath> path = ToDevicePath(read);
    if (!path.has_value()) return std::nullopt;
    paths.push_back(*std::move(path));
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

bool PathValue::operator==(const PathValue& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case DevicePath::Kind::kDriver:
      return driver == other.driver;
    case DevicePath::Kind::kAttribute:
      return attribute == other.attribute;
    case DevicePath::Kind::kCapacity:
      return Quantity::PrintSame(capacity, other.capacity);
    case DevicePath::Kind::kOtherField:
      return true;
  }
  return false;
}

void ReadPathValues(const dra::Device& device, const std::vector<DevicePath>& paths,
                    std::vector<PathValue>* values) {
  values->resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const DevicePath& path = paths[i];
    PathValue& value = (*values)[i];
    value = PathValue();
    value.kind = path.kind;
    switch (path.kind) {
      case DevicePath::Kind::kDriver:
        value.driver = device.driver();
        break;
      case DevicePath::Kind::kAttribute:
        value.attribute = LookupAttribute(device, path.domain, path.id);
        break;
      case DevicePath::Kind::kCapacity:
        value.capacity = LookupCapacity(device, path.domain, path.id);
        break;
      case DevicePath::Kind::kOtherField:
        // Fields the device model does not carry read the same for every device.
        break;
    }
  }
}

void AppendProjectionKey(const std::vector<PathValue>& values, std::string* key) {
  for (const PathValue& value : values) {
    switch (value.kind) {
      case DevicePath::Kind::kDriver:
        absl::StrAppend(key, value.driver.size(), ":", value.driver);
        break;
      case DevicePath::Kind::kAttribute:
        if (!value.attribute.has_value()) {
          key->push_back('-');
        } else {
          AppendAttribute(*value.attribute, key);
        }
        break;
      case DevicePath::Kind::kCapacity:
        if (value.capacity == nullptr) {
          key->push_back('-');
        } else {
          const std::string text = value.capacity->ToString();
          absl::StrAppend(key, "q", text.size(), ":", text);
        }
        break;
      case DevicePath::Kind::kOtherField:
        break;
    }
    key->push_back('|');
  }
}

void AppendProjectionKey(const dra::Device& device, const std::vector<DevicePath>& paths,
                         std::string* key) {
  std::vector<PathValue> values;
  ReadPathValues(device, paths, &values);
  AppendProjectionKey(values, key);
}

}  // namespace gpuprofile::profile
