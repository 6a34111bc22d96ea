// File: controller/dra/device.h
// The internal, version-independent model of one device published in a ResourceSlice, as every
// consumer (CEL evaluation, inventory, node groups, `cel match`) sees it, whichever
// resource.k8s.io version it was read from.
//
// The model is compact because the operator caches every device of the fleet (issue targets:
// the cache no larger than the slices' JSON). The devices of one slice share one immutable
// storage block: every string they carry (driver, pool, node, attribute names and values) is kept
// once per block, attributes are 16-byte entries, and equal capacities are kept once. A `Device`
// is a handle (a shared pointer to its block and an index), so copying devices, sorting them and
// keeping them in several inventories costs no more than copying pointers.
//
// Reading: the accessors return views (`absl::string_view`, `AttributeValue`) into the block;
// they stay valid while any handle to a device of that block lives.
// Building: DeviceSetBuilder (the decoders: all devices of one slice) or DeviceBuilder (one
// device, for tests and examples); both copy what they are given.
// Thread-safety: devices are immutable and safe to share across threads; builders are
// thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"

namespace gpuprofile::dra {

// A DeviceAttribute value: exactly one of int, bool, string, version, or (DRAListTypeAttributes,
// Kubernetes 1.36+) a list of one of them: ints, bools, strings, versions. A value of a kind this
// project does not know (a newer release's) is kept as kOpaque with its JSON text, so that the
// slice still decodes; CEL reports an error when a selector reads it.
// A view: its text and list items refer to the device it was read from, or to the caller's
// strings and items when passed to a builder.
class AttributeValue {
 public:
  enum class Kind : uint8_t {
    kInt,
    kBool,
    kString,
    kVersion,
    kIntList,
    kBoolList,
    kStringList,
    kVersionList,
    kOpaque,
  };

  AttributeValue() = default;  // the empty string
  static AttributeValue Int(int64_t value);
  static AttributeValue Bool(bool value);
  static AttributeValue String(absl::string_view text);
  // A version attribute, with its text as published (not necessarily strict semver).
  static AttributeValue Version(absl::string_view text);
  // A list of `element_kind` values (a scalar kind); every item must be of that kind. A view of
  // `items`, which must outlive the value.
  static AttributeValue List(Kind element_kind, absl::Span<const AttributeValue> items);
  // A value of a kind this project does not know; `json_text` is the attribute's JSON object.
  static AttributeValue Opaque(absl::string_view json_text);

  static bool IsListKind(Kind kind) { return kind >= Kind::kIntList && kind <= Kind::kVersionList; }
  // kIntList -> kInt, ...; scalar kinds and kOpaque map to themselves.
  static Kind ElementKind(Kind list_kind);
  // kInt -> kIntList, ...; list kinds and kOpaque map to themselves.
  static Kind ListKindOf(Kind element_kind);
  // The member name the API uses for the kind: "int", "ints", ...; "opaque" for kOpaque.
  static absl::string_view KindName(Kind kind);

  Kind kind() const { return kind_; }
  bool is_list() const { return IsListKind(kind_); }
  int64_t int_value() const { return kind_ == Kind::kInt ? int_ : 0; }
  bool bool_value() const { return kind_ == Kind::kBool && int_ != 0; }
  // kString: the string; kVersion: the text as published; kOpaque: the JSON text; otherwise
  // empty.
  absl::string_view string_value() const { return text_; }
  // Lists: the items (each of ElementKind(kind())); empty for other kinds.
  absl::Span<const AttributeValue> list_items() const {
    return is_list() ? absl::Span<const AttributeValue>(items_, static_cast<size_t>(int_))
                     : absl::Span<const AttributeValue>();
  }
  size_t list_size() const { return list_items().size(); }
  AttributeValue list_item(size_t i) const { return list_items()[i]; }
  // kVersion: the text as strict semver, or nullopt when it is not one (CEL then reports an
  // error when the attribute is read, as Kubernetes does). nullopt for other kinds.
  std::optional<Semver> ParseVersion() const;

  friend bool operator==(const AttributeValue& a, const AttributeValue& b);
  friend bool operator!=(const AttributeValue& a, const AttributeValue& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::kString;
  int64_t int_ = 0;  // kInt; kBool as 0 / 1; lists: the item count
  absl::string_view text_;
  const AttributeValue* items_ = nullptr;  // lists
};

// How a device is tied to nodes: through one node's name (the slice's spec.nodeName or, with
// per-device node selection, the device's own), a node selector, or all nodes. Only kNode
// devices have a node() and count towards node groups.
enum class NodeScope : uint8_t { kNode, kNodeSelector, kAllNodes };

// A device taint (DRADeviceTaints). `effect` as published: None, NoSchedule, NoExecute, or a
// newer release's effect.
struct DeviceTaint {
  absl::string_view key;
  absl::string_view value;
  absl::string_view effect;
  // Whether the scheduler keeps a claim that does not tolerate the taint off the device:
  // NoSchedule and NoExecute. "None" does not, and the API tells consumers to treat effects they
  // do not know (a newer release's) like None.
  bool PreventsScheduling() const;
};

// One counter a device draws from a counter set of its pool (DRAPartitionableDevices):
// consumesCounters[].counters, flattened.
struct CounterUse {
  absl::string_view counter_set;
  absl::string_view counter;
  const Quantity* value;  // never null
};

// capacity.<name>.requestPolicy (DRAConsumableCapacity, resource.k8s.io/v1 from 1.34): how the
// scheduler rounds what a claim requests of a shared device's capacity, and what a claim that
// does not request the capacity consumes. At most one of valid_values and valid_range is set.
struct CapacityRequestPolicy {
  struct Range {
    Quantity min;
    std::optional<Quantity> max;
    std::optional<Quantity> step;
  };
  std::optional<Quantity> default_value;  // `default`
  std::vector<Quantity> valid_values;     // ascending
  std::optional<Range> valid_range;

  // What a claim requesting `amount` consumes, as the scheduler rounds it: with valid_values the
  // smallest value >= amount; with valid_range below min min, with a step min + n*step (the
  // smallest >= amount); otherwise amount itself. None when the device cannot grant it (above
  // every valid value, or above the range's max).
  std::optional<Quantity> Round(const Quantity& amount) const;

  friend bool operator==(const CapacityRequestPolicy& a, const CapacityRequestPolicy& b);
  friend bool operator!=(const CapacityRequestPolicy& a, const CapacityRequestPolicy& b) {
    return !(a == b);
  }
};

namespace device_internal {
struct Block;
}  // namespace device_internal

// One attribute or capacity of a device, as its ranges yield them.
struct NamedAttribute {
  absl::string_view name;  // as published: "productName" or "resource.kubernetes.io/pcieRoot"
  AttributeValue value;
};
struct NamedCapacity {
  absl::string_view name;
  const Quantity* value;                        // never null
  const CapacityRequestPolicy* request_policy;  // null when the capacity has none
};

// The attributes (or capacities) of one device, sorted by name in byte order. `Item` is
// NamedAttribute or NamedCapacity; iterators yield items by value.
template <typename Item>
class DeviceEntries {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Item;
    Iterator(const device_internal::Block* block, uint32_t index) : block_(block), index_(index) {}
    Item operator*() const;
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

   private:
    const device_internal::Block* block_;
    uint32_t index_;
  };

  DeviceEntries(const device_internal::Block* block, uint32_t begin, uint32_t count)
      : block_(block), begin_(begin), count_(count) {}
  Iterator begin() const { return Iterator(block_, begin_); }
  Iterator end() const { return Iterator(block_, begin_ + count_); }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  Item operator[](size_t i) const { return *Iterator(block_, begin_ + static_cast<uint32_t>(i)); }

 private:
  const device_internal::Block* block_;
  uint32_t begin_;
  uint32_t count_;
};

template <>
NamedAttribute DeviceEntries<NamedAttribute>::Iterator::operator*() const;
template <>
NamedCapacity DeviceEntries<NamedCapacity>::Iterator::operator*() const;

class Device {
 public:
  Device();  // no driver, no name, no attributes

  absl::string_view driver() const;  // spec.driver of its slice
  absl::string_view pool() const;    // spec.pool.name
  int64_t pool_generation() const;
  absl::string_view slice_name() const;  // metadata.name of its slice
  // spec.nodeName of its slice (or the device's own nodeName); empty when the device is not tied
  // to one node (nodeSelector / allNodes).
  absl::string_view node() const;
  absl::string_view name() const;  // devices[].name

  // Attribute names as published: unqualified ("productName": the driver's domain) or qualified
  // ("resource.kubernetes.io/pcieRoot").
  DeviceEntries<NamedAttribute> attributes() const;
  DeviceEntries<NamedCapacity> capacity() const;
  std::optional<AttributeValue> FindAttribute(absl::string_view name) const;
  const Quantity* FindCapacity(absl::string_view name) const;

  // FindAttribute by entry, for callers that read the same names from many devices in a row
  // (profile/fleet_memo.h). An entry is an attribute (name and value) as the device's storage
  // keeps it, once for all the devices that share it: two devices of one storage with the same
  // entry have the same value there (the converse may fail for lists). `hint` remembers where
  // the last device of that storage kept the name; a slice's devices mostly list the same
  // names, so a hit compares two numbers instead of scanning names. A hint names its storage by
  // address: keep one only while the devices it saw are alive.
  struct EntryHint {
    const void* storage = nullptr;
    uint32_t position = 0;  // among the device's attributes, in name order
    uint32_t name = 0;      // the name's index in the storage
  };
  std::optional<uint32_t> FindAttributeEntry(absl::string_view name, EntryHint* hint) const;
  // The value of `entry`, found on a device of this storage.
  AttributeValue AttributeEntryValue(uint32_t entry) const;
  // The request policy of capacity `name`; null when it has none (or there is no such capacity).
  const CapacityRequestPolicy* FindRequestPolicy(absl::string_view name) const;

  NodeScope node_scope() const;
  bool allow_multiple_allocations() const;  // allowMultipleAllocations (DRAConsumableCapacity)
  std::vector<DeviceTaint> taints() const;
  bool has_taints() const;
  // Whether a taint keeps claims without a matching toleration off the device.
  bool HasSchedulingTaint() const;
  std::vector<CounterUse> counters_consumed() const;
  bool consumes_counters() const;

  // The storage this device shares with the other devices built with it (one slice's), and its
  // index there. Per-slice caches key on the storage: a slice the informer kept unchanged keeps
  // it (profile/fleet_memo.h). `storage()` keeps it alive; `storage_id()` only names it.
  std::shared_ptr<const void> storage() const { return block_; }
  const void* storage_id() const { return block_.get(); }
  uint32_t storage_index() const { return index_; }
  // How many devices the storage holds (storage_index() is below it).
  uint32_t storage_size() const;
  // True when `other` is of the same storage and holds the very same attribute and capacity
  // entries: every attribute and capacity reads the same on both, down to FindAttributeEntry's
  // entry and FindCapacity's address. A node's GPUs mostly do (their names aside), so readers
  // that work per device (profile/fleet_memo.h) take the previous device's answer after a few
  // number comparisons. Names, nodes, taints and counters are not compared.
  bool SharesEntriesWith(const Device& other) const;

  // Same fields, attributes, capacities, taints and counters (the storage may differ).
  friend bool operator==(const Device& a, const Device& b);
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
  // "driver/pool/name" plus every attribute and capacity, for test failure messages.
  std::string DebugString() const;
  friend void PrintTo(const Device& device, std::ostream* os);

 private:
  friend class DeviceSetBuilder;
  Device(std::shared_ptr<const device_internal::Block> block, uint32_t index)
      : block_(std::move(block)), index_(index) {}

  std::shared_ptr<const device_internal::Block> block_;
  uint32_t index_ = 0;
};

// Builds the devices of one slice into one shared block. Strings are copied (and kept once);
// the views passed in need only live for the call.
class DeviceSetBuilder {
 public:
  DeviceSetBuilder(absl::string_view driver, absl::string_view pool, int64_t pool_generation,
                   absl::string_view slice_name);
  ~DeviceSetBuilder();
  DeviceSetBuilder(const DeviceSetBuilder&) = delete;
  DeviceSetBuilder& operator=(const DeviceSetBuilder&) = delete;

  // Says how many devices are coming (a hint: more or fewer may be added), so that the block is
  // sized once rather than grown.
  void ExpectDevices(size_t count);
  // Starts the next device; the Add* and Set* calls below apply to it.
  void AddDevice(absl::string_view name, absl::string_view node,
                 NodeScope scope = NodeScope::kNode);
  // A name given twice for one device keeps the last value (as a JSON object would).
  void AddAttribute(absl::string_view name, const AttributeValue& value);
  void AddCapacity(absl::string_view name, const Quantity& value,
                   const CapacityRequestPolicy* request_policy = nullptr);
  void AddTaint(absl::string_view key, absl::string_view value, absl::string_view effect);
  void AddCounterUse(absl::string_view counter_set, absl::string_view counter,
                     const Quantity& value);
  void SetAllowMultipleAllocations(bool allow);
  size_t device_count() const;

  // The devices in the order added, each with its attributes and capacities sorted by name.
  std::vector<Device> Build() &&;

 private:
  struct State;
  // A finished builder leaves its working tables here for the thread's next one: a slice list
  // builds thousands of slices in a row, and tables grown anew for each cost an allocation per
  // growth (one free State per thread; a builder made while another is alive makes its own).
  static std::unique_ptr<State>& SpareState();
  std::unique_ptr<State> state_;
};

// One device, field by field (tests, examples, `cel` commands). Keeps copies of what it is
// given, so a builder can be kept and changed to make variants of a device.
class DeviceBuilder {
 public:
  explicit DeviceBuilder(std::string name = "gpu-0") : name_(std::move(name)) {}
  DeviceBuilder& Name(std::string name);
  DeviceBuilder& Driver(std::string driver);
  DeviceBuilder& Pool(std::string pool, int64_t generation = 1);
  DeviceBuilder& Slice(std::string slice_name);
  DeviceBuilder& Node(std::string node);
  // Sets (or replaces) one attribute / capacity.
  DeviceBuilder& Attribute(absl::string_view name, const AttributeValue& value);
  DeviceBuilder& Capacity(absl::string_view name, const Quantity& value,
                          std::optional<CapacityRequestPolicy> request_policy = std::nullopt);
  DeviceBuilder& RemoveAttribute(absl::string_view name);
  DeviceBuilder& Scope(NodeScope scope);
  DeviceBuilder& Taint(std::string key, std::string value, std::string effect);
  DeviceBuilder& ConsumesCounter(std::string counter_set, std::string counter, Quantity value);
  DeviceBuilder& AllowMultipleAllocations(bool allow = true);
  Device Build() const;

 private:
  struct OwnedValue {
    AttributeValue::Kind kind;
    int64_t int_value;
    std::string text;
    std::vector<OwnedValue> items;  // lists
  };
  struct OwnedTaint {
    std::string key, value, effect;
  };
  struct OwnedCounter {
    std::string counter_set, counter;
    Quantity value;
  };
  static OwnedValue Own(const AttributeValue& value);
  std::string name_;
  std::string driver_;
  std::string pool_;
  int64_t pool_generation_ = 1;
  std::string slice_name_;
  std::string node_;
  std::map<std::string, OwnedValue> attributes_;
  std::map<std::string, std::pair<Quantity, std::optional<CapacityRequestPolicy>>> capacity_;
  NodeScope scope_ = NodeScope::kNode;
  bool allow_multiple_allocations_ = false;
  std::vector<OwnedTaint> taints_;
  std::vector<OwnedCounter> counters_;
};

}  // namespace gpuprofile::dra
