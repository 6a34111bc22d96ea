// File: controller/cel/internal/standard_library_internal.h
// Internal to the standard library's source files (standard_*.cc): the registration entry point of
// each part and the few helpers they share. Not for use outside controller/cel/standard_*.cc.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {

// Each registers one part of RegisterStandardLibrary.
void RegisterStandardOperators(FunctionRegistry& registry);    // standard_library.cc
void RegisterStandardArithmetic(FunctionRegistry& registry);   // standard_arithmetic.cc
void RegisterStandardConversions(FunctionRegistry& registry);  // standard_conversions.cc
void RegisterStandardTime(FunctionRegistry& registry);         // standard_time.cc
void RegisterStandardOptional(FunctionRegistry& registry);     // standard_optional.cc

// cel-go's error texts, shared so that every part words them alike.
inline constexpr char kIntOverflow[] = "integer overflow";
inline constexpr char kUintOverflow[] = "unsigned integer overflow";
inline constexpr char kDurationOverflow[] = "duration overflow";
inline constexpr char kTimestampOverflow[] = "timestamp overflow";

// Generic type parameters as the CEL specification names them.
inline Type ParamA() { return Type::Param("A"); }
inline Type ParamB() { return Type::Param("B"); }

// Go's %v rendering of a scalar (used where cel-go formats a value into a message, e.g. "no such
// key: x"): strings raw, doubles as %g, other kinds via DebugString().
std::string GoValueText(const Value& v);

// Go's %g (strconv.FormatFloat(d, 'g', -1, 64)): "1.5", "1e+06", "1e-05", "NaN", "+Inf".
std::string FormatDoubleGo(double d);

// Converts a list index the way cel-go does (int; uint and double only when lossless) or returns
// cel-go's error value ("unsupported index value 1.5 in list").
std::optional<int64_t> ListIndex(const Value& index, Value* error);

// Value at `index` of `list`, or cel-go's "index '5' out of range in list size '2'" error.
Value ListGet(const ListValue& list, int64_t index);

// A new map holding the entries of `map`, for functions that build a map from an old one.
std::shared_ptr<HashMapValue> CopyMap(const MapValue& map);

}  // namespace gpuprofile::cel::internal
