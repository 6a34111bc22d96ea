// File: controller/dra/device.cc
#include "controller/dra/device.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/core/same_text.h"

namespace gpuprofile::dra {
namespace device_internal {

// A string in a block's text: offset and size.
struct Text {
  uint32_t offset = 0;
  uint32_t size = 0;
};

// 16 bytes: the name (index into Block::names), the kind, and the value: the int, the bool as
// 0 / 1, or the Text of a string or version packed as offset << 32 | size.
struct AttributeEntry {
  uint32_t name = 0;
  AttributeValue::Kind kind = AttributeValue::Kind::kString;
  uint64_t payload = 0;
};
static_assert(sizeof(AttributeEntry) == 16);

inline constexpr uint32_t kNoPolicy = ~uint32_t{0};

struct CapacityEntry {
  uint32_t name = 0;            // index into Block::names
  uint32_t quantity = 0;        // index into Block::quantities
  uint32_t policy = kNoPolicy;  // index into Extras::policies
};

// A taint: its texts in the block.
struct TaintEntry {
  Text key;
  Text value;
  Text effect;
};

// One counter of a consumesCounters entry: set and counter as name indexes, the amount as an
// index into Block::quantities.
struct CounterEntry {
  uint32_t counter_set = 0;
  uint32_t counter = 0;
  uint32_t quantity = 0;
};

struct DeviceEntry {
  Text name;
  Text node;
  uint32_t attributes_begin = 0;  // into Block::attribute_refs
  uint32_t attributes_count = 0;
  uint32_t capacity_begin = 0;
  uint32_t capacity_count = 0;
};
static_assert(sizeof(DeviceEntry) == 32);

// What only some devices have (taints, counters, sharing, node selectors): kept apart, so that a
// device without them costs nothing more than before they existed.
struct DeviceExtra {
  uint32_t device = 0;  // index into Block::devices
  uint32_t taints_begin = 0;
  uint32_t counters_begin = 0;
  uint16_t taints_count = 0;
  uint16_t counters_count = 0;
  NodeScope scope = NodeScope::kNode;
  bool allow_multiple_allocations = false;
};

struct Extras {
  std::vector<DeviceExtra> devices;  // ascending by device
  std::vector<TaintEntry> taints;
  std::vector<CounterEntry> counters;
  // Items of list-typed attributes: entries as the builder added them (a list attribute's payload
  // is begin << 32 | count into them), and the same as values, made once the text is final.
  std::vector<AttributeEntry> list_entries;
  std::vector<AttributeValue> list_values;
  std::vector<CapacityRequestPolicy> policies;  // distinct capacity request policies
  bool empty() const { return devices.empty() && list_entries.empty() && policies.empty(); }
};

struct Block {
  std::string text;  // every distinct string of the block, once
  Text driver;
  Text pool;
  Text slice_name;
  int64_t pool_generation = 0;
  std::vector<Text> names;  // distinct attribute and capacity names
  std::vector<DeviceEntry> devices;
  // The distinct attribute entries of the block's devices, and each device's (a DeviceEntry's
  // attributes range) as indexes into them, in name order. A slice's devices mostly share most
  // of their attributes (8 GPUs of a node: 7 of their 10), so each is kept once: 16 bytes once
  // plus 4 per device, instead of 16 per device.
  std::vector<AttributeEntry> attributes;
  std::vector<uint32_t> attribute_refs;
  std::vector<CapacityEntry> capacities;
  std::vector<Quantity> quantities;  // distinct capacity values
  std::unique_ptr<Extras> extras;    // null when no device has any

  // The extras of device `index`, or nullptr.
  const DeviceExtra* ExtraOf(uint32_t index) const {
    if (extras == nullptr) return nullptr;
    auto it = std::lower_bound(extras->devices.begin(), extras->devices.end(), index,
                               [](const DeviceExtra& e, uint32_t i) { return e.device < i; });
    return it != extras->devices.end() && it->device == index ? &*it : nullptr;
  }

  absl::string_view View(Text t) const { return absl::string_view(text.data() + t.offset, t.size); }
  absl::string_view Name(uint32_t index) const { return View(names[index]); }
};

namespace {

Text Unpack(uint64_t payload) {
  return Text{static_cast<uint32_t>(payload >> 32), static_cast<uint32_t>(payload)};
}
uint64_t Pack(Text t) { return (static_cast<uint64_t>(t.offset) << 32) | t.size; }

bool IsText(AttributeValue::Kind kind) {
  return kind == AttributeValue::Kind::kString || kind == AttributeValue::Kind::kVersion ||
         kind == AttributeValue::Kind::kOpaque;
}

// A scalar or opaque entry as a value viewing the block's text.
AttributeValue ScalarValue(const Block& block, AttributeValue::Kind kind, uint64_t payload) {
  switch (kind) {
    case AttributeValue::Kind::kInt:
      return AttributeValue::Int(static_cast<int64_t>(payload));
    case AttributeValue::Kind::kBool:
      return AttributeValue::Bool(payload != 0);
    case AttributeValue::Kind::kVersion:
      return AttributeValue::Version(block.View(Unpack(payload)));
    case AttributeValue::Kind::kOpaque:
      return AttributeValue::Opaque(block.View(Unpack(payload)));
    default:
      return AttributeValue::String(block.View(Unpack(payload)));
  }
}

}  // namespace
}  // namespace device_internal

using device_internal::AttributeEntry;
using device_internal::Block;
using device_internal::CapacityEntry;
using device_internal::CounterEntry;
using device_internal::DeviceEntry;
using device_internal::TaintEntry;
using device_internal::Text;

AttributeValue AttributeValue::Int(int64_t value) {
  AttributeValue v;
  v.kind_ = Kind::kInt;
  v.int_ = value;
  return v;
}

AttributeValue AttributeValue::Bool(bool value) {
  AttributeValue v;
  v.kind_ = Kind::kBool;
  v.int_ = value ? 1 : 0;
  return v;
}

AttributeValue AttributeValue::String(absl::string_view text) {
  AttributeValue v;
  v.kind_ = Kind::kString;
  v.text_ = text;
  return v;
}

AttributeValue AttributeValue::Version(absl::string_view text) {
  AttributeValue v;
  v.kind_ = Kind::kVersion;
  v.text_ = text;
  return v;
}

AttributeValue AttributeValue::List(Kind element_kind, absl::Span<const AttributeValue> items) {
  AttributeValue v;
  v.kind_ = ListKindOf(element_kind);
  v.int_ = static_cast<int64_t>(items.size());
  v.items_ = items.data();
  return v;
}

AttributeValue AttributeValue::Opaque(absl::string_view json_text) {
  AttributeValue v;
  v.kind_ = Kind::kOpaque;
  v.text_ = json_text;
  return v;
}

AttributeValue::Kind AttributeValue::ElementKind(Kind list_kind) {
  switch (list_kind) {
    case Kind::kIntList:
      return Kind::kInt;
    case Kind::kBoolList:
      return Kind::kBool;
    case Kind::kStringList:
      return Kind::kString;
    case Kind::kVersionList:
      return Kind::kVersion;
    default:
      return list_kind;
  }
}

AttributeValue::Kind AttributeValue::ListKindOf(Kind element_kind) {
  switch (element_kind) {
    case Kind::kInt:
      return Kind::kIntList;
    case Kind::kBool:
      return Kind::kBoolList;
    case Kind::kString:
      return Kind::kStringList;
    case Kind::kVersion:
      return Kind::kVersionList;
    default:
      return element_kind;
  }
}

absl::string_view AttributeValue::KindName(Kind kind) {
  switch (kind) {
    case Kind::kInt:
      return "int";
    case Kind::kBool:
      return "bool";
    case Kind::kString:
      return "string";
    case Kind::kVersion:
      return "version";
    case Kind::kIntList:
      return "ints";
    case Kind::kBoolList:
      return "bools";
    case Kind::kStringList:
      return "strings";
    case Kind::kVersionList:
      return "versions";
    case Kind::kOpaque:
      return "opaque";
  }
  return "opaque";
}

bool operator==(const AttributeValue& a, const AttributeValue& b) {
  if (a.kind_ != b.kind_ || a.int_ != b.int_ || a.text_ != b.text_) return false;
  if (!a.is_list()) return true;
  absl::Span<const AttributeValue> ai = a.list_items(), bi = b.list_items();
  for (size_t i = 0; i < ai.size(); ++i) {
    if (ai[i] != bi[i]) return false;
  }
  return true;
}

bool DeviceTaint::PreventsScheduling() const {
  return effect == "NoSchedule" || effect == "NoExecute";
}

std::optional<Semver> AttributeValue::ParseVersion() const {
  if (kind_ != Kind::kVersion) return std::nullopt;
  absl::StatusOr<Semver> parsed = Semver::ParseStrict(text_);
  if (!parsed.ok()) return std::nullopt;
  return *std::move(parsed);
}

namespace {

// The value of attribute entry `e` of `block`.
AttributeValue EntryValue(const Block& block, const AttributeEntry& e) {
  if (AttributeValue::IsListKind(e.kind)) {
    const Text range = device_internal::Unpack(e.payload);  // begin, count
    return AttributeValue::List(AttributeValue::ElementKind(e.kind),
                                absl::Span<const AttributeValue>(
                                    block.extras->list_values.data() + range.offset, range.size));
  }
  return device_internal::ScalarValue(block, e.kind, e.payload);
}

}  // namespace

template <>
NamedAttribute DeviceEntries<NamedAttribute>::Iterator::operator*() const {
  const AttributeEntry& e = block_->attributes[block_->attribute_refs[index_]];
  return NamedAttribute{block_->Name(e.name), EntryValue(*block_, e)};
}

template <>
NamedCapacity DeviceEntries<NamedCapacity>::Iterator::operator*() const {
  const CapacityEntry& e = block_->capacities[index_];
  return NamedCapacity{
      block_->Name(e.name), &block_->quantities[e.quantity],
      e.policy == device_internal::kNoPolicy ? nullptr : &block_->extras->policies[e.policy]};
}

namespace {

// The block of Device(): one device with nothing set.
const std::shared_ptr<const Block>& EmptyBlock() {
  static const std::shared_ptr<const Block>* const kEmpty = [] {
    auto block = std::make_shared<Block>();
    block->devices.emplace_back();
    return new std::shared_ptr<const Block>(std::move(block));
  }();
  return *kEmpty;
}

// Device::FindAttribute scans a device's attributes up to this many, and binary-searches more.
constexpr ptrdiff_t kLinearFindLimit = 24;

// Binary search of a name among a device's sorted entries.
template <typename Entry>
const Entry* FindByName(const Block& block, const std::vector<Entry>& entries, uint32_t begin,
                        uint32_t count, absl::string_view name) {
  const Entry* first = entries.data() + begin;
  const Entry* last = first + count;
  // Devices publish a capacity or two: a scan comparing lengths first beats the search's
  // ordered comparisons (the names are unique, so any match is the one).
  if (count <= 4) {
    for (const Entry* e = first; e != last; ++e) {
      if (SameText(block.Name(e->name), name)) return e;
    }
    return nullptr;
  }
  const Entry* it = std::lower_bound(first, last, name, [&](const Entry& e, absl::string_view n) {
    return block.Name(e.name) < n;
  });
  if (it == last || block.Name(it->name) != name) return nullptr;
  return it;
}

// min + n*step, the smallest such value >= amount (amount > min, step > 0). Exact for whole
// numbers (capacities are bytes or counts); approximate otherwise.
std::optional<Quantity> RoundUpToStep(const Quantity& min, const Quantity& step,
                                      const Quantity& amount) {
  absl::StatusOr<int64_t> lo = min.AsInt64(), by = step.AsInt64(), want = amount.AsInt64();
  if (lo.ok() && by.ok() && want.ok() && *by > 0) {
    const int64_t n = (*want - *lo + *by - 1) / *by;
    if (n > (std::numeric_limits<int64_t>::max() - *lo) / *by) return std::nullopt;
    return Quantity::FromInt(*lo + n * *by, amount.format());
  }
  const double base = min.AsApproximateDouble(), unit = step.AsApproximateDouble();
  const double n = std::ceil((amount.AsApproximateDouble() - base) / unit);
  absl::StatusOr<Quantity> q = Quantity::Parse(absl::StrFormat("%.6f", base + n * unit));
  if (!q.ok()) return std::nullopt;
  return *q;
}

}  // namespace

std::optional<Quantity> CapacityRequestPolicy::Round(const Quantity& amount) const {
  if (!valid_values.empty()) {
    // The smallest valid value >= amount (the API keeps them ascending; no order is assumed).
    const Quantity* best = nullptr;
    for (const Quantity& v : valid_values) {
      if (!(v < amount) && (best == nullptr || v < *best)) best = &v;
    }
    if (best == nullptr) return std::nullopt;
    return *best;
  }
  if (!valid_range) return amount;
  const Range& range = *valid_range;
  std::optional<Quantity> out = amount;
  if (amount < range.min) {
    out = range.min;
  } else if (range.step && range.step->Sign() > 0 && range.min < amount) {
    out = RoundUpToStep(range.min, *range.step, amount);
  }
  if (!out || (range.max && *range.max < *out)) return std::nullopt;
  return out;
}

bool operator==(const CapacityRequestPolicy& a, const CapacityRequestPolicy& b) {
  const auto same = [](const std::optional<Quantity>& x, const std::optional<Quantity>& y) {
    return x.has_value() == y.has_value() &&
           (!x.has_value() || (*x == *y && x->format() == y->format()));
  };
  if (!same(a.default_value, b.default_value) || a.valid_values.size() != b.valid_values.size() ||
      a.valid_range.has_value() != b.valid_range.has_value()) {
    return false;
  }
  for (size_t i = 0; i < a.valid_values.size(); ++i) {
    if (!same(a.valid_values[i], b.valid_values[i])) return false;
  }
  if (!a.valid_range) return true;
  return same(a.valid_range->min, b.valid_range->min) &&
         same(a.valid_range->max, b.valid_range->max) &&
         same(a.valid_range->step, b.valid_range->step);
}

Device::Device() : block_(EmptyBlock()), index_(0) {}

absl::string_view Device::driver() const { return block_->View(block_->driver); }
absl::string_view Device::pool() const { return block_->View(block_->pool); }
int64_t Device::pool_generation() const { return block_->pool_generation; }
absl::string_view Device::slice_name() const { return block_->View(block_->slice_name); }
absl::string_view Device::node() const { return block_->View(block_->devices[index_].node); }
absl::string_view Device::name() const { return block_->View(block_->devices[index_].name); }

DeviceEntries<NamedAttribute> Device::attributes() const {
  const DeviceEntry& d = block_->devices[index_];
  return DeviceEntries<NamedAttribute>(block_.get(), d.attributes_begin, d.attributes_count);
}

DeviceEntries<NamedCapacity> Device::capacity() const {
  const DeviceEntry& d = block_->devices[index_];
  return DeviceEntries<NamedCapacity>(block_.get(), d.capacity_begin, d.capacity_count);
}

namespace {

// Where `name` sits among a device's `count` attributes (`refs` into block.attributes, in name
// order), or nullopt.
std::optional<uint32_t> AttributePosition(const Block& block, const uint32_t* refs, uint32_t count,
                                          absl::string_view name) {
  const auto name_of = [&block](uint32_t ref) { return block.Name(block.attributes[ref].name); };
  // A device publishes a dozen attributes or so: a scan, whose equality compares lengths before
  // bytes, beats the binary search's full comparison at every step (perf of render: the binary
  // search was 9% of the process, called per device for signatures and projections).
  if (count <= kLinearFindLimit) {
    for (uint32_t i = 0; i < count; ++i) {
      if (SameText(name_of(refs[i]), name)) return i;
    }
    return std::nullopt;
  }
  const uint32_t* it =
      std::lower_bound(refs, refs + count, name,
                       [&](uint32_t ref, absl::string_view n) { return name_of(ref) < n; });
  if (it == refs + count || name_of(*it) != name) return std::nullopt;
  return static_cast<uint32_t>(it - refs);
}

}  // namespace

std::optional<AttributeValue> Device::FindAttribute(absl::string_view name) const {
  const DeviceEntry& d = block_->devices[index_];
  const std::optional<uint32_t> position = AttributePosition(
      *block_, block_->attribute_refs.data() + d.attributes_begin, d.attributes_count, name);
  if (!position) return std::nullopt;
  return attributes()[*position].value;
}

std::optional<uint32_t> Device::FindAttributeEntry(absl::string_view name, EntryHint* hint) const {
  const DeviceEntry& d = block_->devices[index_];
  const uint32_t* refs = block_->attribute_refs.data() + d.attributes_begin;
  if (hint->storage == block_.get() && hint->position < d.attributes_count &&
      block_->attributes[refs[hint->position]].name == hint->name) {
    return refs[hint->position];
  }
  const std::optional<uint32_t> position =
      AttributePosition(*block_, refs, d.attributes_count, name);
  if (!position) return std::nullopt;
  *hint = EntryHint{block_.get(), *position, block_->attributes[refs[*position]].name};
  return refs[*position];
}

AttributeValue Device::AttributeEntryValue(uint32_t entry) const {
  return EntryValue(*block_, block_->attributes[entry]);
}

bool Device::SharesEntriesWith(const Device& other) const {
  if (block_ == nullptr || block_ != other.block_) return false;
  const DeviceEntry& a = block_->devices[index_];
  const DeviceEntry& b = block_->devices[other.index_];
  if (a.attributes_count != b.attributes_count || a.capacity_count != b.capacity_count) {
    return false;
  }
  const uint32_t* refs = block_->attribute_refs.data();
  for (uint32_t i = 0; i < a.attributes_count; ++i) {
    if (refs[a.attributes_begin + i] != refs[b.attributes_begin + i]) return false;
  }
  for (uint32_t i = 0; i < a.capacity_count; ++i) {
    const CapacityEntry& x = block_->capacities[a.capacity_begin + i];
    const CapacityEntry& y = block_->capacities[b.capacity_begin + i];
    if (x.name != y.name || x.quantity != y.quantity || x.policy != y.policy) return false;
  }
  return true;
}

const Quantity* Device::FindCapacity(absl::string_view name) const {
  const DeviceEntry& d = block_->devices[index_];
  const CapacityEntry* e =
      FindByName(*block_, block_->capacities, d.capacity_begin, d.capacity_count, name);
  if (e == nullptr) return nullptr;
  return &block_->quantities[e->quantity];
}

const CapacityRequestPolicy* Device::FindRequestPolicy(absl::string_view name) const {
  const DeviceEntry& d = block_->devices[index_];
  const CapacityEntry* e =
      FindByName(*block_, block_->capacities, d.capacity_begin, d.capacity_count, name);
  if (e == nullptr || e->policy == device_internal::kNoPolicy) return nullptr;
  return &block_->extras->policies[e->policy];
}

NodeScope Device::node_scope() const {
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  return e != nullptr ? e->scope : NodeScope::kNode;
}

bool Device::allow_multiple_allocations() const {
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  return e != nullptr && e->allow_multiple_allocations;
}

std::vector<DeviceTaint> Device::taints() const {
  std::vector<DeviceTaint> out;
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  if (e == nullptr) return out;
  out.reserve(e->taints_count);
  for (uint32_t i = e->taints_begin; i < e->taints_begin + e->taints_count; ++i) {
    const TaintEntry& t = block_->extras->taints[i];
    out.push_back(DeviceTaint{block_->View(t.key), block_->View(t.value), block_->View(t.effect)});
  }
  return out;
}

uint32_t Device::storage_size() const { return static_cast<uint32_t>(block_->devices.size()); }

bool Device::has_taints() const {
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  return e != nullptr && e->taints_count != 0;
}

bool Device::HasSchedulingTaint() const {
  for (const DeviceTaint& t : taints()) {
    if (t.PreventsScheduling()) return true;
  }
  return false;
}

std::vector<CounterUse> Device::counters_consumed() const {
  std::vector<CounterUse> out;
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  if (e == nullptr) return out;
  out.reserve(e->counters_count);
  for (uint32_t i = e->counters_begin; i < e->counters_begin + e->counters_count; ++i) {
    const CounterEntry& c = block_->extras->counters[i];
    out.push_back(CounterUse{block_->Name(c.counter_set), block_->Name(c.counter),
                             &block_->quantities[c.quantity]});
  }
  return out;
}

bool Device::consumes_counters() const {
  const device_internal::DeviceExtra* e = block_->ExtraOf(index_);
  return e != nullptr && e->counters_count != 0;
}

bool operator==(const Device& a, const Device& b) {
  if (a.block_ == b.block_ && a.index_ == b.index_) return true;
  if (a.driver() != b.driver() || a.pool() != b.pool() ||
      a.pool_generation() != b.pool_generation() || a.slice_name() != b.slice_name() ||
      a.node() != b.node() || a.name() != b.name() || a.node_scope() != b.node_scope() ||
      a.allow_multiple_allocations() != b.allow_multiple_allocations()) {
    return false;
  }
  const std::vector<DeviceTaint> at = a.taints(), bt = b.taints();
  if (at.size() != bt.size()) return false;
  for (size_t i = 0; i < at.size(); ++i) {
    if (at[i].key != bt[i].key || at[i].value != bt[i].value || at[i].effect != bt[i].effect) {
      return false;
    }
  }
  const std::vector<CounterUse> au = a.counters_consumed(), bu = b.counters_consumed();
  if (au.size() != bu.size()) return false;
  for (size_t i = 0; i < au.size(); ++i) {
    if (au[i].counter_set != bu[i].counter_set || au[i].counter != bu[i].counter ||
        *au[i].value != *bu[i].value || au[i].value->format() != bu[i].value->format()) {
      return false;
    }
  }
  const DeviceEntries<NamedAttribute> aa = a.attributes(), ba = b.attributes();
  if (aa.size() != ba.size()) return false;
  for (size_t i = 0; i < aa.size(); ++i) {
    if (aa[i].name != ba[i].name || aa[i].value != ba[i].value) return false;
  }
  const DeviceEntries<NamedCapacity> ac = a.capacity(), bc = b.capacity();
  if (ac.size() != bc.size()) return false;
  for (size_t i = 0; i < ac.size(); ++i) {
    if (ac[i].name != bc[i].name || *ac[i].value != *bc[i].value ||
        ac[i].value->format() != bc[i].value->format()) {
      return false;
    }
    if ((ac[i].request_policy == nullptr) != (bc[i].request_policy == nullptr) ||
        (ac[i].request_policy != nullptr && *ac[i].request_policy != *bc[i].request_policy)) {
      return false;
    }
  }
  return true;
}

std::string Device::DebugString() const {
  std::string out = absl::StrCat(driver(), "/", pool(), "@", pool_generation(), "/", name(),
                                 " slice=", slice_name(), " node=", node(), " {");
  auto append_value = [&out](const AttributeValue& v) {
    switch (v.kind()) {
      case AttributeValue::Kind::kInt:
        absl::StrAppend(&out, v.int_value());
        break;
      case AttributeValue::Kind::kBool:
        absl::StrAppend(&out, v.bool_value() ? "true" : "false");
        break;
      case AttributeValue::Kind::kString:
        absl::StrAppend(&out, "\"", v.string_value(), "\"");
        break;
      case AttributeValue::Kind::kVersion:
        absl::StrAppend(&out, "version:", v.string_value());
        break;
      case AttributeValue::Kind::kOpaque:
        absl::StrAppend(&out, "opaque:", v.string_value());
        break;
      default:
        break;
    }
  };
  for (const NamedAttribute& a : attributes()) {
    absl::StrAppend(&out, " ", a.name, "=");
    if (!a.value.is_list()) {
      append_value(a.value);
      continue;
    }
    absl::StrAppend(&out, "[");
    for (size_t i = 0; i < a.value.list_size(); ++i) {
      if (i > 0) absl::StrAppend(&out, ",");
      append_value(a.value.list_item(i));
    }
    absl::StrAppend(&out, "]");
  }
  for (const NamedCapacity& c : capacity()) {
    absl::StrAppend(&out, " ", c.name, "=", c.value->ToString());
    if (c.request_policy == nullptr) continue;
    const CapacityRequestPolicy& p = *c.request_policy;
    const auto text = [](const std::optional<Quantity>& q) {
      return q ? absl::StrCat(q->ToString(), "/", static_cast<int>(q->format())) : "-";
    };
    absl::StrAppend(&out, "(default=", text(p.default_value), " values=[");
    for (const Quantity& v : p.valid_values) absl::StrAppend(&out, text(v), ",");
    absl::StrAppend(&out, "]");
    if (p.valid_range) {
      absl::StrAppend(&out, " range=", text(p.valid_range->min), "..", text(p.valid_range->max),
                      " step=", text(p.valid_range->step));
    }
    absl::StrAppend(&out, ")");
  }
  if (node_scope() != NodeScope::kNode) {
    absl::StrAppend(&out, node_scope() == NodeScope::kAllNodes ? " allNodes" : " nodeSelector");
  }
  if (allow_multiple_allocations()) absl::StrAppend(&out, " allowMultipleAllocations");
  for (const DeviceTaint& t : taints()) {
    absl::StrAppend(&out, " taint:", t.key, "=", t.value, ":", t.effect);
  }
  for (const CounterUse& c : counters_consumed()) {
    absl::StrAppend(&out, " consumes:", c.counter_set, "/", c.counter, "=", c.value->ToString());
  }
  absl::StrAppend(&out, " }");
  return out;
}

void PrintTo(const Device& device, std::ostream* os) { *os << device.DebugString(); }

// ---------------------------------------------------------------------------------------------
// DeviceSetBuilder

namespace {

// Hashes and compares interned Texts by their content in the builder's text, and looks them up
// by string_view (heterogeneous lookup), so that interning a string copies it only once. `text`
// points at the builder's pointer to its current block's text (the table outlives blocks).
struct TextHash {
  using is_transparent = void;
  const std::string* const* text;
  size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>{}(s); }
  size_t operator()(Text t) const {
    return (*this)(absl::string_view(**text).substr(t.offset, t.size));
  }
};
struct TextEq {
  using is_transparent = void;
  const std::string* const* text;
  absl::string_view View(Text t) const {
    return absl::string_view(**text).substr(t.offset, t.size);
  }
  absl::string_view View(absl::string_view s) const { return s; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return View(a) == View(b);
  }
};

}  // namespace

// std::stable_sort, without its temporary buffer (an allocation per call) for the short ranges
// of one device's attributes or capacities: an insertion sort, stable as well.
template <typename It, typename Less>
void StableSort(It first, It last, Less less) {
  constexpr std::ptrdiff_t kInsertionSortLimit = 32;
  if (last - first > kInsertionSortLimit) {
    std::stable_sort(first, last, less);
    return;
  }
  for (It it = first; it != last; ++it) {
    auto value = std::move(*it);
    It hole = it;
    for (; hole != first && less(value, *std::prev(hole)); --hole) {
      *hole = std::move(*std::prev(hole));
    }
    *hole = std::move(value);
  }
}

struct DeviceSetBuilder::State {
  // Room for a GPU's texts and names (about 25 and 10) from the start: growing the tables
  // from empty rehashed them four times per slice.
  State() : interned(32, TextHash{&text}, TextEq{&text}) {
    name_index.reserve(16);
    attribute_index.reserve(16);
    Start();
  }

  // A new block to build into, with the room the thread's previous block ended up using.
  void Start() {
    block = std::make_shared<Block>();
    extras = std::make_unique<device_internal::Extras>();
    text = &block->text;
    block->text.reserve(std::min(last_sizes.text, kMaxReservedEntries * 16));
    block->names.reserve(std::min(last_sizes.names, kMaxReservedEntries));
    block->attributes.reserve(std::min(last_sizes.attributes, kMaxReservedEntries));
    block->attribute_refs.reserve(std::min(last_sizes.attribute_refs, kMaxReservedEntries));
    block->capacities.reserve(std::min(last_sizes.capacities, kMaxReservedEntries));
    block->quantities.reserve(std::min(last_sizes.quantities, kMaxReservedEntries));
  }
  // The sizes of the block last built with this state. The slices of one list are mostly
  // alike: the next block starts with this room (bounded as ExpectDevices' promise is) instead
  // of growing by doubling from empty, and Build's shrinking then moves nothing.
  struct Sizes {
    size_t text = 0, names = 0, attributes = 0, attribute_refs = 0, capacities = 0, quantities = 0;
  };
  Sizes last_sizes;

  // Forgets the block and what was worked out for it, keeping the room of the tables and
  // buffers (see SpareState) but for a large slice's: a hash table clears its room above 127
  // slots, and a buffer above kKeptRoom entries is let go.
  void Clear() {
    block.reset();
    extras.reset();
    text = nullptr;
    expected_devices = 0;
    interned.clear();
    name_index.clear();
    attribute_index.clear();
    ClearKeepingRoom(&pending_attributes);
    ClearKeepingRoom(&previous_attributes);
    ClearKeepingRoom(&pending_capacity_names);
    ClearKeepingRoom(&previous_capacity_names);
    ClearKeepingRoom(&sorted_order);
  }
  static constexpr size_t kKeptRoom = 1024;
  template <typename T>
  static void ClearKeepingRoom(std::vector<T>* v) {
    v->clear();
    if (v->capacity() > kKeptRoom) std::vector<T>().swap(*v);
  }

  Text Intern(absl::string_view s) {
    // One hash and one probe: the entry is made in place when `s` is new.
    return *interned.lazy_emplace(s, [&](const auto& construct) {
      const Text t{static_cast<uint32_t>(block->text.size()), static_cast<uint32_t>(s.size())};
      block->text.append(s.data(), s.size());
      construct(t);
    });
  }

  // `s` appended to the block's text, not interned: for texts that are each their own (a
  // slice's device names, which the decoders check for repeats), where a lookup finds nothing.
  Text Append(absl::string_view s) {
    const Text t{static_cast<uint32_t>(block->text.size()), static_cast<uint32_t>(s.size())};
    block->text.append(s.data(), s.size());
    return t;
  }

  uint32_t NameIndex(absl::string_view name) {
    const Text t = Intern(name);
    auto [it, inserted] = name_index.emplace(t.offset, static_cast<uint32_t>(block->names.size()));
    if (inserted) block->names.push_back(t);
    return it->second;
  }

  uint32_t QuantityIndex(const Quantity& q) {
    for (uint32_t i = 0; i < block->quantities.size(); ++i) {
      const Quantity& have = block->quantities[i];
      if (have.PrintsSameAs(q)) return i;
    }
    block->quantities.push_back(q);
    return static_cast<uint32_t>(block->quantities.size() - 1);
  }

  // Sorts the last device's entries by name; of equal names the last added wins.
  template <typename Entry>
  void SortAndDedupe(std::vector<Entry>& entries, uint32_t begin, uint32_t* count) {
    entries.erase(SortByNameKeepingLast(entries.begin() + begin, entries.end(),
                                        [](const Entry& e) { return e.name; }),
                  entries.end());
    *count = static_cast<uint32_t>(entries.size() - begin);
  }

  // Sorts [first, last) stably by name (`name_of(x)`: an index into block->names) and keeps the
  // last of each run of equal names; returns the new end.
  template <typename It, typename NameOf>
  It SortByNameKeepingLast(It first, It last, NameOf name_of) {
    StableSort(first, last, [&](const auto& a, const auto& b) {
      return block->Name(name_of(a)) < block->Name(name_of(b));
    });
    It out = first;
    for (It it = first; it != last; ++it) {
      if (std::next(it) != last && name_of(*std::next(it)) == name_of(*it)) continue;
      *out++ = *it;
    }
    return out;
  }

  void FinishDevice() {
    if (block->devices.empty()) return;
    const size_t device = block->devices.size() - 1;
    if (!SameNames(pending_attributes, previous_attributes)) SortOrder();
    DeviceEntry& d = block->devices[device];
    d.attributes_begin = static_cast<uint32_t>(block->attribute_refs.size());
    d.attributes_count = static_cast<uint32_t>(sorted_order.size());
    // The previous device's refs: in the same name order when its names were the same.
    const bool echo =
        device > 0 && block->devices[device - 1].attributes_count == d.attributes_count;
    const uint32_t echo_begin = echo ? block->devices[device - 1].attributes_begin : 0;
    for (size_t i = 0; i < sorted_order.size(); ++i) {
      const AttributeEntry& e = pending_attributes[sorted_order[i]];
      const uint32_t echo_ref = echo ? block->attribute_refs[echo_begin + i] : 0;
      if (echo && SameEntry(block->attributes[echo_ref], e)) {
        block->attribute_refs.push_back(echo_ref);
        continue;
      }
      const auto [it, inserted] = attribute_index.try_emplace(
          AttributeKey{e.name, static_cast<int>(e.kind), e.payload},
          static_cast<uint32_t>(block->attributes.size()));
      if (inserted) block->attributes.push_back(e);
      block->attribute_refs.push_back(it->second);
    }
    previous_attributes.swap(pending_attributes);
    pending_attributes.clear();
    previous_capacity_names.swap(pending_capacity_names);
    pending_capacity_names.clear();
    SortAndDedupe(block->capacities, d.capacity_begin, &d.capacity_count);
    // A slice's devices mostly have as many attributes and capacities as its first: room for
    // that many once, rather than growth by doubling and a copy to shrink it in Build (and for
    // the tables, rather than rehashing as they grow). The count is the input's word, and one
    // device's attributes times it could be anything (a list of a million bare devices after
    // one with thousands of attributes): the room is bounded, and growth past it costs what
    // the content does.
    if (block->devices.size() == 1 && expected_devices > 1) {
      const auto room = [this](size_t first_device, size_t each_other) {
        return std::min(first_device + each_other * (expected_devices - 1), kMaxReservedEntries);
      };
      block->attribute_refs.reserve(room(d.attributes_count, d.attributes_count));
      block->capacities.reserve(room(d.capacity_count, d.capacity_count));
      interned.reserve(room(interned.size(), d.attributes_count + 1));
      attribute_index.reserve(room(attribute_index.size(), attribute_index.size()));
    }
  }

  static bool SameNames(const std::vector<AttributeEntry>& a,
                        const std::vector<AttributeEntry>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].name != b[i].name) return false;
    }
    return true;
  }
  static bool SameEntry(const AttributeEntry& a, const AttributeEntry& b) {
    return a.name == b.name && a.kind == b.kind && a.payload == b.payload;
  }

  // sorted_order: the positions in pending_attributes of the device's attributes in name order;
  // of equal names the last added wins.
  void SortOrder() {
    sorted_order.resize(pending_attributes.size());
    for (uint32_t i = 0; i < sorted_order.size(); ++i) sorted_order[i] = i;
    sorted_order.erase(
        SortByNameKeepingLast(sorted_order.begin(), sorted_order.end(),
                              [this](uint32_t i) { return pending_attributes[i].name; }),
        sorted_order.end());
  }

  // The current (last added) device's extras, created on first use.
  device_internal::DeviceExtra& Extra() {
    const uint32_t index = static_cast<uint32_t>(block->devices.size() - 1);
    if (extras->devices.empty() || extras->devices.back().device != index) {
      extras->devices.push_back(device_internal::DeviceExtra{});
      extras->devices.back().device = index;
    }
    return extras->devices.back();
  }

  // The most entries a table is given room for ahead of its content.
  static constexpr size_t kMaxReservedEntries = size_t{1} << 16;
  size_t expected_devices = 0;  // ExpectDevices' count
  // The current device's attributes, until FinishDevice files them.
  std::vector<AttributeEntry> pending_attributes;
  // The previous device's, as added, and their order by name. A slice's devices mostly repeat
  // their attributes' names in the same order and most of their values (8 GPUs of a node: 7 of
  // their 10): an attribute that repeats the one at its position takes its name index and its
  // interned value without a hash lookup, a device whose names all repeat takes the sort order,
  // and an entry equal to the previous device's at its sorted position takes its index. Each
  // shortcut gives what the lookup would (equal texts are interned once), only sooner.
  std::vector<AttributeEntry> previous_attributes;
  // The name indices of the current and the previous device's capacities, as added: a
  // capacity named as the previous device's at its position takes its index without a lookup.
  std::vector<uint32_t> pending_capacity_names, previous_capacity_names;
  std::vector<uint32_t> sorted_order;
  // An attribute entry's index in Block::attributes. Equal texts are interned, so equal values
  // have equal payloads (and a list's payload is its own range of list items).
  using AttributeKey = std::tuple<uint32_t, int, uint64_t>;  // name, kind, payload
  absl::flat_hash_map<AttributeKey, uint32_t> attribute_index;
  std::shared_ptr<Block> block;
  std::unique_ptr<device_internal::Extras> extras;
  const std::string* text = nullptr;  // &block->text, for interned's hash and equality
  absl::flat_hash_set<Text, TextHash, TextEq> interned;
  absl::flat_hash_map<uint32_t, uint32_t> name_index;  // name Text offset -> index in names
};

DeviceSetBuilder::DeviceSetBuilder(absl::string_view driver, absl::string_view pool,
                                   int64_t pool_generation, absl::string_view slice_name)
    : state_(std::move(SpareState())) {
  if (state_ == nullptr) {
    state_ = std::make_unique<State>();
  } else {
    state_->Start();
  }
  Block& b = *state_->block;
  b.driver = state_->Intern(driver);
  b.pool = state_->Intern(pool);
  b.slice_name = state_->Intern(slice_name);
  b.pool_generation = pool_generation;
}

DeviceSetBuilder::~DeviceSetBuilder() {
  if (state_ == nullptr || SpareState() != nullptr) return;
  state_->Clear();
  SpareState() = std::move(state_);
}

std::unique_ptr<DeviceSetBuilder::State>& DeviceSetBuilder::SpareState() {
  thread_local std::unique_ptr<State> spare;
  return spare;
}

void DeviceSetBuilder::AddDevice(absl::string_view name, absl::string_view node, NodeScope scope) {
  state_->FinishDevice();
  Block& b = *state_->block;
  DeviceEntry d;
  // A slice's device names are distinct (a name given twice is the slice decoders' error).
  d.name = state_->Append(name);
  // A slice's devices mostly share their node: the previous device's text, without a lookup.
  const absl::string_view node_text = scope == NodeScope::kNode ? node : absl::string_view();
  d.node = !b.devices.empty() && b.View(b.devices.back().node) == node_text
               ? b.devices.back().node
               : state_->Intern(node_text);
  d.capacity_begin = static_cast<uint32_t>(b.capacities.size());
  b.devices.push_back(d);
  if (scope != NodeScope::kNode) state_->Extra().scope = scope;
}

namespace {

// The payload of a scalar or opaque value, its text interned.
template <typename Intern>
uint64_t ScalarPayload(const AttributeValue& value, Intern&& intern) {
  if (device_internal::IsText(value.kind())) {
    return device_internal::Pack(intern(value.string_value()));
  }
  if (value.kind() == AttributeValue::Kind::kInt) return static_cast<uint64_t>(value.int_value());
  return value.bool_value() ? 1 : 0;
}

}  // namespace

void DeviceSetBuilder::AddAttribute(absl::string_view name, const AttributeValue& value) {
  if (state_->block->devices.empty()) AddDevice("", "");
  State& s = *state_;
  auto intern = [&s](absl::string_view text) { return s.Intern(text); };
  // The previous device's attribute at this position (see State::previous_attributes).
  const size_t position = s.pending_attributes.size();
  const AttributeEntry* echo =
      position < s.previous_attributes.size() ? &s.previous_attributes[position] : nullptr;
  AttributeEntry e;
  e.name =
      echo != nullptr && SameText(s.block->Name(echo->name), name) ? echo->name : s.NameIndex(name);
  e.kind = value.kind();
  if (echo != nullptr && echo->kind == e.kind && device_internal::IsText(e.kind) &&
      SameText(s.block->View(device_internal::Unpack(echo->payload)), value.string_value())) {
    e.payload = echo->payload;
  } else if (value.is_list()) {
    std::vector<AttributeEntry>& list_entries = state_->extras->list_entries;
    const uint32_t begin = static_cast<uint32_t>(list_entries.size());
    for (const AttributeValue& item : value.list_items()) {
      AttributeEntry item_entry;
      item_entry.kind = AttributeValue::ElementKind(value.kind());
      item_entry.payload = ScalarPayload(item, intern);
      list_entries.push_back(item_entry);
    }
    e.payload = device_internal::Pack(Text{begin, static_cast<uint32_t>(value.list_size())});
  } else {
    e.payload = ScalarPayload(value, intern);
  }
  s.pending_attributes.push_back(e);
}

void DeviceSetBuilder::AddTaint(absl::string_view key, absl::string_view value,
                                absl::string_view effect) {
  if (state_->block->devices.empty()) AddDevice("", "");
  device_internal::DeviceExtra& e = state_->Extra();
  std::vector<TaintEntry>& taints = state_->extras->taints;
  if (e.taints_count == 0) e.taints_begin = static_cast<uint32_t>(taints.size());
  taints.push_back(TaintEntry{state_->Intern(key), state_->Intern(value), state_->Intern(effect)});
  ++e.taints_count;
}

void DeviceSetBuilder::AddCounterUse(absl::string_view counter_set, absl::string_view counter,
                                     const Quantity& value) {
  if (state_->block->devices.empty()) AddDevice("", "");
  device_internal::DeviceExtra& e = state_->Extra();
  std::vector<CounterEntry>& counters = state_->extras->counters;
  if (e.counters_count == 0) e.counters_begin = static_cast<uint32_t>(counters.size());
  counters.push_back(CounterEntry{state_->NameIndex(counter_set), state_->NameIndex(counter),
                                  state_->QuantityIndex(value)});
  ++e.counters_count;
}

void DeviceSetBuilder::SetAllowMultipleAllocations(bool allow) {
  if (state_->block->devices.empty()) AddDevice("", "");
  if (allow) state_->Extra().allow_multiple_allocations = true;
}

void DeviceSetBuilder::AddCapacity(absl::string_view name, const Quantity& value,
                                   const CapacityRequestPolicy* request_policy) {
  if (state_->block->devices.empty()) AddDevice("", "");
  State& s = *state_;
  CapacityEntry e;
  // The previous device's capacity at this position (see State::previous_capacity_names).
  const size_t position = s.pending_capacity_names.size();
  e.name = position < s.previous_capacity_names.size() &&
                   SameText(s.block->Name(s.previous_capacity_names[position]), name)
               ? s.previous_capacity_names[position]
               : s.NameIndex(name);
  s.pending_capacity_names.push_back(e.name);
  e.quantity = state_->QuantityIndex(value);
  if (request_policy != nullptr) {
    // Devices of one slice mostly share their policies: keep each once.
    std::vector<CapacityRequestPolicy>& policies = state_->extras->policies;
    auto it = std::find(policies.begin(), policies.end(), *request_policy);
    e.policy = static_cast<uint32_t>(it - policies.begin());
    if (it == policies.end()) policies.push_back(*request_policy);
  }
  state_->block->capacities.push_back(e);
}

void DeviceSetBuilder::ExpectDevices(size_t count) {
  state_->expected_devices = count;
  state_->block->devices.reserve(count);
}

size_t DeviceSetBuilder::device_count() const { return state_->block->devices.size(); }

std::vector<Device> DeviceSetBuilder::Build() && {
  state_->FinishDevice();
  std::shared_ptr<Block> block = std::move(state_->block);
  state_->last_sizes = {block->text.size(),       block->names.size(),
                        block->attributes.size(), block->attribute_refs.size(),
                        block->capacities.size(), block->quantities.size()};
  block->text.shrink_to_fit();
  block->names.shrink_to_fit();
  block->devices.shrink_to_fit();
  block->attributes.shrink_to_fit();
  block->attribute_refs.shrink_to_fit();
  block->capacities.shrink_to_fit();
  block->quantities.shrink_to_fit();
  if (!state_->extras->empty()) {
    block->extras = std::move(state_->extras);
    device_internal::Extras& x = *block->extras;
    x.devices.shrink_to_fit();
    x.taints.shrink_to_fit();
    x.counters.shrink_to_fit();
    x.policies.shrink_to_fit();
    // The text is final: list items can now view it.
    x.list_values.reserve(x.list_entries.size());
    for (const AttributeEntry& e : x.list_entries) {
      x.list_values.push_back(device_internal::ScalarValue(*block, e.kind, e.payload));
    }
    std::vector<AttributeEntry>().swap(x.list_entries);
  }
  std::shared_ptr<const Block> shared = std::move(block);
  std::vector<Device> devices;
  devices.reserve(shared->devices.size());
  for (uint32_t i = 0; i < shared->devices.size(); ++i) devices.push_back(Device(shared, i));
  return devices;
}

// ---------------------------------------------------------------------------------------------
// DeviceBuilder

DeviceBuilder& DeviceBuilder::Name(std::string name) {
  name_ = std::move(name);
  return *this;
}
DeviceBuilder& DeviceBuilder::Driver(std::string driver) {
  driver_ = std::move(driver);
  return *this;
}
DeviceBuilder& DeviceBuilder::Pool(std::string pool, int64_t generation) {
  pool_ = std::move(pool);
  pool_generation_ = generation;
  return *this;
}
DeviceBuilder& DeviceBuilder::Slice(std::string slice_name) {
  slice_name_ = std::move(slice_name);
  return *this;
}
DeviceBuilder& DeviceBuilder::Node(std::string node) {
  node_ = std::move(node);
  return *this;
}
DeviceBuilder::OwnedValue DeviceBuilder::Own(const AttributeValue& value) {
  OwnedValue owned{value.kind(),
                   value.kind() == AttributeValue::Kind::kBool
                       ? static_cast<int64_t>(value.bool_value())
                       : value.int_value(),
                   std::string(value.string_value()),
                   {}};
  for (const AttributeValue& item : value.list_items()) owned.items.push_back(Own(item));
  return owned;
}

DeviceBuilder& DeviceBuilder::Attribute(absl::string_view name, const AttributeValue& value) {
  attributes_[std::string(name)] = Own(value);
  return *this;
}
DeviceBuilder& DeviceBuilder::Scope(NodeScope scope) {
  scope_ = scope;
  return *this;
}
DeviceBuilder& DeviceBuilder::Taint(std::string key, std::string value, std::string effect) {
  taints_.push_back(OwnedTaint{std::move(key), std::move(value), std::move(effect)});
  return *this;
}
DeviceBuilder& DeviceBuilder::ConsumesCounter(std::string counter_set, std::string counter,
                                              Quantity value) {
  counters_.push_back(OwnedCounter{std::move(counter_set), std::move(counter), value});
  return *this;
}
DeviceBuilder& DeviceBuilder::AllowMultipleAllocations(bool allow) {
  allow_multiple_allocations_ = allow;
  return *this;
}
DeviceBuilder& DeviceBuilder::Capacity(absl::string_view name, const Quantity& value,
                                       std::optional<CapacityRequestPolicy> request_policy) {
  capacity_.insert_or_assign(std::string(name), std::make_pair(value, std::move(request_policy)));
  return *this;
}
DeviceBuilder& DeviceBuilder::RemoveAttribute(absl::string_view name) {
  attributes_.erase(std::string(name));
  return *this;
}

Device DeviceBuilder::Build() const {
  DeviceSetBuilder builder(driver_, pool_, pool_generation_, slice_name_);
  builder.AddDevice(name_, node_, scope_);
  auto view = [](const OwnedValue& v) {
    switch (v.kind) {
      case AttributeValue::Kind::kInt:
        return AttributeValue::Int(v.int_value);
      case AttributeValue::Kind::kBool:
        return AttributeValue::Bool(v.int_value != 0);
      case AttributeValue::Kind::kVersion:
        return AttributeValue::Version(v.text);
      case AttributeValue::Kind::kOpaque:
        return AttributeValue::Opaque(v.text);
      default:
        return AttributeValue::String(v.text);
    }
  };
  for (const auto& [name, v] : attributes_) {
    if (!AttributeValue::IsListKind(v.kind)) {
      builder.AddAttribute(name, view(v));
      continue;
    }
    std::vector<AttributeValue> items;
    for (const OwnedValue& item : v.items) items.push_back(view(item));
    builder.AddAttribute(name, AttributeValue::List(AttributeValue::ElementKind(v.kind), items));
  }
  for (const auto& [name, capacity] : capacity_) {
    builder.AddCapacity(name, capacity.first,
                        capacity.second.has_value() ? &*capacity.second : nullptr);
  }
  for (const OwnedTaint& t : taints_) builder.AddTaint(t.key, t.value, t.effect);
  for (const OwnedCounter& c : counters_) builder.AddCounterUse(c.counter_set, c.counter, c.value);
  builder.SetAllowMultipleAllocations(allow_multiple_allocations_);
  return std::move(builder).Build().front();
}

}  // namespace gpuprofile::dra
