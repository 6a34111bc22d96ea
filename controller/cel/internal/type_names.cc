// File: controller/cel/internal/type_names.cc
#include "controller/cel/internal/type_names.h"

namespace gpuprofile::cel::internal {

std::optional<Type> TypeForName(absl::string_view name) {
  if (name == "int") return Type::Int();
  if (name == "uint") return Type::Uint();
  if (name == "double") return Type::Double();
  if (name == "bool") return Type::Bool();
  if (name == "string") return Type::String();
  if (name == "bytes") return Type::Bytes();
  if (name == "null_type") return Type::Null();
  if (name == "list") return Type::List(Type::Dyn());
  if (name == "map") return Type::Map(Type::Dyn(), Type::Dyn());
  if (name == "type") return Type::AnyTypeValue();
  if (name == "optional_type") return Type::Optional(Type::Dyn());
  if (name == "google.protobuf.Duration") return Type::Duration();
  if (name == "google.protobuf.Timestamp") return Type::Timestamp();
  return std::nullopt;
}

}  // namespace gpuprofile::cel::internal
