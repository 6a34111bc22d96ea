// File: controller/cel/types.h
// Static types used by the checker and by function declarations.
//
// A Type is a small value: a kind plus, for lists, maps, optionals and type-of types, its
// parameters; opaque library types carry their CEL name; type parameters (for generic overloads
// such as `list(T) + list(T)`) carry their parameter name. `dyn` is assignable to and from
// everything. `google.protobuf.Any` (kAny) is how the DRA environment types attribute values when
// list-typed attributes are off: assignable like dyn, but not the range of a comprehension
// (cel-go's checker accepts only list, map and dyn there).
// Thread-safety: immutable value type.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel {

class Type {
 public:
  enum class Kind {
    kDyn,
    kAny,       // google.protobuf.Any: dyn, except as a comprehension range
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kBytes,
    kList,      // params: element
    kMap,       // params: key, value
    kType,      // params: the type it denotes (or none = any type)
    kDuration,
    kTimestamp,
    kOptional,  // params: element
    kOpaque,    // name(): e.g. "kubernetes.Quantity"
    kTypeParam, // name(): e.g. "T"
    kError,
  };

  Type() : kind_(Kind::kDyn) {}

  static Type Dyn() { return Type(Kind::kDyn); }
  static Type Any() { return Type(Kind::kAny); }
  static Type Null() { return Type(Kind::kNull); }
  static Type Bool() { return Type(Kind::kBool); }
  static Type Int() { return Type(Kind::kInt); }
  static Type Uint() { return Type(Kind::kUint); }
  static Type Double() { return Type(Kind::kDouble); }
  static Type String() { return Type(Kind::kString); }
  static Type Bytes() { return Type(Kind::kBytes); }
  static Type Duration() { return Type(Kind::kDuration); }
  static Type Timestamp() { return Type(Kind::kTimestamp); }
  static Type Error() { return Type(Kind::kError); }
  static Type List(Type element);
  static Type Map(Type key, Type value);
  static Type Optional(Type element);
  static Type TypeOf(Type denoted);  // type(T)
  static Type AnyTypeValue();        // a type value of unknown denotation
  static Type Opaque(std::string name);
  static Type Param(std::string name);

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const std::vector<Type>& params() const { return params_; }

  // dyn or google.protobuf.Any (cel-go's isDyn).
  bool is_dyn() const { return kind_ == Kind::kDyn || kind_ == Kind::kAny; }

  // "int", "list(string)", "map(string, dyn)", "optional_type(int)", "kubernetes.Quantity", ...
  // as cel-go prints types in checker messages.
  std::string ToString() const;

  // Whether a runtime value may inhabit this type. Only the top-level kind is checked (list
  // elements are not); type params and dyn accept everything. Used for runtime overload dispatch.
  bool AcceptsRuntime(const Value& v) const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  explicit Type(Kind k) : kind_(k) {}
  Kind kind_;
  std::string name_;
  std::vector<Type> params_;
};

// CEL type names of opaque library types.
inline constexpr char kQuantityTypeName[] = "kubernetes.Quantity";
inline constexpr char kSemverTypeName[] = "kubernetes.Semver";

}  // namespace gpuprofile::cel
