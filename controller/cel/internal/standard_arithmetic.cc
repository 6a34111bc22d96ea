// File: controller/cel/internal/standard_arithmetic.cc
// CEL's standard definitions, part two: `-_`, `+`, `-`, `*`, `/`, `%` on numbers, strings, bytes,
// lists, timestamps and durations. Integer arithmetic is checked (CEL never wraps around) and
// time arithmetic stays within CEL's ranges; both report cel-go's error texts.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/standard_library_internal.h"
#include "controller/cel/internal/time_format.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

Value IntResult(bool overflow, int64_t v) {
  return overflow ? Value::Error(kIntOverflow) : Value::Int(v);
}

Value UintResult(bool overflow, uint64_t v) {
  return overflow ? Value::Error(kUintOverflow) : Value::Uint(v);
}

// A duration built from int64 nanoseconds, or an error when the operation overflowed.
Value DurationResult(bool overflow, int64_t nanos) {
  return overflow ? Value::Error(kIntOverflow) : Value::Duration(absl::Nanoseconds(nanos));
}

// Durations should always fit int64 nanoseconds; one that does not (built elsewhere) is an error
// rather than a silently saturated value.
std::optional<int64_t> Nanos(const Value& v, Value* error) {
  std::optional<int64_t> n = DurationToNanos(v.duration_value());
  if (!n.has_value()) *error = Value::Error(kDurationOverflow);
  return n;
}

Value AddTimestamp(absl::Time t, absl::Duration d) {
  // absl::Time has a far wider range than CEL's timestamps, so the sum itself cannot overflow.
  const absl::Time sum = t + d;
  if (!TimestampInRange(sum)) return Value::Error(kTimestampOverflow);
  return Value::Timestamp(sum);
}

void AddArithmetic(FunctionRegistry& r, absl::string_view name, std::string id,
                   std::vector<Type> params, Type result, FunctionImpl impl) {
  r.Add(name, MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl)));
}

void RegisterNegate(FunctionRegistry& r) {
  AddArithmetic(r, op::kNegate, "negate_int64", {Type::Int()}, Type::Int(),
                [](absl::Span<const Value> a) {
                  const int64_t x = a[0].int_value();
                  return IntResult(x == kInt64Min, x == kInt64Min ? 0 : -x);
                });
  AddArithmetic(r, op::kNegate, "negate_double", {Type::Double()}, Type::Double(),
      [](absl::Span<const Value> a) { return Value::Double(-a[0].double_value()); });
}

void RegisterIntArithmetic(FunctionRegistry& r) {
  const Type i = Type::Int();
  AddArithmetic(r, op::kAdd, "add_int64", {i, i}, i, [](absl::Span<const Value> a) {
    int64_t out;
    bool overflow = __builtin_add_overflow(a[0].int_value(), a[1].int_value(), &out);
    return IntResult(overflow, out);
  });
  AddArithmetic(r, op::kSubtract, "subtract_int64", {i, i}, i, [](absl::Span<const Value> a) {
    int64_t out;
    bool overflow = __builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &out);
    return IntResult(overflow, out);
  });
  AddArithmetic(r, op::kMultiply, "multiply_int64", {i, i}, i, [](absl::Span<const Value> a) {
    int64_t out;
    bool overflow = __builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &out);
    return IntResult(overflow, out);
  });
  AddArithmetic(r, op::kDivide, "divide_int64", {i, i}, i, [](absl::Span<const Value> a) {
    const int64_t x = a[0].int_value(), y = a[1].int_value();
    if (y == 0) return Value::Error("division by zero");
    if (x == kInt64Min && y == -1) return Value::Error(kIntOverflow);
    return Value::Int(x / y);
  });
  AddArithmetic(r, op::kModulo, "modulo_int64", {i, i}, i, [](absl::Span<const Value> a) {
    const int64_t x = a[0].int_value(), y = a[1].int_value();
    if (y == 0) return Value::Error("modulus by zero");
    if (x == kInt64Min && y == -1) return Value::Error(kIntOverflow);
    return Value::Int(x % y);  // truncated, sign of the dividend, as Go
  });
}

void RegisterUintArithmetic(FunctionRegistry& r) {
  const Type u = Type::Uint();
  AddArithmetic(r, op::kAdd, "add_uint64", {u, u}, u, [](absl::Span<const Value> a) {
    uint64_t out;
    bool overflow = __builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &out);
    return UintResult(overflow, out);
  });
  AddArithmetic(r, op::kSubtract, "subtract_uint64", {u, u}, u, [](absl::Span<const Value> a) {
    uint64_t out;
    bool overflow = __builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &out);
    return UintResult(overflow, out);
  });
  AddArithmetic(r, op::kMultiply, "multiply_uint64", {u, u}, u, [](absl::Span<const Value> a) {
    uint64_t out;
    bool overflow = __builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &out);
    return UintResult(overflow, out);
  });
  AddArithmetic(r, op::kDivide, "divide_uint64", {u, u}, u, [](absl::Span<const Value> a) {
    if (a[1].uint_value() == 0) return Value::Error("division by zero");
    return Value::Uint(a[0].uint_value() / a[1].uint_value());
  });
  AddArithmetic(r, op::kModulo, "modulo_uint64", {u, u}, u, [](absl::Span<const Value> a) {
    if (a[1].uint_value() == 0) return Value::Error("modulus by zero");
    return Value::Uint(a[0].uint_value() % a[1].uint_value());
  });
}

void RegisterDoubleArithmetic(FunctionRegistry& r) {
  // IEEE semantics: x / 0.0 is +-Inf or NaN, never an error.
  const Type d = Type::Double();
  AddArithmetic(r, op::kAdd, "add_double", {d, d}, d, [](absl::Span<const Value> a) {
    return Value::Double(a[0].double_value() + a[1].double_value());
  });
  AddArithmetic(r, op::kSubtract, "subtract_double", {d, d}, d, [](absl::Span<const Value> a) {
    return Value::Double(a[0].double_value() - a[1].double_value());
  });
  AddArithmetic(r, op::kMultiply, "multiply_double", {d, d}, d, [](absl::Span<const Value> a) {
    return Value::Double(a[0].double_value() * a[1].double_value());
  });
  AddArithmetic(r, op::kDivide, "divide_double", {d, d}, d, [](absl::Span<const Value> a) {
    return Value::Double(a[0].double_value() / a[1].double_value());
  });
}

void RegisterConcatenation(FunctionRegistry& r) {
  AddArithmetic(r, op::kAdd, "add_string", {Type::String(), Type::String()}, Type::String(),
      [](absl::Span<const Value> a) {
        return Value::String(absl::StrCat(a[0].string_value(), a[1].string_value()));
      });
  AddArithmetic(r, op::kAdd, "add_bytes", {Type::Bytes(), Type::Bytes()}, Type::Bytes(),
      [](absl::Span<const Value> a) {
        return Value::Bytes(absl::StrCat(a[0].string_value(), a[1].string_value()));
      });
  const Type list_a = Type::List(ParamA());
  AddArithmetic(r, op::kAdd, "add_list", {list_a, list_a}, list_a, [](absl::Span<const Value> a) {
    const ListValue& x = a[0].list_value();
    const ListValue& y = a[1].list_value();
    // Values are immutable, so an empty side lets the other be shared rather than copied.
    if (x.size() == 0) return a[1];
    if (y.size() == 0) return a[0];
    std::vector<Value> out;
    out.reserve(x.size() + y.size());
    for (size_t i = 0; i < x.size(); ++i) out.push_back(x.Get(i));
    for (size_t i = 0; i < y.size(); ++i) out.push_back(y.Get(i));
    return Value::List(std::move(out));
  });
}

void RegisterTimeArithmetic(FunctionRegistry& r) {
  const Type ts = Type::Timestamp();
  const Type du = Type::Duration();
  AddArithmetic(r, op::kAdd, "add_timestamp_duration", {ts, du}, ts, [](absl::Span<const Value> a) {
    Value error;
    if (!Nanos(a[1], &error).has_value()) return error;
    return AddTimestamp(a[0].timestamp_value(), a[1].duration_value());
  });
  AddArithmetic(r, op::kAdd, "add_duration_timestamp", {du, ts}, ts, [](absl::Span<const Value> a) {
    Value error;
    if (!Nanos(a[0], &error).has_value()) return error;
    return AddTimestamp(a[1].timestamp_value(), a[0].duration_value());
  });
  AddArithmetic(r, op::kAdd, "add_duration_duration", {du, du}, du, [](absl::Span<const Value> a) {
    Value error;
    std::optional<int64_t> x = Nanos(a[0], &error), y = Nanos(a[1], &error);
    if (!x.has_value() || !y.has_value()) return error;
    int64_t out;
    bool overflow = __builtin_add_overflow(*x, *y, &out);
    return DurationResult(overflow, out);
  });
  AddArithmetic(r, op::kSubtract, "subtract_duration_duration", {du, du}, du,
      [](absl::Span<const Value> a) {
        Value error;
        std::optional<int64_t> x = Nanos(a[0], &error), y = Nanos(a[1], &error);
        if (!x.has_value() || !y.has_value()) return error;
        int64_t out;
        bool overflow = __builtin_sub_overflow(*x, *y, &out);
        return DurationResult(overflow, out);
      });
  AddArithmetic(r, op::kSubtract, "subtract_timestamp_duration", {ts, du}, ts,
      [](absl::Span<const Value> a) {
        Value error;
        std::optional<int64_t> d = Nanos(a[1], &error);
        if (!d.has_value()) return error;
        // As cel-go: t - d is t + (-d), and -d overflows for the most negative duration.
        if (*d == kInt64Min) return Value::Error(kIntOverflow);
        return AddTimestamp(a[0].timestamp_value(), absl::Nanoseconds(-*d));
      });
  AddArithmetic(r, op::kSubtract, "subtract_timestamp_timestamp", {ts, ts}, du,
      [](absl::Span<const Value> a) {
        // The difference of two valid timestamps always fits absl::Duration; it must also fit
        // int64 nanoseconds (about 292 years) to be a CEL duration.
        std::optional<int64_t> n =
            DurationToNanos(a[0].timestamp_value() - a[1].timestamp_value());
        if (!n.has_value()) return Value::Error(kIntOverflow);
        return Value::Duration(absl::Nanoseconds(*n));
      });
}

}  // namespace

void RegisterStandardArithmetic(FunctionRegistry& registry) {
  RegisterNegate(registry);
  RegisterIntArithmetic(registry);
  RegisterUintArithmetic(registry);
  RegisterDoubleArithmetic(registry);
  RegisterConcatenation(registry);
  RegisterTimeArithmetic(registry);
}

}  // namespace gpuprofile::cel::internal
