// File: controller/dra/device.cc
#include "controller/dra/device.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

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

struct CapacityEntry {
  uint32_t name = 0;      // index into Block::names
  uint32_t quantity = 0;  // index into Block::quantities
};

struct DeviceEntry {
  Text name;
  Text node;
  uint32_t attributes_begin = 0;
  uint32_t attributes_count = 0;
  uint32_t capacity_begin = 0;
  uint32_t capacity_count = 0;
};

struct Block {
  std::string text;  // every distinct string of the block, once
  Text driver;
  Text pool;
  Text slice_name;
  int64_t pool_generation = 0;
  std::vector<Text> names;  // distinct attribute and capacity names
  std::vector<DeviceEntry> devices;
  std::vector<AttributeEntry> attributes;
  std::vector<CapacityEntry> capacities;
  std::vector<Quantity> quantities;  // distinct capacity values

  absl::string_view View(Text t) const { return absl::string_view(text.data() + t.offset, t.size); }
  absl::string_view Name(uint32_t index) const { return View(names[index]); }
};

namespace {

Text Unpack(uint64_t payload) {
  return Text{static_cast<uint32_t>(payload >> 32), static_cast<uint32_t>(payload)};
}
uint64_t Pack(Text t) { return (static_cast<uint64_t>(t.offset) << 32) | t.size; }

bool IsText(AttributeValue::Kind kind) {
  return kind == AttributeValue::Kind::kString || kind == AttributeValue::Kind::kVersion;
}

}  // namespace
}  // namespace device_internal

using device_internal::AttributeEntry;
using device_internal::Block;
using device_internal::CapacityEntry;
using device_internal::DeviceEntry;
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

std::optional<Semver> AttributeValue::ParseVersion() const {
  if (kind_ != Kind::kVersion) return std::nullopt;
  absl::StatusOr<Semver> parsed = Semver::ParseStrict(text_);
  if (!parsed.ok()) return std::nullopt;
  return *std::move(parsed);
}

template <>
NamedAttribute DeviceEntries<NamedAttribute>::Iterator::operator*() const {
  const AttributeEntry& e = block_->attributes[index_];
  NamedAttribute out{block_->Name(e.name), AttributeValue()};
  switch (e.kind) {
    case AttributeValue::Kind::kInt:
      out.value = AttributeValue::Int(static_cast<int64_t>(e.payload));
      break;
    case AttributeValue::Kind::kBool:
      out.value = AttributeValue::Bool(e.payload != 0);
      break;
    case AttributeValue::Kind::kString:
      out.value = AttributeValue::String(block_->View(device_internal::Unpack(e.payload)));
      break;
    case AttributeValue::Kind::kVersion:
      out.value = AttributeValue::Version(block_->View(device_internal::Unpack(e.payload)));
      break;
  }
  return out;
}

template <>
NamedCapacity DeviceEntries<NamedCapacity>::Iterator::operator*() const {
  const CapacityEntry& e = block_->capacities[index_];
  return NamedCapacity{block_->Name(e.name), &block_->quantities[e.quantity]};
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

// Binary search of a name among a device's sorted entries.
template <typename Entry>
const Entry* FindByName(const Block& block, const std::vector<Entry>& entries, uint32_t begin,
                        uint32_t count, absl::string_view name) {
  const Entry* first = entries.data() + begin;
  const Entry* last = first + count;
  const Entry* it = std::lower_bound(first, last, name, [&](const Entry& e, absl::string_view n) {
    return block.Name(e.name) < n;
  });
  if (it == last || block.Name(it->name) != name) return nullptr;
  return it;
}

}  // namespace

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

std::optional<AttributeValue> Device::FindAttribute(absl::string_view name) const {
  const DeviceEntry& d = block_->devices[index_];
  const AttributeEntry* e =
      FindByName(*block_, block_->attributes, d.attributes_begin, d.attributes_count, name);
  if (e == nullptr) return std::nullopt;
  return attributes()[e - (block_->attributes.data() + d.attributes_begin)].value;
}

const Quantity* Device::FindCapacity(absl::string_view name) const {
  const DeviceEntry& d = block_->devices[index_];
  const CapacityEntry* e =
      FindByName(*block_, block_->capacities, d.capacity_begin, d.capacity_count, name);
  if (e == nullptr) return nullptr;
  return &block_->quantities[e->quantity];
}

bool operator==(const Device& a, const Device& b) {
  if (a.block_ == b.block_ && a.index_ == b.index_) return true;
  if (a.driver() != b.driver() || a.pool() != b.pool() ||
      a.pool_generation() != b.pool_generation() || a.slice_name() != b.slice_name() ||
      a.node() != b.node() || a.name() != b.name()) {
    return false;
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
  }
  return true;
}

std::string Device::DebugString() const {
  std::string out = absl::StrCat(driver(), "/", pool(), "@", pool_generation(), "/", name(),
                                 " slice=", slice_name(), " node=", node(), " {");
  for (const NamedAttribute& a : attributes()) {
    absl::StrAppend(&out, " ", a.name, "=");
    switch (a.value.kind()) {
      case AttributeValue::Kind::kInt: absl::StrAppend(&out, a.value.int_value()); break;
      case AttributeValue::Kind::kBool:
        absl::StrAppend(&out, a.value.bool_value() ? "true" : "false");
        break;
      case AttributeValue::Kind::kString:
        absl::StrAppend(&out, "\"", a.value.string_value(), "\"");
        break;
      case AttributeValue::Kind::kVersion:
        absl::StrAppend(&out, "version:", a.value.string_value());
        break;
    }
  }
  for (const NamedCapacity& c : capacity()) {
    absl::StrAppend(&out, " ", c.name, "=", c.value->ToString());
  }
  absl::StrAppend(&out, " }");
  return out;
}

void PrintTo(const Device& device, std::ostream* os) { *os << device.DebugString(); }

// ---------------------------------------------------------------------------------------------
// DeviceSetBuilder

namespace {

// Hashes and compares interned Texts by their content in the builder's text, and looks them up
// by string_view (heterogeneous lookup), so that interning a string copies it only once.
struct TextHash {
  using is_transparent = void;
  const std::string* text;
  size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>{}(s); }
  size_t operator()(Text t) const { return (*this)(absl::string_view(*text).substr(t.offset, t.size)); }
};
struct TextEq {
  using is_transparent = void;
  const std::string* text;
  absl::string_view View(Text t) const { return absl::string_view(*text).substr(t.offset, t.size); }
  absl::string_view View(absl::string_view s) const { return s; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return View(a) == View(b);
  }
};

}  // namespace

struct DeviceSetBuilder::State {
  State() : interned(0, TextHash{&block->text}, TextEq{&block->text}) {}

  Text Intern(absl::string_view s) {
    auto it = interned.find(s);
    if (it != interned.end()) return *it;
    Text t{static_cast<uint32_t>(block->text.size()), static_cast<uint32_t>(s.size())};
    block->text.append(s.data(), s.size());
    interned.insert(t);
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
      if (have.format() == q.format() && have == q) return i;
    }
    block->quantities.push_back(q);
    return static_cast<uint32_t>(block->quantities.size() - 1);
  }

  // Sorts the last device's entries by name; of equal names the last added wins.
  template <typename Entry>
  void SortAndDedupe(std::vector<Entry>& entries, uint32_t begin, uint32_t* count) {
    auto first = entries.begin() + begin;
    auto by_name = [&](const Entry& a, const Entry& b) {
      return block->Name(a.name) < block->Name(b.name);
    };
    std::stable_sort(first, entries.end(), by_name);
    // Keep the last of each run of equal names.
    auto out = first;
    for (auto it = first; it != entries.end(); ++it) {
      if (std::next(it) != entries.end() && std::next(it)->name == it->name) continue;
      *out++ = *it;
    }
    entries.erase(out, entries.end());
    *count = static_cast<uint32_t>(entries.size() - begin);
  }

  void FinishDevice() {
    if (block->devices.empty()) return;
    DeviceEntry& d = block->devices.back();
    SortAndDedupe(block->attributes, d.attributes_begin, &d.attributes_count);
    SortAndDedupe(block->capacities, d.capacity_begin, &d.capacity_count);
  }

  std::shared_ptr<Block> block = std::make_shared<Block>();
  absl::flat_hash_set<Text, TextHash, TextEq> interned;
  absl::flat_hash_map<uint32_t, uint32_t> name_index;  // name Text offset -> index in names
};

DeviceSetBuilder::DeviceSetBuilder(absl::string_view driver, absl::string_view pool,
                                   int64_t pool_generation, absl::string_view slice_name)
    : state_(std::make_unique<State>()) {
  Block& b = *state_->block;
  b.driver = state_->Intern(driver);
  b.pool = state_->Intern(pool);
  b.slice_name = state_->Intern(slice_name);
  b.pool_generation = pool_generation;
}

DeviceSetBuilder::~DeviceSetBuilder() = default;

void DeviceSetBuilder::AddDevice(absl::string_view name, absl::string_view node) {
  state_->FinishDevice();
  Block& b = *state_->block;
  DeviceEntry d;
  d.name = state_->Intern(name);
  d.node = state_->Intern(node);
  d.attributes_begin = static_cast<uint32_t>(b.attributes.size());
  d.capacity_begin = static_cast<uint32_t>(b.capacities.size());
  b.devices.push_back(d);
}

void DeviceSetBuilder::AddAttribute(absl::string_view name, const AttributeValue& value) {
  if (state_->block->devices.empty()) AddDevice("", "");
  AttributeEntry e;
  e.name = state_->NameIndex(name);
  e.kind = value.kind();
  if (device_internal::IsText(value.kind())) {
    e.payload = device_internal::Pack(state_->Intern(value.string_value()));
  } else if (value.kind() == AttributeValue::Kind::kInt) {
    e.payload = static_cast<uint64_t>(value.int_value());
  } else {
    e.payload = value.bool_value() ? 1 : 0;
  }
  state_->block->attributes.push_back(e);
}

void DeviceSetBuilder::AddCapacity(absl::string_view name, const Quantity& value) {
  if (state_->block->devices.empty()) AddDevice("", "");
  CapacityEntry e;
  e.name = state_->NameIndex(name);
  e.quantity = state_->QuantityIndex(value);
  state_->block->capacities.push_back(e);
}

size_t DeviceSetBuilder::device_count() const { return state_->block->devices.size(); }

std::vector<Device> DeviceSetBuilder::Build() && {
  state_->FinishDevice();
  std::shared_ptr<Block> block = std::move(state_->block);
  block->text.shrink_to_fit();
  block->names.shrink_to_fit();
  block->devices.shrink_to_fit();
  block->attributes.shrink_to_fit();
  block->capacities.shrink_to_fit();
  block->quantities.shrink_to_fit();
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
DeviceBuilder& DeviceBuilder::Attribute(absl::string_view name, const AttributeValue& value) {
  attributes_[std::string(name)] =
      OwnedValue{value.kind(), value.kind() == AttributeValue::Kind::kBool
                                   ? static_cast<int64_t>(value.bool_value())
                                   : value.int_value(),
                 std::string(value.string_value())};
  return *this;
}
DeviceBuilder& DeviceBuilder::Capacity(absl::string_view name, const Quantity& value) {
  capacity_.insert_or_assign(std::string(name), value);
  return *this;
}
DeviceBuilder& DeviceBuilder::RemoveAttribute(absl::string_view name) {
  attributes_.erase(std::string(name));
  return *this;
}

Device DeviceBuilder::Build() const {
  DeviceSetBuilder builder(driver_, pool_, pool_generation_, slice_name_);
  builder.AddDevice(name_, node_);
  for (const auto& [name, v] : attributes_) {
    switch (v.kind) {
      case AttributeValue::Kind::kInt:
        builder.AddAttribute(name, AttributeValue::Int(v.int_value));
        break;
      case AttributeValue::Kind::kBool:
        builder.AddAttribute(name, AttributeValue::Bool(v.int_value != 0));
        break;
      case AttributeValue::Kind::kString:
        builder.AddAttribute(name, AttributeValue::String(v.text));
        break;
      case AttributeValue::Kind::kVersion:
        builder.AddAttribute(name, AttributeValue::Version(v.text));
        break;
    }
  }
  for (const auto& [name, q] : capacity_) builder.AddCapacity(name, q);
  return std::move(builder).Build().front();
}

}  // namespace gpuprofile::dra
