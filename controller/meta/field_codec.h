// File: controller/meta/field_codec.h
// Building blocks the decoders share (meta, api and the DRA objects): a list of field errors
// ("<path>: <reason>", one per problem, Kubernetes-style paths such as
// `spec.selector.attributes[1].values[0]` or `metadata.labels[app.kubernetes.io/name]`, prefixed
// with the object's label when the status is made), and typed readers of nlohmann::json values
// that report a wrong type instead of throwing.
//
// Conventions (those of Go's JSON decoding, which the API server uses): a member whose value is
// null counts as absent; integers are int64 (a float, even 2.0, is not an integer).
// Pure; thread-compatible (a FieldErrors is filled by one decoder).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// How "got <type>" messages name a JSON array: "array" (JsonTypeName), or "list" in the decoder
// of DeviceClass and ResourceClaimTemplate, whose messages have always said so.
enum class ArrayWording { kArray, kList };

class FieldErrors {
 public:
  FieldErrors() = default;
  explicit FieldErrors(ArrayWording arrays) : arrays_(arrays) {}

  // Adds "<path>: <reason>".
  void Add(absl::string_view path, absl::string_view reason);
  // Adds "<path>: invalid value <quoted value>: <reason>".
  void AddInvalid(absl::string_view path, absl::string_view value, absl::string_view reason);
  // Adds "<path>: unsupported value <quoted value>: supported values: "A", "B"".
  void AddUnsupported(absl::string_view path, absl::string_view value,
                      std::initializer_list<const char*> supported);

  bool empty() const { return lines_.empty(); }
  const std::vector<std::string>& lines() const { return lines_; }
  // OK when empty, else InvalidArgument whose message is the lines joined by '\n'.
  absl::Status ToStatus() const;
  // The same with each line prefixed by "<label>: ", the object the errors are about (see
  // ObjectLabel).
  absl::Status ToStatus(absl::string_view label) const;

  // The type of `value` for "must be a string, got <type>": JsonTypeName, but "list" for an
  // array when the errors were made with ArrayWording::kList.
  std::string TypeName(const nlohmann::json& value) const;

 private:
  ArrayWording arrays_ = ArrayWording::kArray;
  std::vector<std::string> lines_;
};

// Field paths: "parent.name" (or "name" at the root), "parent[3]", "parent[key]".
std::string FieldChild(absl::string_view parent, absl::string_view name);
std::string FieldIndex(absl::string_view parent, size_t index);
std::string FieldKey(absl::string_view parent, absl::string_view key);
// `parent.key` when key is a plain identifier ([A-Za-z0-9_-]+), else `parent[key]` (label keys,
// qualified attribute names such as resource.kubernetes.io/pcieRoot), as Kubernetes prints paths.
std::string FieldMember(absl::string_view parent, absl::string_view key);

// A string as a JSON string literal ("a\"b"), for messages; invalid UTF-8 is replaced.
std::string QuoteForMessage(absl::string_view text);

// "string", "integer", "number" (a float), "boolean", "object", "array", "null".
std::string JsonTypeName(const nlohmann::json& value);

// How messages name an object: `Kind "namespace/name"`, `Kind "name"` or `Kind <unnamed>`, from
// whatever string metadata.name and metadata.namespace `object` has (any other shape is ignored).
std::string ObjectLabel(const nlohmann::json& object, absl::string_view kind);

// The member `key` of `object` when `object` is an object holding it with a non-null value;
// nullptr otherwise.
const nlohmann::json* JsonMember(const nlohmann::json& object, absl::string_view key);

// True when member `key` of `object` is the string `expected` (apiVersion, kind, phase checks).
bool MemberEquals(const nlohmann::json& object, absl::string_view key, absl::string_view expected);

// The text of a Kubernetes quantity as JSON carries it: a string, or a number (what YAML gives
// for `4`); nullopt for any other type, which callers report with JsonTypeName.
std::optional<std::string> QuantityText(const nlohmann::json& value);

// Reports "<parent>.<key>: unknown field" for each member of `object` whose name is not in
// `known` (null members included: strict decoding rejects the name, whatever the value).
void RejectUnknownFields(const nlohmann::json& object, std::initializer_list<const char*> known,
                         absl::string_view parent, FieldErrors* errors);

// Typed readers of one value at `path`. Each reports a wrong type ("must be a string, got
// integer", see FieldErrors::TypeName) and returns nullopt / false.
std::optional<std::string> ReadString(const nlohmann::json& value, absl::string_view path,
                                      FieldErrors* errors);
std::optional<int64_t> ReadInt(const nlohmann::json& value, absl::string_view path,
                               FieldErrors* errors);
std::optional<bool> ReadBool(const nlohmann::json& value, absl::string_view path,
                             FieldErrors* errors);
bool CheckObject(const nlohmann::json& value, absl::string_view path, FieldErrors* errors);
bool CheckArray(const nlohmann::json& value, absl::string_view path, FieldErrors* errors);
// A list of strings; elements of another type are reported at path[i] and skipped.
std::vector<std::string> ReadStringList(const nlohmann::json& value, absl::string_view path,
                                        FieldErrors* errors);
// An object of strings; members of another type are reported at path[key] and skipped.
std::map<std::string, std::string> ReadStringMap(const nlohmann::json& value,
                                                 absl::string_view path, FieldErrors* errors);

// Member readers: absent (or null) gives nullopt; when `required`, absence and the empty string
// are reported as "required".
std::optional<std::string> StringField(const nlohmann::json& object, absl::string_view key,
                                       absl::string_view parent, bool required,
                                       FieldErrors* errors);
std::optional<int64_t> IntField(const nlohmann::json& object, absl::string_view key,
                                absl::string_view parent, bool required, FieldErrors* errors);
std::optional<bool> BoolField(const nlohmann::json& object, absl::string_view key,
                              absl::string_view parent, FieldErrors* errors);
// The member when it is an object; nullptr when absent or of another type (reported).
const nlohmann::json* ObjectField(const nlohmann::json& object, absl::string_view key,
                                  absl::string_view parent, bool required, FieldErrors* errors);
// The member when it is an array; nullptr when absent or of another type (reported).
const nlohmann::json* ArrayField(const nlohmann::json& object, absl::string_view key,
                                 absl::string_view parent, bool required, FieldErrors* errors);

// Calls `fn(item, item_path)` for each element of the optional list member `key` of `object`
// that is an object, in order; reports a member that is no list and elements that are no objects.
template <typename Fn>
void ForEachObject(const nlohmann::json& object, absl::string_view key, absl::string_view parent,
                   FieldErrors* errors, Fn&& fn) {
  const nlohmann::json* list = ArrayField(object, key, parent, /*required=*/false, errors);
  if (list == nullptr) return;
  const std::string path = FieldChild(parent, key);
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = FieldIndex(path, i);
    if (CheckObject((*list)[i], item_path, errors)) fn((*list)[i], item_path);
  }
}

}  // namespace gpuprofile::meta
