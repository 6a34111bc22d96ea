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
#include "controller/core/same_text.h"

namespace gpuprofile::profile {
namespace {

// A path the CEL engine reports (cel::AttributePath) as a DevicePath; nullopt when it covers a
// whole domain map, `device.attributes`/`device.capacity`, or `device` itself.
std::optional<DevicePath> ToDevicePath(const cel::AttributePath& read) {
  const std::vector<std::string>& q = read.qualifiers;
  if (q.empty()) return std::nullopt;
  if (q[0] == "attributes" || q[0] == "capacity") {
    // Deeper reads (`...['id'].x`, a presence test in the value included) depend only on the
    // entry's value.
    if (q.size() < 3) return std::nullopt;
    return DevicePath{
        q[0] == "attributes" ? DevicePath::Kind::kAttribute : DevicePath::Kind::kCapacity, q[1],
        q[2], /*presence_only=*/read.presence_only && q.size() == 3};
  }
  if (q[0] == "driver") return DevicePath{DevicePath::Kind::kDriver, "", ""};
  return DevicePath{DevicePath::Kind::kOtherField, "", q[0]};
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
  return kind == other.kind && domain == other.domain && id == other.id &&
         presence_only == other.presence_only;
}

bool DevicePath::operator<(const DevicePath& other) const {
  return std::tie(kind, domain, id, presence_only) <
         std::tie(other.kind, other.domain, other.id, other.presence_only);
}

void NormalizePaths(std::vector<DevicePath>* paths) {
  // A value read sorts just before the presence test of the same entry: keep the first of each.
  std::sort(paths->begin(), paths->end());
  paths->erase(std::unique(paths->begin(), paths->end(),
                           [](const DevicePath& a, const DevicePath& b) {
                             return a.kind == b.kind && a.domain == b.domain && a.id == b.id;
                           }),
               paths->end());
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
  NormalizePaths(&paths);
  return paths;
}

bool PathValue::operator==(const PathValue& other) const {
  if (kind != other.kind || presence_only != other.presence_only) return false;
  if (presence_only) return present == other.present;
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

PathReader::PathReader(const std::vector<DevicePath>& paths)
    : paths_(paths), id_hints_(paths.size()), qualified_hints_(paths.size()) {
  qualified_.reserve(paths.size());
  for (const DevicePath& path : paths)
    qualified_.push_back(absl::StrCat(path.domain, "/", path.id));
}

// A path's entry: unqualified names are in the driver's domain, and a qualified name in the
// driver's own domain means the same entry (the unqualified one first).
void PathReader::Tokens(const dra::Device& device, std::vector<uint64_t>* tokens) {
  tokens->assign(paths_.size(), 0);
  for (size_t i = 0; i < paths_.size(); ++i) {
    const DevicePath& path = paths_[i];
    const bool own_domain = SameText(path.domain, device.driver());
    switch (path.kind) {
      case DevicePath::Kind::kAttribute: {
        std::optional<uint32_t> entry;
        if (own_domain) entry = device.FindAttributeEntry(path.id, &id_hints_[i]);
        if (!entry) entry = device.FindAttributeEntry(qualified_[i], &qualified_hints_[i]);
        if (entry) (*tokens)[i] = path.presence_only ? 1 : uint64_t{*entry} + 1;
        break;
      }
      case DevicePath::Kind::kCapacity: {
        const Quantity* value = own_domain ? device.FindCapacity(path.id) : nullptr;
        if (value == nullptr) value = device.FindCapacity(qualified_[i]);
        (*tokens)[i] =
            path.presence_only ? (value != nullptr ? 1 : 0) : reinterpret_cast<uintptr_t>(value);
        break;
      }
      case DevicePath::Kind::kDriver:
      case DevicePath::Kind::kOtherField:
        // The storage fixes the driver; the device model does not carry other fields, which
        // read the same for every device.
        break;
    }
  }
}

void PathReader::Values(const dra::Device& device, const std::vector<uint64_t>& tokens,
                        std::vector<PathValue>* values) const {
  values->resize(paths_.size());
  for (size_t i = 0; i < paths_.size(); ++i) {
    PathValue& value = (*values)[i];
    value = PathValue();
    value.kind = paths_[i].kind;
    if (paths_[i].presence_only) {
      value.presence_only = true;
      value.present = tokens[i] != 0;
      continue;
    }
    switch (value.kind) {
      case DevicePath::Kind::kDriver:
        value.driver = device.driver();
        break;
      case DevicePath::Kind::kAttribute:
        if (tokens[i] != 0) {
          value.attribute = device.AttributeEntryValue(static_cast<uint32_t>(tokens[i] - 1));
        }
        break;
      case DevicePath::Kind::kCapacity:
        value.capacity = reinterpret_cast<const Quantity*>(static_cast<uintptr_t>(tokens[i]));
        break;
      case DevicePath::Kind::kOtherField:
        break;
    }
  }
}

void ReadPathValues(const dra::Device& device, const std::vector<DevicePath>& paths,
                    std::vector<PathValue>* values) {
  PathReader reader(paths);
  std::vector<uint64_t> tokens;
  reader.Tokens(device, &tokens);
  reader.Values(device, tokens, values);
}

void AppendProjectionKey(const std::vector<PathValue>& values, std::string* key) {
  for (const PathValue& value : values) {
    if (value.presence_only) {
      key->append(value.present ? "p|" : "-|");
      continue;
    }
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
