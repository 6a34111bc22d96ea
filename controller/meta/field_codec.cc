// File: controller/meta/field_codec.cc
#include "controller/meta/field_codec.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::meta {

using json = nlohmann::json;

void FieldErrors::Add(absl::string_view path, absl::string_view reason) {
  lines_.push_back(absl::StrCat(path.empty() ? "(root)" : path, ": ", reason));
}

void FieldErrors::AddInvalid(absl::string_view path, absl::string_view value,
                             absl::string_view reason) {
  Add(path, absl::StrCat("invalid value ", QuoteForMessage(value), ": ", reason));
}

void FieldErrors::AddUnsupported(absl::string_view path, absl::string_view value,
                                 std::initializer_list<const char*> supported) {
  std::vector<std::string> quoted;
  for (const char* s : supported) quoted.push_back(QuoteForMessage(s));
  Add(path, absl::StrCat("unsupported value ", QuoteForMessage(value),
                         ": supported values: ", absl::StrJoin(quoted, ", ")));
}

absl::Status FieldErrors::ToStatus() const {
  if (lines_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(lines_, "\n"));
}

absl::Status FieldErrors::ToStatus(absl::string_view label) const {
  if (lines_.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  lines.reserve(lines_.size());
  for (const std::string& line : lines_) lines.push_back(absl::StrCat(label, ": ", line));
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

std::string FieldErrors::TypeName(const json& value) const {
  if (arrays_ == ArrayWording::kList && value.is_array()) return "list";
  return JsonTypeName(value);
}

std::string FieldChild(absl::string_view parent, absl::string_view name) {
  if (parent.empty()) return std::string(name);
  return absl::StrCat(parent, ".", name);
}

std::string FieldIndex(absl::string_view parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

std::string FieldKey(absl::string_view parent, absl::string_view key) {
  return absl::StrCat(parent, "[", key, "]");
}

std::string FieldMember(absl::string_view parent, absl::string_view key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return plain ? FieldChild(parent, key) : FieldKey(parent, key);
}

std::string QuoteForMessage(absl::string_view text) {
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string JsonTypeName(const json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

std::string ObjectLabel(const json& object, absl::string_view kind) {
  const json* meta = JsonMember(object, "metadata");
  const json* name = meta != nullptr ? JsonMember(*meta, "name") : nullptr;
  const json* ns = meta != nullptr ? JsonMember(*meta, "namespace") : nullptr;
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return absl::StrCat(kind, " <unnamed>");
  }
  if (ns != nullptr && ns->is_string() && !ns->get_ref<const std::string&>().empty()) {
    return absl::StrCat(kind, " \"", ns->get_ref<const std::string&>(), "/",
                        name->get_ref<const std::string&>(), "\"");
  }
  return absl::StrCat(kind, " \"", name->get_ref<const std::string&>(), "\"");
}

const json* JsonMember(const json& object, absl::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

bool MemberEquals(const json& object, absl::string_view key, absl::string_view expected) {
  const json* value = JsonMember(object, key);
  return value != nullptr && value->is_string() && value->get_ref<const std::string&>() == expected;
}

std::optional<std::string> QuantityText(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return std::nullopt;
}

void RejectUnknownFields(const json& object, std::initializer_list<const char*> known,
                         absl::string_view parent, FieldErrors* errors) {
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool found = false;
    for (const char* name : known) {
      if (it.key() == name) {
        found = true;
        break;
      }
    }
    if (!found) errors->Add(FieldChild(parent, it.key()), "unknown field");
  }
}

std::optional<std::string> ReadString(const json& value, absl::string_view path,
                                      FieldErrors* errors) {
  if (!value.is_string()) {
    errors->Add(path, absl::StrCat("must be a string, got ", errors->TypeName(value)));
    return std::nullopt;
  }
  return value.get<std::string>();
}

std::optional<int64_t> ReadInt(const json& value, absl::string_view path, FieldErrors* errors) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      errors->Add(path, "integer out of range (int64)");
      return std::nullopt;
    }
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  errors->Add(path, absl::StrCat("must be an integer, got ", errors->TypeName(value)));
  return std::nullopt;
}

std::optional<bool> ReadBool(const json& value, absl::string_view path, FieldErrors* errors) {
  if (!value.is_boolean()) {
    errors->Add(path, absl::StrCat("must be a boolean, got ", errors->TypeName(value)));
    return std::nullopt;
  }
  return value.get<bool>();
}

bool CheckObject(const json& value, absl::string_view path, FieldErrors* errors) {
  if (value.is_object()) return true;
  errors->Add(path, absl::StrCat("must be an object, got ", errors->TypeName(value)));
  return false;
}

bool CheckArray(const json& value, absl::string_view path, FieldErrors* errors) {
  if (value.is_array()) return true;
  errors->Add(path, absl::StrCat("must be a list, got ", errors->TypeName(value)));
  return false;
}

std::vector<std::string> ReadStringList(const json& value, absl::string_view path,
                                        FieldErrors* errors) {
  std::vector<std::string> out;
  if (!CheckArray(value, path, errors)) return out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (std::optional<std::string> s = ReadString(value[i], FieldIndex(path, i), errors)) {
      out.push_back(*std::move(s));
    }
  }
  return out;
}

std::map<std::string, std::string> ReadStringMap(const json& value, absl::string_view path,
                                                 FieldErrors* errors) {
  std::map<std::string, std::string> out;
  if (!CheckObject(value, path, errors)) return out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (std::optional<std::string> s = ReadString(it.value(), FieldKey(path, it.key()), errors)) {
      out.emplace(it.key(), *std::move(s));
    }
  }
  return out;
}

std::optional<std::string> StringField(const json& object, absl::string_view key,
                                       absl::string_view parent, bool required,
                                       FieldErrors* errors) {
  const std::string path = FieldChild(parent, key);
  const json* value = JsonMember(object, key);
  if (value == nullptr) {
    if (required) errors->Add(path, "required");
    return std::nullopt;
  }
  std::optional<std::string> s = ReadString(*value, path, errors);
  if (s && required && s->empty()) {
    errors->Add(path, "required (must not be empty)");
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> IntField(const json& object, absl::string_view key, absl::string_view parent,
                                bool required, FieldErrors* errors) {
  const std::string path = FieldChild(parent, key);
  const json* value = JsonMember(object, key);
  if (value == nullptr) {
    if (required) errors->Add(path, "required");
    return std::nullopt;
  }
  return ReadInt(*value, path, errors);
}

std::optional<bool> BoolField(const json& object, absl::string_view key, absl::string_view parent,
                              FieldErrors* errors) {
  const json* value = JsonMember(object, key);
  if (value == nullptr) return std::nullopt;
  return ReadBool(*value, FieldChild(parent, key), errors);
}

const json* ObjectField(const json& object, absl::string_view key, absl::string_view parent,
                        bool required, FieldErrors* errors) {
  const std::string path = FieldChild(parent, key);
  const json* value = JsonMember(object, key);
  if (value == nullptr) {
    if (required) errors->Add(path, "required");
    return nullptr;
  }
  return CheckObject(*value, path, errors) ? value : nullptr;
}

const json* ArrayField(const json& object, absl::string_view key, absl::string_view parent,
                       bool required, FieldErrors* errors) {
  const std::string path = FieldChild(parent, key);
  const json* value = JsonMember(object, key);
  if (value == nullptr) {
    if (required) errors->Add(path, "required");
    return nullptr;
  }
  return CheckArray(*value, path, errors) ? value : nullptr;
}

}  // namespace gpuprofile::meta
