// File: controller/cel/value.h
// Runtime values of the CEL evaluator.
//
// A Value is a small tagged handle: scalars live inline, everything else (strings, bytes, lists,
// maps, optionals, opaque library types such as Quantity and Semver, errors) is an immutable,
// reference-counted heap object, so copying a Value never copies data. Errors are values (CEL
// semantics): functions receive and return them like any other value.
//
// Lists and maps are interfaces so that large inputs (a device's attributes) can be exposed
// without copying into a generic container.
//
// Thread-safety: Values are immutable; copies may be shared and read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpuprofile::cel {

class Value;
class ListValue;
class MapValue;
class OpaqueValue;

// The dynamic kind of a value. kOpaque covers library types (see OpaqueValue::TypeName()).
enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kDuration,
  kTimestamp,
  kOptional,
  kOpaque,
  kError,
};

// Base of every heap-allocated payload.
class HeapObject {
 public:
  virtual ~HeapObject() = default;
};

class Value {
 public:
  Value() : kind_(ValueKind::kNull) { scalar_.i = 0; }

  static Value Null() { return Value(); }
  static Value Bool(bool v) {  // inline: the evaluator makes one per comparison
    Value r;
    r.kind_ = ValueKind::kBool;
    r.scalar_.b = v;
    return r;
  }
  static Value Int(int64_t v);
  static Value Uint(uint64_t v);
  static Value Double(double v);
  static Value String(std::string v);
  static Value Bytes(std::string v);
  static Value List(std::shared_ptr<const ListValue> v);
  static Value List(std::vector<Value> elements);  // a plain vector-backed list
  static Value Map(std::shared_ptr<const MapValue> v);
  // A type value such as `int`, `list`, `kubernetes.Quantity` (the result of `type(x)`).
  static Value Type(std::string type_name);
  static Value Duration(absl::Duration d);
  static Value Timestamp(absl::Time t);
  static Value OptionalOf(Value v);
  static Value OptionalNone();
  static Value Opaque(std::shared_ptr<const OpaqueValue> v);
  static Value Error(std::string message);
  // The standard "no such overload" / "no such key" errors, worded as cel-go words them.
  static Value NoSuchOverload(absl::string_view function);
  static Value NoSuchKey(absl::string_view key);

  ValueKind kind() const { return kind_; }
  bool is_error() const { return kind_ == ValueKind::kError; }
  bool is_bool() const { return kind_ == ValueKind::kBool; }
  bool IsTrue() const { return kind_ == ValueKind::kBool && scalar_.b; }
  bool IsFalse() const { return kind_ == ValueKind::kBool && !scalar_.b; }

  // Accessors. Calling one that does not match kind() is a programming error (checked in debug).
  bool bool_value() const { return scalar_.b; }
  int64_t int_value() const { return scalar_.i; }
  uint64_t uint_value() const { return scalar_.u; }
  double double_value() const { return scalar_.d; }
  absl::string_view string_value() const;  // kString, kBytes, kType (the type name), kError
  const std::string& string_ref() const;   // same, as the stored std::string
  const ListValue& list_value() const;
  const MapValue& map_value() const;
  absl::Duration duration_value() const;
  absl::Time timestamp_value() const;
  bool optional_has_value() const;
  const Value& optional_value() const;  // only when optional_has_value()
  const OpaqueValue& opaque_value() const;
  std::shared_ptr<const OpaqueValue> opaque_ptr() const;
  absl::string_view error_message() const { return string_value(); }

  // CEL type name of this value: "int", "string", "list", "map", "google.protobuf.Duration",
  // "optional_type", "kubernetes.Quantity", ...
  std::string TypeName() const;

  // Human-readable rendering for diagnostics and `cel match` output (CEL literal syntax where
  // one exists).
  std::string DebugString() const;

 private:
  ValueKind kind_;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
  } scalar_;
  std::shared_ptr<const HeapObject> heap_;
};

class ListValue : public HeapObject {
 public:
  virtual size_t size() const = 0;
  virtual Value Get(size_t index) const = 0;  // index < size()
};

// What one lookup site (an attribute path's key in a compiled program) remembers of where its
// key was found last: an inline cache. Maps whose keys are laid out by a layout many maps share
// (a device's fields; the attributes one driver publishes for one kind of device) answer the
// next lookup of the same key in a map of the same layout from it, without comparing keys. One
// cache serves one key. A layout is named by an id that is never reused, so a cache that outlives
// the maps it saw cannot answer for others. Thread-safe: one word, read and written relaxed; two
// threads racing over it cost each other a full lookup, never a wrong one.
class KeyCache {
 public:
  KeyCache() = default;
  KeyCache(const KeyCache& other) : word_(other.Load()) {}
  KeyCache& operator=(const KeyCache& other) {
    Store(other.Load());
    return *this;
  }
  uint64_t Load() const { return word_.load(std::memory_order_relaxed); }
  void Store(uint64_t word) const { word_.store(word, std::memory_order_relaxed); }

 private:
  mutable std::atomic<uint64_t> word_{0};  // 0: empty; otherwise the map type's own encoding
};

class MapValue : public HeapObject {
 public:
  virtual size_t size() const = 0;
  // Looks up `key` with CEL key equality (int, uint and double keys that are numerically equal
  // find each other). Returns nullopt when absent. Keys of unsupported kinds are never found.
  virtual std::optional<Value> Find(const Value& key) const = 0;
  // A fast path for string keys (attribute and field names).
  virtual std::optional<Value> FindString(absl::string_view key) const = 0;
  // Key membership for `key in map` and has(). Usually Find(key).has_value(); differs for maps
  // that answer lookups of absent keys with a default (a DRA device's attribute domains: an
  // unknown domain reads as an empty map, yet `'x' in device.attributes` is false).
  virtual bool Contains(const Value& key) const { return Find(key).has_value(); }
  // Like FindString, but returns a pointer to the stored value (valid as long as this map is),
  // or null when absent -- or when the map does not store its values (then use FindString).
  // Lets the evaluator read fields without copying reference-counted values.
  virtual const Value* FindStringRef(absl::string_view key) const { return nullptr; }
  // Membership and the stored value in one lookup, so that a presence check and the read it
  // guards (`'k' in m && m.k > 0`) cost one lookup: sets `*value` to the stored value when `key`
  // is a member (what Contains says) and to null when it is not, and returns true. Returns false,
  // leaving `*value` alone, when the map cannot answer this way (it does not store its values);
  // callers then use Contains() and FindString(). A member's value is what FindStringRef returns.
  virtual bool FindMemberRef(absl::string_view key, const Value** value) const { return false; }
  // FindStringRef and FindMemberRef for a lookup site whose key is always `key`, through that
  // site's `cache` (KeyCache); same answers. Maps without a shared layout ignore the cache.
  virtual const Value* FindStringRefCached(absl::string_view key, const KeyCache& cache) const {
    return FindStringRef(key);
  }
  virtual bool FindMemberRefCached(absl::string_view key, const KeyCache& cache,
                                   const Value** value) const {
    return FindMemberRef(key, value);
  }
  // Keys in a stable order (insertion order for literals; sorted for device maps).
  virtual std::vector<Value> Keys() const = 0;
};

// A library type that CEL treats as opaque (Quantity, Semver, IP, CIDR, URL, ...).
class OpaqueValue : public HeapObject {
 public:
  // The CEL type name, e.g. "kubernetes.Quantity", "kubernetes.Semver", "net.IP".
  virtual absl::string_view TypeName() const = 0;
  // CEL equality with another opaque value of any type. Return nullopt for "no such overload"
  // (different types), which the evaluator turns into an error value as Kubernetes does.
  virtual std::optional<bool> Equals(const OpaqueValue& other) const = 0;
  // The order of this value against `other` exactly as the type's `compareTo()` function gives
  // it (-1, 0 or 1), or nullopt when the type has no `compareTo()` or `other` is another type.
  // Lets the evaluator compare with a constant without dispatching the call.
  virtual std::optional<int> CompareTo(const OpaqueValue& other) const { return std::nullopt; }
  virtual std::string DebugString() const = 0;
};

// A simple vector-backed list.
class VectorListValue final : public ListValue {
 public:
  explicit VectorListValue(std::vector<Value> elements) : elements_(std::move(elements)) {}
  size_t size() const override { return elements_.size(); }
  Value Get(size_t index) const override { return elements_[index]; }
  const std::vector<Value>& elements() const { return elements_; }

 private:
  std::vector<Value> elements_;
};

// A general map for literals and library results: keeps insertion order, hashes keys.
class HashMapValue final : public MapValue {
 public:
  HashMapValue();
  ~HashMapValue() override;
  // Adds an entry; returns false when an equal key is already present (the caller reports the
  // CEL error "Failed with repeated key").
  bool Insert(Value key, Value value);
  size_t size() const override;
  std::optional<Value> Find(const Value& key) const override;
  std::optional<Value> FindString(absl::string_view key) const override;
  std::vector<Value> Keys() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// CEL equality (`==`) with heterogeneous numeric equality (1 == 1u == 1.0), structural equality
// for lists and maps, and NaN != NaN. Returns an error value when comparing opaque values of
// different types (Kubernetes' Quantity and Semver report "no such overload"). Values of other
// different kinds compare unequal.
Value Equal(const Value& a, const Value& b);

// Ordering for `<`, `<=`, `>`, `>=` on int/uint/double (across kinds, numerically), string,
// bytes, bool, duration and timestamp. Returns -1/0/1, or nullopt when the kinds are not
// comparable or a NaN is involved (`< ` etc. are then false for NaN, "no such overload" for
// the rest; the caller decides).
std::optional<int> Compare(const Value& a, const Value& b);

}  // namespace gpuprofile::cel
