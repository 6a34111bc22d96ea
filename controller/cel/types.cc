// File: controller/cel/types.cc
#include "controller/cel/types.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::cel {

Type Type::List(Type element) {
  Type t(Kind::kList);
  t.params_.push_back(std::move(element));
  return t;
}

Type Type::Map(Type key, Type value) {
  Type t(Kind::kMap);
  t.params_.push_back(std::move(key));
  t.params_.push_back(std::move(value));
  return t;
}

Type Type::Optional(Type element) {
  Type t(Kind::kOptional);
  t.params_.push_back(std::move(element));
  return t;
}

Type Type::TypeOf(Type denoted) {
  Type t(Kind::kType);
  t.params_.push_back(std::move(denoted));
  return t;
}

Type Type::AnyTypeValue() { return Type(Kind::kType); }

Type Type::Opaque(std::string name) {
  Type t(Kind::kOpaque);
  t.name_ = std::move(name);
  return t;
}

Type Type::Param(std::string name) {
  Type t(Kind::kTypeParam);
  t.name_ = std::move(name);
  return t;
}

std::string Type::ToString() const {
  switch (kind_) {
    case Kind::kDyn: return "dyn";
    case Kind::kAny: return "google.protobuf.Any";
    case Kind::kNull: return "null_type";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kUint: return "uint";
    case Kind::kDouble: return "double";
    case Kind::kString: return "string";
    case Kind::kBytes: return "bytes";
    case Kind::kList: return absl::StrCat("list(", params_[0].ToString(), ")");
    case Kind::kMap:
      return absl::StrCat("map(", params_[0].ToString(), ", ", params_[1].ToString(), ")");
    case Kind::kType:
      return params_.empty() ? "type" : absl::StrCat("type(", params_[0].ToString(), ")");
    case Kind::kDuration: return "google.protobuf.Duration";
    case Kind::kTimestamp: return "google.protobuf.Timestamp";
    case Kind::kOptional: return absl::StrCat("optional_type(", params_[0].ToString(), ")");
    case Kind::kOpaque: return name_;
    case Kind::kTypeParam: return name_;
    case Kind::kError: return "*error*";
  }
  return "?";
}

bool Type::AcceptsRuntime(const Value& v) const {
  switch (kind_) {
    case Kind::kDyn:
    case Kind::kAny:
    case Kind::kTypeParam:
      return true;
    case Kind::kNull: return v.kind() == ValueKind::kNull;
    case Kind::kBool: return v.kind() == ValueKind::kBool;
    case Kind::kInt: return v.kind() == ValueKind::kInt;
    case Kind::kUint: return v.kind() == ValueKind::kUint;
    case Kind::kDouble: return v.kind() == ValueKind::kDouble;
    case Kind::kString: return v.kind() == ValueKind::kString;
    case Kind::kBytes: return v.kind() == ValueKind::kBytes;
    case Kind::kList: return v.kind() == ValueKind::kList;
    case Kind::kMap: return v.kind() == ValueKind::kMap;
    case Kind::kType: return v.kind() == ValueKind::kType;
    case Kind::kDuration: return v.kind() == ValueKind::kDuration;
    case Kind::kTimestamp: return v.kind() == ValueKind::kTimestamp;
    case Kind::kOptional: return v.kind() == ValueKind::kOptional;
    case Kind::kOpaque:
      return v.kind() == ValueKind::kOpaque && v.opaque_value().TypeName() == name_;
    case Kind::kError: return v.is_error();
  }
  return false;
}

bool operator==(const Type& a, const Type& b) {
  return a.kind_ == b.kind_ && a.name_ == b.name_ && a.params_ == b.params_;
}

}  // namespace gpuprofile::cel
