// File: test/cel/conformance/value_json.h
// Conversions between the CEL conformance data's protobuf-JSON forms and the engine's Value and
// Type, shared by the conformance runner and the differential test.
//
//   cel.expr.Value (value.proto) <-> Value:
//     {"nullValue": null}, {"boolValue": true}, {"int64Value": "-1"}, {"uint64Value": "1"},
//     {"doubleValue": 1.5 | "NaN" | "Infinity" | "-Infinity"}, {"stringValue": "a"},
//     {"bytesValue": "<base64>"}, {"listValue": {"values": [...]}},
//     {"mapValue": {"entries": [{"key": V, "value": V}]}}, {"typeValue": "int"},
//     {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s"}}
//     (Duration, Timestamp, the wrappers and Struct/Value/ListValue; other messages are
//     Unimplemented because the engine has no protobuf messages).
//   cel.expr.Type (checked.proto) -> Type: primitives, wrappers (as their primitive), well-known
//     Duration/Timestamp/Any(dyn), list, map, dyn, null, type, optional_type; message and enum
//     types are Unimplemented.
//
// Errors: InvalidArgument for malformed input, Unimplemented for what needs protobuf messages.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::cel::conformance {

absl::StatusOr<Value> ValueFromProtoJson(const nlohmann::json& json);

// The inverse of ValueFromProtoJson for null, bool, int, uint, double, string, bytes, list, map
// and type values; InvalidArgument for the rest (errors, optionals, opaque values, ...).
absl::StatusOr<nlohmann::json> ValueToProtoJson(const Value& value);

absl::StatusOr<Type> TypeFromProtoJson(const nlohmann::json& json);

// Whether `actual` is the value the test expects: the same kinds throughout (an int never
// matches a double, unlike CEL's `==`), CEL equality at the leaves, NaN matching NaN, map
// entries matched regardless of order, and any error matching any error.
bool ValuesMatch(const Value& expected, const Value& actual);

// Value::DebugString() with the kind spelled out where the literal hides it ("1.0" vs "1").
std::string Describe(const Value& value);

}  // namespace gpuprofile::cel::conformance
