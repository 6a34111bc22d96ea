// File: controller/cel/value.cc
#include "controller/cel/value.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::cel {
namespace {

// Payloads behind Value::heap_. Each kind has exactly one payload type.
struct StringData final : HeapObject {
  explicit StringData(std::string s) : text(std::move(s)) {}
  std::string text;
};

struct TimestampData final : HeapObject {
  explicit TimestampData(absl::Time t) : time(t) {}
  absl::Time time;
};

struct OptionalData final : HeapObject {
  explicit OptionalData(Value v) : value(std::move(v)) {}
  Value value;
};

const std::string& EmptyString() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

// CEL map keys compare numerically across int, uint and double, so keys are normalised: every
// integral number that fits int64 is an int key; larger unsigned values are uint keys. Doubles
// are only used for lookups (a double key in a literal is a checker error, and cel-go rejects it
// at runtime too).
using KeyRepr = std::variant<bool, int64_t, uint64_t, std::string>;

std::optional<KeyRepr> NormalizeKey(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kBool:
      return KeyRepr(key.bool_value());
    case ValueKind::kInt:
      return KeyRepr(key.int_value());
    case ValueKind::kUint:
      if (key.uint_value() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return KeyRepr(static_cast<int64_t>(key.uint_value()));
      }
      return KeyRepr(key.uint_value());
    case ValueKind::kDouble: {
      double d = key.double_value();
      if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        return KeyRepr(static_cast<int64_t>(d));
      }
      if (d >= 0 && d < 18446744073709551616.0) return KeyRepr(static_cast<uint64_t>(d));
      return std::nullopt;
    }
    case ValueKind::kString:
      return KeyRepr(key.string_ref());
    default:
      return std::nullopt;
  }
}

std::string QuoteString(absl::string_view s) {
  return absl::StrCat("\"", absl::Utf8SafeCEscape(s), "\"");
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  std::string s = absl::StrCat(d);
  return s;
}

}  // namespace

struct HashMapValue::Impl {
  absl::flat_hash_map<KeyRepr, size_t> index;
  std::vector<Value> keys;
  std::vector<Value> values;
};

HashMapValue::HashMapValue() : impl_(std::make_unique<Impl>()) {}
HashMapValue::~HashMapValue() = default;

bool HashMapValue::Insert(Value key, Value value) {
  std::optional<KeyRepr> repr = NormalizeKey(key);
  if (!repr) return false;
  auto [it, inserted] = impl_->index.emplace(std::move(*repr), impl_->keys.size());
  if (!inserted) return false;
  impl_->keys.push_back(std::move(key));
  impl_->values.push_back(std::move(value));
  return true;
}

size_t HashMapValue::size() const { return impl_->keys.size(); }

std::optional<Value> HashMapValue::Find(const Value& key) const {
  std::optional<KeyRepr> repr = NormalizeKey(key);
  if (!repr) return std::nullopt;
  auto it = impl_->index.find(*repr);
  if (it == impl_->index.end()) return std::nullopt;
  return impl_->values[it->second];
}

std::optional<Value> HashMapValue::FindString(absl::string_view key) const {
  auto it = impl_->index.find(KeyRepr(std::string(key)));
  if (it == impl_->index.end()) return std::nullopt;
  return impl_->values[it->second];
}

std::vector<Value> HashMapValue::Keys() const { return impl_->keys; }

// ---- Value factories ----

Value Value::Int(int64_t v) {
  Value r;
  r.kind_ = ValueKind::kInt;
  r.scalar_.i = v;
  return r;
}

Value Value::Uint(uint64_t v) {
  Value r;
  r.kind_ = ValueKind::kUint;
  r.scalar_.u = v;
  return r;
}

Value Value::Double(double v) {
  Value r;
  r.kind_ = ValueKind::kDouble;
  r.scalar_.d = v;
  return r;
}

Value Value::String(std::string v) {
  Value r;
  r.kind_ = ValueKind::kString;
  r.heap_ = std::make_shared<StringData>(std::move(v));
  return r;
}

Value Value::Bytes(std::string v) {
  Value r;
  r.kind_ = ValueKind::kBytes;
  r.heap_ = std::make_shared<StringData>(std::move(v));
  return r;
}

Value Value::List(std::shared_ptr<const ListValue> v) {
  Value r;
  r.kind_ = ValueKind::kList;
  r.heap_ = std::move(v);
  return r;
}

Value Value::List(std::vector<Value> elements) {
  return List(std::make_shared<VectorListValue>(std::move(elements)));
}

Value Value::Map(std::shared_ptr<const MapValue> v) {
  Value r;
  r.kind_ = ValueKind::kMap;
  r.heap_ = std::move(v);
  return r;
}

Value Value::Type(std::string type_name) {
  Value r;
  r.kind_ = ValueKind::kType;
  r.heap_ = std::make_shared<StringData>(std::move(type_name));
  return r;
}

Value Value::Duration(absl::Duration d) {
  // CEL durations are int64 nanoseconds (as in cel-go); larger ones are an error.
  constexpr double kMaxNanos = 9223372036854775807.0;
  double nanos = absl::ToDoubleNanoseconds(d);
  if (nanos > kMaxNanos || nanos < -kMaxNanos) return Error("duration out of range");
  Value r;
  r.kind_ = ValueKind::kDuration;
  r.scalar_.i = absl::ToInt64Nanoseconds(d);
  return r;
}

Value Value::Timestamp(absl::Time t) {
  Value r;
  r.kind_ = ValueKind::kTimestamp;
  r.heap_ = std::make_shared<TimestampData>(t);
  return r;
}

Value Value::OptionalOf(Value v) {
  Value r;
  r.kind_ = ValueKind::kOptional;
  r.heap_ = std::make_shared<OptionalData>(std::move(v));
  return r;
}

Value Value::OptionalNone() {
  Value r;
  r.kind_ = ValueKind::kOptional;
  return r;  // no payload: empty optional
}

Value Value::Opaque(std::shared_ptr<const OpaqueValue> v) {
  Value r;
  r.kind_ = ValueKind::kOpaque;
  r.heap_ = std::move(v);
  return r;
}

Value Value::Error(std::string message) {
  Value r;
  r.kind_ = ValueKind::kError;
  r.heap_ = std::make_shared<StringData>(std::move(message));
  return r;
}

Value Value::NoSuchOverload(absl::string_view function) {
  return Error(absl::StrCat("no such overload: ", function));
}

Value Value::NoSuchKey(absl::string_view key) {
  return Error(absl::StrCat("no such key: ", key));
}

// ---- Accessors ----

absl::string_view Value::string_value() const { return string_ref(); }

const std::string& Value::string_ref() const {
  if (!heap_) return EmptyString();
  return static_cast<const StringData&>(*heap_).text;
}

const ListValue& Value::list_value() const { return static_cast<const ListValue&>(*heap_); }
const MapValue& Value::map_value() const { return static_cast<const MapValue&>(*heap_); }

absl::Duration Value::duration_value() const { return absl::Nanoseconds(scalar_.i); }

absl::Time Value::timestamp_value() const {
  return static_cast<const TimestampData&>(*heap_).time;
}

bool Value::optional_has_value() const { return heap_ != nullptr; }

const Value& Value::optional_value() const {
  return static_cast<const OptionalData&>(*heap_).value;
}

const OpaqueValue& Value::opaque_value() const {
  return static_cast<const OpaqueValue&>(*heap_);
}

std::shared_ptr<const OpaqueValue> Value::opaque_ptr() const {
  return std::static_pointer_cast<const OpaqueValue>(heap_);
}

std::string Value::TypeName() const {
  switch (kind_) {
    case ValueKind::kNull: return "null_type";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int";
    case ValueKind::kUint: return "uint";
    case ValueKind::kDouble: return "double";
    case ValueKind::kString: return "string";
    case ValueKind::kBytes: return "bytes";
    case ValueKind::kList: return "list";
    case ValueKind::kMap: return "map";
    case ValueKind::kType: return "type";
    case ValueKind::kDuration: return "google.protobuf.Duration";
    case ValueKind::kTimestamp: return "google.protobuf.Timestamp";
    case ValueKind::kOptional: return "optional_type";
    case ValueKind::kOpaque: return std::string(opaque_value().TypeName());
    case ValueKind::kError: return "*error*";
  }
  return "unknown";
}

std::string Value::DebugString() const {
  switch (kind_) {
    case ValueKind::kNull: return "null";
    case ValueKind::kBool: return scalar_.b ? "true" : "false";
    case ValueKind::kInt: return absl::StrCat(scalar_.i);
    case ValueKind::kUint: return absl::StrCat(scalar_.u, "u");
    case ValueKind::kDouble: return FormatDouble(scalar_.d);
    case ValueKind::kString: return QuoteString(string_ref());
    case ValueKind::kBytes: return absl::StrCat("b", QuoteString(string_ref()));
    case ValueKind::kType: return string_ref();
    case ValueKind::kDuration:
      return absl::StrCat("duration(\"", absl::FormatDuration(duration_value()), "\")");
    case ValueKind::kTimestamp:
      return absl::StrCat("timestamp(\"",
                          absl::FormatTime(absl::RFC3339_full, timestamp_value(),
                                           absl::UTCTimeZone()),
                          "\")");
    case ValueKind::kOptional:
      return optional_has_value() ? absl::StrCat("optional.of(", optional_value().DebugString(), ")")
                                  : "optional.none()";
    case ValueKind::kOpaque: return opaque_value().DebugString();
    case ValueKind::kError: return absl::StrCat("error(", QuoteString(string_ref()), ")");
    case ValueKind::kList: {
      const ListValue& l = list_value();
      std::string out = "[";
      for (size_t i = 0; i < l.size(); ++i) {
        if (i > 0) out += ", ";
        out += l.Get(i).DebugString();
      }
      return out + "]";
    }
    case ValueKind::kMap: {
      const MapValue& m = map_value();
      std::string out = "{";
      bool first = true;
      for (const Value& k : m.Keys()) {
        if (!first) out += ", ";
        first = false;
        absl::StrAppend(&out, k.DebugString(), ": ", m.Find(k)->DebugString());
      }
      return out + "}";
    }
  }
  return "?";
}

// ---- Equality and ordering ----

namespace {

bool IsNumeric(ValueKind k) {
  return k == ValueKind::kInt || k == ValueKind::kUint || k == ValueKind::kDouble;
}

// Exact numeric comparison across int, uint and double (no precision loss for large integers).
std::optional<int> CompareNumeric(const Value& a, const Value& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  ValueKind ka = a.kind(), kb = b.kind();
  if (ka == ValueKind::kDouble || kb == ValueKind::kDouble) {
    if (ka == ValueKind::kDouble && kb == ValueKind::kDouble) {
      double x = a.double_value(), y = b.double_value();
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return sign(x, y);
    }
    // One double, one integer: as cel-go does, out-of-range doubles order outright and the rest
    // compare after converting the integer to double (so 2^63-1 equals 2^63 as a double).
    bool swapped = ka != ValueKind::kDouble;
    const Value& d = swapped ? b : a;
    const Value& n = swapped ? a : b;
    double x = d.double_value();
    if (std::isnan(x)) return std::nullopt;
    int r;
    if (n.kind() == ValueKind::kInt) {
      if (x < -9223372036854775808.0) {
        r = -1;
      } else if (x > 9223372036854775807.0) {
        r = 1;
      } else {
        r = sign(x, static_cast<double>(n.int_value()));
      }
    } else {
      if (x < 0) {
        r = -1;
      } else if (x > 18446744073709551615.0) {
        r = 1;
      } else {
        r = sign(x, static_cast<double>(n.uint_value()));
      }
    }
    return swapped ? -r : r;
  }
  if (ka == kb) {
    if (ka == ValueKind::kInt) return sign(a.int_value(), b.int_value());
    return sign(a.uint_value(), b.uint_value());
  }
  // int vs uint
  if (ka == ValueKind::kInt) {
    if (a.int_value() < 0) return -1;
    return sign(static_cast<uint64_t>(a.int_value()), b.uint_value());
  }
  if (b.int_value() < 0) return 1;
  return sign(a.uint_value(), static_cast<uint64_t>(b.int_value()));
}

}  // namespace

Value Equal(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  ValueKind ka = a.kind(), kb = b.kind();
  if (ka == ValueKind::kOpaque || kb == ValueKind::kOpaque) {
    if (ka != kb) return Value::NoSuchOverload("_==_");
    std::optional<bool> eq = a.opaque_value().Equals(b.opaque_value());
    if (!eq) return Value::NoSuchOverload("_==_");
    return Value::Bool(*eq);
  }
  if (IsNumeric(ka) && IsNumeric(kb)) {
    std::optional<int> c = CompareNumeric(a, b);
    return Value::Bool(c.has_value() && *c == 0);
  }
  if (ka != kb) return Value::Bool(false);
  switch (ka) {
    case ValueKind::kNull:
      return Value::Bool(true);
    case ValueKind::kBool:
      return Value::Bool(a.bool_value() == b.bool_value());
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType:
      return Value::Bool(a.string_ref() == b.string_ref());
    case ValueKind::kDuration:
      return Value::Bool(a.int_value() == b.int_value());
    case ValueKind::kTimestamp:
      return Value::Bool(a.timestamp_value() == b.timestamp_value());
    case ValueKind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return Value::Bool(false);
      if (!a.optional_has_value()) return Value::Bool(true);
      return Equal(a.optional_value(), b.optional_value());
    case ValueKind::kList: {
      const ListValue& la = a.list_value();
      const ListValue& lb = b.list_value();
      if (la.size() != lb.size()) return Value::Bool(false);
      std::optional<Value> error;
      for (size_t i = 0; i < la.size(); ++i) {
        Value e = Equal(la.Get(i), lb.Get(i));
        if (e.IsFalse()) return e;
        if (e.is_error() && !error) error = e;
      }
      return error ? *error : Value::Bool(true);
    }
    case ValueKind::kMap: {
      const MapValue& ma = a.map_value();
      const MapValue& mb = b.map_value();
      if (ma.size() != mb.size()) return Value::Bool(false);
      std::optional<Value> error;
      for (const Value& k : ma.Keys()) {
        std::optional<Value> vb = mb.Find(k);
        if (!vb) return Value::Bool(false);
        Value e = Equal(*ma.Find(k), *vb);
        if (e.IsFalse()) return e;
        if (e.is_error() && !error) error = e;
      }
      return error ? *error : Value::Bool(true);
    }
    default:
      return Value::Bool(false);
  }
}

std::optional<int> Compare(const Value& a, const Value& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  ValueKind ka = a.kind(), kb = b.kind();
  if (IsNumeric(ka) && IsNumeric(kb)) return CompareNumeric(a, b);
  if (ka != kb) return std::nullopt;
  switch (ka) {
    case ValueKind::kBool:
      return sign(a.bool_value(), b.bool_value());
    case ValueKind::kString:
    case ValueKind::kBytes: {
      int c = a.string_ref().compare(b.string_ref());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case ValueKind::kDuration:
      return sign(a.int_value(), b.int_value());
    case ValueKind::kTimestamp:
      return sign(a.timestamp_value(), b.timestamp_value());
    default:
      return std::nullopt;
  }
}

}  // namespace gpuprofile::cel
