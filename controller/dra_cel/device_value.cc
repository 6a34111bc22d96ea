// File: controller/dra_cel/device_value.cc
#include "controller/dra_cel/device_value.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/library_values.h"

namespace gpuprofile::cel {
namespace {

// The scheduler's words for an attribute value it cannot read (dynamic-resource-allocation
// cel/compile.go getAttributeValue).
constexpr char kUnsupportedAttributeValue[] = "unsupported attribute value";

// The keys of a string-keyed map. Devices of one node group publish the same attribute names, so
// the builder shares one shape among all their maps and each device keeps only its values: the
// lookup scans keys that stay hot in cache and then touches one slot of the device's own array.
struct MapShape {
  MapShape() : id(NextId()) {}

  std::vector<std::string> keys;  // unique, in the builder's (sorted) order
  // Never reused, so that a lookup site's KeyCache can name the shape it saw (see IndexOf).
  const uint64_t id;

  // A KeyCache word: the shape's id above the key's index + 1 (0: not a key). Shapes with
  // more keys than the low bits hold, or ids past the high bits, are not cached.
  static constexpr int kIndexBits = 16;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;

  int IndexOf(absl::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string& k = keys[i];
      // Length, then first byte, then the rest: names of one map rarely share both.
      if (k.size() == key.size() && (key.empty() || k[0] == key[0]) &&
          std::memcmp(k.data(), key.data(), key.size()) == 0) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  // IndexOf(key), answered from `cache` when the site last looked `key` up in this shape.
  int IndexOf(absl::string_view key, const KeyCache& cache) const {
    const uint64_t word = cache.Load();
    if (word >> kIndexBits == id) return static_cast<int>(word & kIndexMask) - 1;
    const int i = IndexOf(key);
    if (cacheable()) cache.Store(id << kIndexBits | static_cast<uint64_t>(i + 1));
    return i;
  }

 private:
  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  bool cacheable() const {
    return keys.size() < kIndexMask && id < (uint64_t{1} << (64 - kIndexBits));
  }
};

const MapShape& EmptyShape() {
  static const MapShape* const kEmpty = new MapShape();
  return *kEmpty;
}

// A map with string keys (device fields, attribute domains, attributes of one domain). It owns
// neither its shape nor its values: both live in the block that holds the map (see Block).
// A domain map (device.attributes / device.capacity: domain -> map) answers absent domains with
// an empty map, yet they are not members.
class StringMap final : public MapValue {
 public:
  StringMap(const MapShape* shape, const Value* values, bool domains)
      : shape_(shape), values_(values), domains_(domains) {}

  size_t size() const override { return shape_->keys.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    const Value* v = FindStringRef(key);
    if (v == nullptr) return std::nullopt;
    return *v;
  }
  const Value* FindStringRef(absl::string_view key) const override {
    return StoredOrDefault(shape_->IndexOf(key));
  }
  bool Contains(const Value& key) const override {
    return key.kind() == ValueKind::kString && shape_->IndexOf(key.string_value()) >= 0;
  }
  bool FindMemberRef(absl::string_view key, const Value** value) const override {
    *value = Stored(shape_->IndexOf(key));
    return true;
  }
  const Value* FindStringRefCached(absl::string_view key, const KeyCache& cache) const override {
    return StoredOrDefault(shape_->IndexOf(key, cache));
  }
  bool FindMemberRefCached(absl::string_view key, const KeyCache& cache,
                           const Value** value) const override {
    *value = Stored(shape_->IndexOf(key, cache));
    return true;
  }
  std::vector<Value> Keys() const override {
    std::vector<Value> out;
    out.reserve(shape_->keys.size());
    for (const std::string& k : shape_->keys) out.push_back(Value::String(k));
    return out;
  }

  // The value at shape index `i`, or null when `i` is -1 (not a key).
  const Value* Stored(int i) const { return i >= 0 ? &values_[static_cast<size_t>(i)] : nullptr; }
  // The same, but an absent domain reads as an empty map (see above).
  const Value* StoredOrDefault(int i) const {
    if (i >= 0) return &values_[static_cast<size_t>(i)];
    return domains_ ? &EmptyMap() : nullptr;
  }

  static const Value& EmptyMap() {
    static const Value* const kEmpty =
        new Value(Value::Map(std::make_shared<StringMap>(&EmptyShape(), nullptr, false)));
    return *kEmpty;
  }

 private:
  const MapShape* shape_;
  const Value* values_;  // values_[i] belongs to shape_->keys[i]
  bool domains_;
};

// Memory that the builder hands out in build order, so that one device's maps and values sit in
// a few adjacent cache lines and consecutive devices sit next to each other. A chunk is freed when
// the builder and every block placed in it are gone. It also keeps alive the shapes its maps use.
class Chunk {
 public:
  explicit Chunk(size_t size) : data_(static_cast<char*>(::operator new(size))), size_(size) {}
  ~Chunk() { ::operator delete(data_); }
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  size_t size() const { return size_; }
  size_t available() const { return size_ - Align(used_, alignof(std::max_align_t)); }

  // Null when `n` bytes do not fit. Only the builder's thread allocates.
  void* TryAllocate(size_t n, size_t align) {
    size_t start = Align(used_, align);
    if (start > size_ || n > size_ - start) return nullptr;
    used_ = start + n;
    return data_ + start;
  }
  // Whether `p` was handed out by TryAllocate (callable from any thread).
  bool Owns(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(data_);
    return a >= b && a < b + size_;
  }
  void Keep(const std::shared_ptr<const MapShape>& shape) {
    if (kept_.insert(shape.get()).second) shapes_.push_back(shape);
  }

 private:
  static size_t Align(size_t n, size_t align) { return (n + align - 1) & ~(align - 1); }

  char* const data_;
  const size_t size_;
  size_t used_ = 0;
  std::vector<std::shared_ptr<const MapShape>> shapes_;
  absl::flat_hash_set<const MapShape*> kept_;
};

// Places shared_ptr control blocks in a chunk, next to the data they manage (falls back to the
// heap when the chunk is full). The copy inside a control block keeps the chunk alive.
template <typename T>
struct ChunkAllocator {
  using value_type = T;
  explicit ChunkAllocator(std::shared_ptr<Chunk> c) : chunk(std::move(c)) {}
  template <typename U>
  ChunkAllocator(const ChunkAllocator<U>& other) : chunk(other.chunk) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    void* p = chunk->TryAllocate(n * sizeof(T), alignof(T));
    return static_cast<T*>(p != nullptr ? p : ::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t) {
    if (!chunk->Owns(p)) ::operator delete(p);
  }
  template <typename U>
  bool operator==(const ChunkAllocator<U>& o) const {
    return chunk == o.chunk;
  }
  template <typename U>
  bool operator!=(const ChunkAllocator<U>& o) const {
    return chunk != o.chunk;
  }

  std::shared_ptr<Chunk> chunk;
};

// One map and its values, placed in a chunk right after the control block of the shared_ptr
// that owns it. A device's new maps are placed one after the other, in the order evaluation reads
// them (a map before the maps it contains), so one device still sits in a few adjacent cache
// lines. Each map has its own reference count: a parent map holds its children the way any
// value does, and references only ever point from a map to maps placed before it or cached from
// earlier devices, so ownership has no cycles and every block is freed with its last user.
struct Block {
  StringMap* map = nullptr;

  ~Block() {
    if (map == nullptr) return;
    auto* values = reinterpret_cast<Value*>(reinterpret_cast<char*>(map) + sizeof(StringMap));
    const size_t n = map->size();
    for (size_t k = 0; k < n; ++k) values[k].~Value();
    map->~StringMap();
  }
};

struct BlockDeleter {
  void operator()(Block* b) const { b->~Block(); }  // the chunk owns the memory
};

// Room reserved per map for the control block of its shared_ptr<Block> (placed right after the
// block header).
constexpr size_t kControlBlockRoom = 128;
// Chunks grow from one device's size up to this, so that a single device (MakeDeviceValue)
// costs no more than its size and a long-lived device pins at most this much.
constexpr size_t kMaxChunkSize = 64 * 1024;

// Splits "domain/id" into its parts; unqualified names belong to `driver`.
std::pair<absl::string_view, absl::string_view> SplitQualified(absl::string_view name,
                                                               absl::string_view driver) {
  size_t slash = name.find('/');
  if (slash == absl::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

}  // namespace

// Interning tables, keyed by a textual rendering of the value (kind-tagged so that the string
// "1" and the int 1 never collide), and the chunk new blocks go to.
struct DeviceValueBuilder::Caches {
  absl::flat_hash_map<std::string, Value> leaves;
  absl::flat_hash_map<std::string, Value> maps;
  // Version attributes by published text: the parsed value, or nullopt when it is not semver.
  absl::flat_hash_map<std::string, std::optional<Value>> versions;
  absl::flat_hash_map<std::string, std::shared_ptr<const MapShape>> shapes;
  std::shared_ptr<Chunk> chunk;

  // A map of the device being built: either an existing (shared) map, or one to be placed in
  // the device's block.
  struct Entry {
    std::string key;
    Value value;     // when child < 0
    int child = -1;  // index of a pending map of this block
  };
  struct PendingMap {
    std::shared_ptr<const MapShape> shape;
    std::vector<Entry> entries;  // in shape order
    bool domains = false;
    std::string cache_key;  // empty: not shared
  };
  // A value or a pending map, as Domains() returns it.
  struct Ref {
    Value value;
    int child = -1;
  };
  std::vector<PendingMap> pending;

  // The shared shape for these (unique, ordered) keys.
  std::shared_ptr<const MapShape> Shape(const std::vector<std::string>& keys) {
    std::string id;
    for (const std::string& k : keys) absl::StrAppend(&id, k, "\n");
    auto it = shapes.find(id);
    if (it != shapes.end()) return it->second;
    auto shape = std::make_shared<MapShape>();
    shape->keys = keys;
    return shapes.emplace(std::move(id), std::move(shape)).first->second;
  }

  // A pending map of `entries` (first of equal keys wins); returns its index.
  int AddMap(std::vector<Entry> entries, bool domains, std::string cache_key) {
    std::vector<std::string> keys;
    std::vector<Entry> unique;
    for (Entry& e : entries) {
      if (std::find(keys.begin(), keys.end(), e.key) != keys.end()) continue;
      keys.push_back(e.key);
      unique.push_back(std::move(e));
    }
    PendingMap m;
    m.shape = Shape(keys);
    m.entries = std::move(unique);
    m.domains = domains;
    m.cache_key = std::move(cache_key);
    pending.push_back(std::move(m));
    return static_cast<int>(pending.size() - 1);
  }

  Value Leaf(std::string key, const std::function<Value()>& make) {
    auto it = leaves.find(key);
    if (it != leaves.end()) return it->second;
    return leaves.emplace(std::move(key), make()).first->second;
  }

  // A version attribute's value: parsed once per distinct text; an invalid text is remembered
  // as nullopt and reads as an error naming the attribute.
  Value Version(absl::string_view name, absl::string_view text) {
    auto it = versions.find(text);
    if (it == versions.end()) {
      std::optional<Value> parsed;
      if (std::optional<Semver> version = dra::AttributeValue::Version(text).ParseVersion()) {
        parsed = MakeSemverValue(*version);
      }
      it = versions.emplace(std::string(text), std::move(parsed)).first;
    }
    if (it->second.has_value()) return *it->second;
    return Value::Error(
        absl::StrCat("attribute ", name, ": invalid semantic version \"", text, "\""));
  }

  // A scalar or list attribute. Opaque values never get here (Build rejects the device).
  Value Attribute(absl::string_view name, const dra::AttributeValue& a) {
    switch (a.kind()) {
      case dra::AttributeValue::Kind::kInt:
        return Value::Int(a.int_value());
      case dra::AttributeValue::Kind::kBool:
        return Value::Bool(a.bool_value());
      case dra::AttributeValue::Kind::kString:
        return Leaf(absl::StrCat("s:", a.string_value()),
                    [&] { return Value::String(std::string(a.string_value())); });
      case dra::AttributeValue::Kind::kVersion:
        return Version(name, a.string_value());
      case dra::AttributeValue::Kind::kIntList:
      case dra::AttributeValue::Kind::kBoolList:
      case dra::AttributeValue::Kind::kStringList:
      case dra::AttributeValue::Kind::kVersionList: {
        // A CEL list of the items (the scheduler's []int64, []bool, []string, []Semver).
        std::vector<Value> items;
        items.reserve(a.list_size());
        for (const dra::AttributeValue& item : a.list_items()) {
          Value v = Attribute(name, item);
          if (v.is_error()) return v;  // an invalid version fails the whole attribute
          items.push_back(std::move(v));
        }
        return Value::List(std::move(items));
      }
      case dra::AttributeValue::Kind::kOpaque:
        break;
    }
    return Value::Error(absl::StrCat("attribute ", name, ": ", kUnsupportedAttributeValue));
  }

  Value Capacity(const Quantity& q) {
    std::string text = q.ToString();
    return Leaf(absl::StrCat("q:", text), [&] { return MakeQuantityValue(q); });
  }

  // Groups (name -> value) entries by domain into a domain map, sharing identical inner maps
  // (and identical domain maps) with earlier devices.
  template <typename Source, typename Convert>
  Ref Domains(const Source& source, absl::string_view driver, Convert convert) {
    std::map<absl::string_view, std::vector<std::pair<absl::string_view, Value>>> by_domain;
    for (const auto& entry : source) {  // NamedAttribute or NamedCapacity
      auto [domain, id] = SplitQualified(entry.name, driver);
      by_domain[domain].emplace_back(id, convert(entry.name, entry.value));
    }
    std::vector<Entry> domains;
    std::string whole_key;
    for (auto& domain_entries : by_domain) {
      const absl::string_view domain = domain_entries.first;
      auto& entries = domain_entries.second;
      std::sort(entries.begin(), entries.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      // Names carry their length and values are rendered as literals, so keys are unambiguous.
      std::string key = absl::StrCat("I", domain.size(), ":", domain, "{");
      for (const auto& [id, v] : entries) {
        absl::StrAppend(&key, id.size(), ":", id, "=", v.DebugString(), ";");
      }
      absl::StrAppend(&key, "}");
      absl::StrAppend(&whole_key, key);
      Entry d;
      d.key = std::string(domain);
      auto it = maps.find(key);
      if (it != maps.end()) {
        d.value = it->second;
      } else {
        std::vector<Entry> inner;
        inner.reserve(entries.size());
        for (auto& [id, v] : entries) inner.push_back(Entry{std::string(id), std::move(v), -1});
        d.child = AddMap(std::move(inner), /*domains=*/false, std::move(key));
      }
      domains.push_back(std::move(d));
    }
    whole_key = absl::StrCat("D", whole_key);
    auto it = maps.find(whole_key);
    if (it != maps.end()) return Ref{it->second, -1};
    return Ref{Value(), AddMap(std::move(domains), /*domains=*/true, std::move(whole_key))};
  }

  // A chunk with room for `n` bytes.
  Chunk& ChunkFor(size_t n) {
    if (chunk == nullptr || chunk->available() < n) {
      size_t size = chunk == nullptr ? n : std::min(kMaxChunkSize, 2 * chunk->size());
      chunk = std::make_shared<Chunk>(std::max(size, n));
    }
    return *chunk;
  }

  // Lays out the pending maps in one block; returns the value of pending map `root`.
  Value Place(int root) {
    std::vector<int> order;  // preorder from the root: the order evaluation reads them
    std::vector<bool> seen(pending.size(), false);
    std::function<void(int)> visit = [&](int i) {
      if (seen[static_cast<size_t>(i)]) return;
      seen[static_cast<size_t>(i)] = true;
      order.push_back(i);
      for (const Entry& e : pending[static_cast<size_t>(i)].entries) {
        if (e.child >= 0) visit(e.child);
      }
    };
    visit(root);
    for (size_t i = 0; i < pending.size(); ++i) visit(static_cast<int>(i));

    static_assert(sizeof(StringMap) % alignof(Value) == 0, "");
    static_assert(alignof(StringMap) == alignof(Value), "");
    size_t size = 0;
    for (const PendingMap& m : pending) {
      size += sizeof(Block) + kControlBlockRoom + sizeof(StringMap) +
              m.entries.size() * sizeof(Value) + alignof(std::max_align_t);
    }
    Chunk& c = ChunkFor(size);
    std::vector<std::shared_ptr<const MapValue>> placed(pending.size());
    std::vector<Value*> values(pending.size());
    for (int i : order) {
      const PendingMap& m = pending[static_cast<size_t>(i)];
      c.Keep(m.shape);
      auto* block = new (c.TryAllocate(sizeof(Block), alignof(std::max_align_t))) Block();
      // The control block lands right after the header, next to the map it counts.
      std::shared_ptr<Block> owner(block, BlockDeleter(), ChunkAllocator<Block>(chunk));
      char* p = static_cast<char*>(
          c.TryAllocate(sizeof(StringMap) + m.entries.size() * sizeof(Value), alignof(StringMap)));
      if (p == nullptr) std::abort();  // ChunkFor reserved the room
      Value* v = reinterpret_cast<Value*>(p + sizeof(StringMap));
      for (size_t k = 0; k < m.entries.size(); ++k) new (&v[k]) Value();
      block->map = new (p) StringMap(m.shape.get(), v, m.domains);
      placed[static_cast<size_t>(i)] = std::shared_ptr<const MapValue>(owner, block->map);
      values[static_cast<size_t>(i)] = v;
    }
    auto map_value = [&](int i) { return Value::Map(placed[static_cast<size_t>(i)]); };
    for (size_t i = 0; i < pending.size(); ++i) {
      Value* v = values[i];
      for (Entry& e : pending[i].entries) {
        *v++ = e.child >= 0 ? map_value(e.child) : std::move(e.value);
      }
    }
    for (size_t i = 0; i < pending.size(); ++i) {
      if (!pending[i].cache_key.empty()) {
        maps.emplace(std::move(pending[i].cache_key), map_value(static_cast<int>(i)));
      }
    }
    Value result = map_value(root);
    pending.clear();
    return result;
  }
};

DeviceValueOptions DeviceValueOptions::For(const FeatureGates& gates) {
  DeviceValueOptions o;
  const int minor = gates.version().minor;
  const GateSpec* spec = FindGateSpec(kDRAListTypeAttributes);
  const bool gate_exists = spec != nullptr && spec->StepFor(minor) != nullptr;
  // 1.37 reads list values whatever the gate; 1.36 only with it; earlier releases have no lists.
  o.list_type_attributes = minor >= 37 || (gate_exists && gates.Enabled(kDRAListTypeAttributes));
  return o;
}

std::optional<std::string> UnsupportedAttributeError(const dra::Device& device,
                                                     const DeviceValueOptions& options) {
  for (const auto& [name, value] : device.attributes()) {
    if (value.kind() == dra::AttributeValue::Kind::kOpaque ||
        (value.is_list() && !options.list_type_attributes)) {
      return absl::StrCat("attribute ", name, ": ", kUnsupportedAttributeValue);
    }
  }
  return std::nullopt;
}

DeviceValueBuilder::DeviceValueBuilder(DeviceValueOptions options)
    : options_(options), caches_(std::make_unique<Caches>()) {}
DeviceValueBuilder::~DeviceValueBuilder() = default;

Value DeviceValueBuilder::Build(const dra::Device& device) {
  if (std::optional<std::string> error = UnsupportedAttributeError(device, options_)) {
    return Value::Error(*std::move(error));
  }
  Caches& c = *caches_;
  c.pending.clear();
  std::vector<Caches::Entry> fields;
  // The device's own map comes first in its block, its attribute maps right after.
  const absl::string_view driver = device.driver();
  fields.push_back(
      {"driver",
       c.Leaf(absl::StrCat("s:", driver), [&] { return Value::String(std::string(driver)); }), -1});
  // The scheduler always sets it (false when unset); the environment decides whether an
  // expression may read it (DRAConsumableCapacity).
  fields.push_back(
      {"allowMultipleAllocations", Value::Bool(device.allow_multiple_allocations()), -1});
  const int top = c.AddMap({}, /*domains=*/false, "");
  Caches::Ref attributes = c.Domains(
      device.attributes(), driver,
      [&](absl::string_view name, const dra::AttributeValue& a) { return c.Attribute(name, a); });
  Caches::Ref capacity =
      c.Domains(device.capacity(), driver,
                [&](absl::string_view, const Quantity* q) { return c.Capacity(*q); });
  fields.push_back({"attributes", std::move(attributes.value), attributes.child});
  fields.push_back({"capacity", std::move(capacity.value), capacity.child});
  Caches::PendingMap& m = c.pending[static_cast<size_t>(top)];
  m.shape = c.Shape({"driver", "allowMultipleAllocations", "attributes", "capacity"});
  m.entries = std::move(fields);
  return c.Place(top);
}

Value MakeDeviceValue(const dra::Device& device, DeviceValueOptions options) {
  DeviceValueBuilder builder(options);
  return builder.Build(device);
}

}  // namespace gpuprofile::cel
