// File: test/cel/conformance/value_json.cc
#include "test/cel/conformance/value_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/core/status_macros.h"

namespace gpuprofile::cel::conformance {
namespace {

using nlohmann::json;

constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

absl::Status Malformed(absl::string_view what, const json& j) {
  return absl::InvalidArgumentError(absl::StrCat("malformed ", what, ": ", j.dump()));
}

// Protobuf JSON writes 64-bit integers as strings but accepts numbers too.
absl::StatusOr<int64_t> ParseInt64(const json& j) {
  int64_t v = 0;
  if (j.is_string() && absl::SimpleAtoi(j.get<std::string>(), &v)) return v;
  if (j.is_number_integer()) return j.get<int64_t>();
  return Malformed("int64", j);
}

absl::StatusOr<uint64_t> ParseUint64(const json& j) {
  uint64_t v = 0;
  if (j.is_string() && absl::SimpleAtoi(j.get<std::string>(), &v)) return v;
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0)
    return static_cast<uint64_t>(j.get<int64_t>());
  return Malformed("uint64", j);
}

absl::StatusOr<double> ParseDouble(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    double v = 0;
    if (absl::SimpleAtod(s, &v)) return v;
  }
  return Malformed("double", j);
}

absl::StatusOr<std::string> ParseBytes(const json& j) {
  if (!j.is_string()) return Malformed("bytes", j);
  std::string out;
  const std::string in = j.get<std::string>();
  if (absl::Base64Unescape(in, &out) || absl::WebSafeBase64Unescape(in, &out)) return out;
  return Malformed("bytes", j);
}

// google.protobuf.Value in its JSON form (any JSON value).
Value FromJsonValue(const json& j) {
  if (j.is_null()) return Value::Null();
  if (j.is_boolean()) return Value::Bool(j.get<bool>());
  if (j.is_number()) return Value::Double(j.get<double>());
  if (j.is_string()) return Value::String(j.get<std::string>());
  if (j.is_array()) {
    std::vector<Value> elements;
    for (const json& e : j) elements.push_back(FromJsonValue(e));
    return Value::List(std::move(elements));
  }
  auto map = std::make_shared<HashMapValue>();
  for (const auto& [k, v] : j.items()) map->Insert(Value::String(k), FromJsonValue(v));
  return Value::Map(std::move(map));
}

// An Any-packed message in protobuf JSON: {"@type": url, ...fields} or, for well-known types,
// {"@type": url, "value": <the type's own JSON form>}.
absl::StatusOr<Value> FromObjectJson(const json& j) {
  if (!j.is_object() || !j.contains("@type") || !j["@type"].is_string()) {
    return Malformed("objectValue", j);
  }
  absl::string_view type = j["@type"].get_ref<const std::string&>();
  if (absl::StartsWith(type, kTypeUrlPrefix)) type.remove_prefix(kTypeUrlPrefix.size());
  const json value = j.contains("value") ? j["value"] : json();
  // Wrappers omit "value" when it is the default.
  if (type == "google.protobuf.BoolValue") {
    return Value::Bool(value.is_boolean() && value.get<bool>());
  }
  if (type == "google.protobuf.Int32Value" || type == "google.protobuf.Int64Value") {
    if (value.is_null()) return Value::Int(0);
    ASSIGN_OR_RETURN(int64_t v, ParseInt64(value));
    return Value::Int(v);
  }
  if (type == "google.protobuf.UInt32Value" || type == "google.protobuf.UInt64Value") {
    if (value.is_null()) return Value::Uint(0);
    ASSIGN_OR_RETURN(uint64_t v, ParseUint64(value));
    return Value::Uint(v);
  }
  if (type == "google.protobuf.FloatValue" || type == "google.protobuf.DoubleValue") {
    if (value.is_null()) return Value::Double(0);
    ASSIGN_OR_RETURN(double v, ParseDouble(value));
    return Value::Double(v);
  }
  if (type == "google.protobuf.StringValue") {
    return Value::String(value.is_string() ? value.get<std::string>() : "");
  }
  if (type == "google.protobuf.BytesValue") {
    if (value.is_null()) return Value::Bytes("");
    ASSIGN_OR_RETURN(std::string v, ParseBytes(value));
    return Value::Bytes(std::move(v));
  }
  if (type == "google.protobuf.Duration") {
    absl::Duration d;
    if (!value.is_string() || !absl::ParseDuration(value.get<std::string>(), &d)) {
      return Malformed("google.protobuf.Duration", j);
    }
    return Value::Duration(d);
  }
  if (type == "google.protobuf.Timestamp") {
    absl::Time t;
    std::string err;
    if (!value.is_string() ||
        !absl::ParseTime(absl::RFC3339_full, value.get<std::string>(), &t, &err)) {
      return Malformed("google.protobuf.Timestamp", j);
    }
    return Value::Timestamp(t);
  }
  if (type == "google.protobuf.Value") return FromJsonValue(value);
  if (type == "google.protobuf.Struct") {
    if (!value.is_null() && !value.is_object()) return Malformed("google.protobuf.Struct", j);
    return FromJsonValue(value.is_null() ? json::object() : value);
  }
  if (type == "google.protobuf.ListValue") {
    if (!value.is_null() && !value.is_array()) return Malformed("google.protobuf.ListValue", j);
    return FromJsonValue(value.is_null() ? json::array() : value);
  }
  return absl::UnimplementedError(absl::StrCat("protobuf message value of type ", type));
}

Type PrimitiveType(absl::string_view name, bool* ok) {
  *ok = true;
  if (name == "BOOL") return Type::Bool();
  if (name == "INT64") return Type::Int();
  if (name == "UINT64") return Type::Uint();
  if (name == "DOUBLE") return Type::Double();
  if (name == "STRING") return Type::String();
  if (name == "BYTES") return Type::Bytes();
  *ok = false;
  return Type::Dyn();
}

bool IsNaN(const Value& v) {
  return v.kind() == ValueKind::kDouble && std::isnan(v.double_value());
}

}  // namespace

absl::StatusOr<Value> ValueFromProtoJson(const json& j) {
  if (!j.is_object() || j.size() != 1) return Malformed("cel.expr.Value", j);
  const auto it = j.begin();
  const std::string& key = it.key();
  const json& v = it.value();
  if (key == "nullValue") return Value::Null();
  if (key == "boolValue") {
    if (!v.is_boolean()) return Malformed("boolValue", j);
    return Value::Bool(v.get<bool>());
  }
  if (key == "int64Value") {
    ASSIGN_OR_RETURN(int64_t i, ParseInt64(v));
    return Value::Int(i);
  }
  if (key == "uint64Value") {
    ASSIGN_OR_RETURN(uint64_t u, ParseUint64(v));
    return Value::Uint(u);
  }
  if (key == "doubleValue") {
    ASSIGN_OR_RETURN(double d, ParseDouble(v));
    return Value::Double(d);
  }
  if (key == "stringValue") {
    if (!v.is_string()) return Malformed("stringValue", j);
    return Value::String(v.get<std::string>());
  }
  if (key == "bytesValue") {
    ASSIGN_OR_RETURN(std::string b, ParseBytes(v));
    return Value::Bytes(std::move(b));
  }
  if (key == "listValue") {
    std::vector<Value> elements;
    if (v.is_object() && v.contains("values")) {
      for (const json& e : v["values"]) {
        ASSIGN_OR_RETURN(Value element, ValueFromProtoJson(e));
        elements.push_back(std::move(element));
      }
    }
    return Value::List(std::move(elements));
  }
  if (key == "mapValue") {
    auto map = std::make_shared<HashMapValue>();
    if (v.is_object() && v.contains("entries")) {
      for (const json& e : v["entries"]) {
        if (!e.is_object() || !e.contains("key") || !e.contains("value")) {
          return Malformed("mapValue entry", e);
        }
        ASSIGN_OR_RETURN(Value k, ValueFromProtoJson(e["key"]));
        ASSIGN_OR_RETURN(Value val, ValueFromProtoJson(e["value"]));
        if (!map->Insert(std::move(k), std::move(val)))
          return Malformed("mapValue (repeated key)", j);
      }
    }
    return Value::Map(std::move(map));
  }
  if (key == "typeValue") {
    if (!v.is_string()) return Malformed("typeValue", j);
    return Value::Type(v.get<std::string>());
  }
  if (key == "objectValue") return FromObjectJson(v);
  if (key == "enumValue") return absl::UnimplementedError("protobuf enum value");
  return Malformed("cel.expr.Value", j);
}

absl::StatusOr<json> ValueToProtoJson(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kNull:
      return json{{"nullValue", nullptr}};
    case ValueKind::kBool:
      return json{{"boolValue", value.bool_value()}};
    case ValueKind::kInt:
      return json{{"int64Value", std::to_string(value.int_value())}};
    case ValueKind::kUint:
      return json{{"uint64Value", std::to_string(value.uint_value())}};
    case ValueKind::kDouble: {
      const double d = value.double_value();
      if (std::isnan(d)) return json{{"doubleValue", "NaN"}};
      if (std::isinf(d)) return json{{"doubleValue", d > 0 ? "Infinity" : "-Infinity"}};
      return json{{"doubleValue", d}};
    }
    case ValueKind::kString:
      return json{{"stringValue", std::string(value.string_value())}};
    case ValueKind::kBytes:
      return json{{"bytesValue", absl::Base64Escape(value.string_value())}};
    case ValueKind::kType:
      return json{{"typeValue", std::string(value.string_value())}};
    case ValueKind::kList: {
      json values = json::array();
      const ListValue& list = value.list_value();
      for (size_t i = 0; i < list.size(); ++i) {
        ASSIGN_OR_RETURN(json e, ValueToProtoJson(list.Get(i)));
        values.push_back(std::move(e));
      }
      return json{{"listValue", {{"values", std::move(values)}}}};
    }
    case ValueKind::kMap: {
      json entries = json::array();
      const MapValue& map = value.map_value();
      for (const Value& k : map.Keys()) {
        ASSIGN_OR_RETURN(json jk, ValueToProtoJson(k));
        ASSIGN_OR_RETURN(json jv, ValueToProtoJson(*map.Find(k)));
        entries.push_back(json{{"key", std::move(jk)}, {"value", std::move(jv)}});
      }
      return json{{"mapValue", {{"entries", std::move(entries)}}}};
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no protobuf-JSON form for ", value.TypeName(), " value"));
  }
}

absl::StatusOr<Type> TypeFromProtoJson(const json& j) {
  if (!j.is_object()) return Malformed("cel.expr.Type", j);
  if (j.empty() || j.contains("dyn")) return Type::Dyn();
  if (j.contains("null")) return Type::Null();
  if (j.contains("primitive") || j.contains("wrapper")) {
    const json& p = j.contains("primitive") ? j["primitive"] : j["wrapper"];
    bool ok = false;
    Type t = PrimitiveType(p.is_string() ? p.get<std::string>() : "", &ok);
    if (!ok) return Malformed("primitive type", j);
    // cel-go's wrappers are nullable primitives; the engine has no wrapper types, so a wrapper
    // declaration becomes its primitive.
    return t;
  }
  if (j.contains("wellKnown")) {
    const std::string wk = j["wellKnown"].is_string() ? j["wellKnown"].get<std::string>() : "";
    if (wk == "DURATION") return Type::Duration();
    if (wk == "TIMESTAMP") return Type::Timestamp();
    if (wk == "ANY") return Type::Dyn();
    return Malformed("well-known type", j);
  }
  if (j.contains("listType")) {
    const json& l = j["listType"];
    if (!l.is_object() || !l.contains("elemType")) return Type::List(Type::Dyn());
    ASSIGN_OR_RETURN(Type elem, TypeFromProtoJson(l["elemType"]));
    return Type::List(std::move(elem));
  }
  if (j.contains("mapType")) {
    const json& m = j["mapType"];
    Type key = Type::Dyn();
    Type val = Type::Dyn();
    if (m.is_object() && m.contains("keyType")) {
      ASSIGN_OR_RETURN(key, TypeFromProtoJson(m["keyType"]));
    }
    if (m.is_object() && m.contains("valueType")) {
      ASSIGN_OR_RETURN(val, TypeFromProtoJson(m["valueType"]));
    }
    return Type::Map(std::move(key), std::move(val));
  }
  if (j.contains("type")) {
    if (j["type"].is_null() || j["type"].empty()) return Type::AnyTypeValue();
    ASSIGN_OR_RETURN(Type denoted, TypeFromProtoJson(j["type"]));
    return Type::TypeOf(std::move(denoted));
  }
  if (j.contains("abstractType")) {
    const json& a = j["abstractType"];
    const std::string name = a.value("name", "");
    if (name == "optional_type" && a.contains("parameterTypes") &&
        a["parameterTypes"].size() == 1) {
      ASSIGN_OR_RETURN(Type elem, TypeFromProtoJson(a["parameterTypes"][0]));
      return Type::Optional(std::move(elem));
    }
    return absl::UnimplementedError(absl::StrCat("abstract type ", name));
  }
  if (j.contains("typeParam")) return Type::Dyn();
  if (j.contains("messageType")) {
    return absl::UnimplementedError(
        absl::StrCat("protobuf message type ", j["messageType"].dump()));
  }
  // Unknown kinds of type (function types, errors): declare as dyn, as cel-go would accept.
  return Type::Dyn();
}

bool ValuesMatch(const Value& expected, const Value& actual) {
  if (expected.is_error() || actual.is_error()) return expected.is_error() && actual.is_error();
  if (expected.kind() != actual.kind()) return false;
  switch (expected.kind()) {
    case ValueKind::kDouble:
      if (IsNaN(expected) || IsNaN(actual)) return IsNaN(expected) && IsNaN(actual);
      return expected.double_value() == actual.double_value();
    case ValueKind::kType:
      return expected.string_value() == actual.string_value();
    case ValueKind::kList: {
      const ListValue& a = expected.list_value();
      const ListValue& b = actual.list_value();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!ValuesMatch(a.Get(i), b.Get(i))) return false;
      }
      return true;
    }
    case ValueKind::kMap: {
      const MapValue& a = expected.map_value();
      const MapValue& b = actual.map_value();
      if (a.size() != b.size()) return false;
      const std::vector<Value> actual_keys = b.Keys();
      for (const Value& key : a.Keys()) {
        const Value* match = nullptr;
        for (const Value& candidate : actual_keys) {
          if (ValuesMatch(key, candidate)) {
            match = &candidate;
            break;
          }
        }
        if (match == nullptr) return false;
        std::optional<Value> av = a.Find(key);
        std::optional<Value> bv = b.Find(*match);
        if (!av.has_value() || !bv.has_value() || !ValuesMatch(*av, *bv)) return false;
      }
      return true;
    }
    case ValueKind::kOptional:
      if (expected.optional_has_value() != actual.optional_has_value()) return false;
      return !expected.optional_has_value() ||
             ValuesMatch(expected.optional_value(), actual.optional_value());
    default:
      return Equal(expected, actual).IsTrue();
  }
}

std::string Describe(const Value& value) {
  if (value.is_error()) return absl::StrCat("error(", value.error_message(), ")");
  return absl::StrCat(value.DebugString(), " : ", value.TypeName());
}

}  // namespace gpuprofile::cel::conformance
