// File: controller/dra/slice_fast_decoder.cc
// simdjson's DOM API (runtime CPU dispatch, full validation of the input) read into
// ResourceSlice values. Each Decode* function mirrors what manifest_reader.cc (AddObject) and
// resource_slice.cc (DecodeSlice) accept, and returns false where either would report a problem
// or where the two JSON parsers could disagree; the caller then takes the strict path.
#include "controller/dra/slice_fast_decoder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/core/input_limits.h"
#include "controller/core/quantity.h"
#include "controller/core/same_text.h"
#include "controller/dra/large_document_parser.h"
#include "controller/dra/list_runs.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace gpuprofile::dra {
namespace {

namespace sj = simdjson::dom;

static_assert(kFastDecoderPadding >= simdjson::SIMDJSON_PADDING,
              "the padding simdjson reads past the end");

constexpr std::string_view kSliceKind = "ResourceSlice";
constexpr std::string_view kResourceGroupPrefix = "resource.k8s.io/";

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Names seen in one JSON object (or one slice's device names), to find one given twice. Most
// such objects are small (a device's ten attributes), where comparing with each name seen beats
// hashing; past kScanLimit names a hash set takes over.
class SeenNames {
 public:
  void Clear() {
    scanned_.clear();
    hashed_.clear();
  }
  // False when `name` was seen already.
  bool Add(std::string_view name) {
    if (scanned_.size() < kScanLimit) {
      for (std::string_view seen : scanned_) {
        if (SameText(seen, name)) return false;
      }
      scanned_.push_back(name);
      return true;
    }
    if (hashed_.empty()) hashed_.insert(scanned_.begin(), scanned_.end());
    return hashed_.insert(name).second;
  }

 private:
  static constexpr size_t kScanLimit = 16;
  std::vector<std::string_view> scanned_;
  absl::flat_hash_set<std::string_view> hashed_;
};

// The attribute names of a slice's devices, checked for one given twice. Devices of a slice
// mostly list the same names in the same order: a name that repeats the previous device's at
// its position is as distinct from the ones before it as that one was, at the cost of one
// comparison. From a device's first name that does not repeat, each name is checked against all
// before it (SeenNames). Views of the slice's document: StartSlice before each slice.
class DeviceNames {
 public:
  void StartSlice() { previous_.clear(); }
  void StartDevice() {
    position_ = 0;
    repeating_ = true;
  }
  // False when `name` was given already for this device.
  bool Add(std::string_view name) {
    if (repeating_ && position_ < previous_.size() && SameText(previous_[position_], name)) {
      ++position_;
      return true;
    }
    if (repeating_) {
      repeating_ = false;
      seen_.Clear();
      current_.assign(previous_.begin(),
                      previous_.begin() + static_cast<std::ptrdiff_t>(position_));
      for (std::string_view before : current_) seen_.Add(before);
    }
    ++position_;
    if (!seen_.Add(name)) return false;
    current_.push_back(name);
    return true;
  }
  // After the device's last name. A device whose names all repeated (a prefix, possibly) leaves
  // the previous device's list, as distinct as ever, to compare the next one with.
  void FinishDevice() {
    if (!repeating_) previous_.swap(current_);
  }

 private:
  std::vector<std::string_view> previous_, current_;
  size_t position_ = 0;
  bool repeating_ = true;
  SeenNames seen_;
};

// The members of `object` named in `names`, JSON null included (callers decide what null
// means). False when one of them appears twice: nlohmann keeps the last, and such files are left
// to the strict path rather than guessed at.
template <size_t N>
bool Pick(sj::object object, const std::array<std::string_view, N>& names,
          std::array<std::optional<sj::element>, N>* out) {
  for (sj::key_value_pair member : object) {
    for (size_t i = 0; i < N; ++i) {
      if (!SameText(member.key, names[i])) continue;
      if ((*out)[i].has_value()) return false;
      (*out)[i] = member.value;
      break;
    }
  }
  return true;
}

// A member that is present and not null (DecodeSlice's notion of "set").
const sj::element* Set(const std::optional<sj::element>& member) {
  return member.has_value() && !member->is_null() ? &*member : nullptr;
}

bool GetString(const sj::element& value, std::string_view* out) {
  return value.get_string().get(*out) == simdjson::SUCCESS;
}
bool GetNonEmptyString(const sj::element* value, std::string_view* out) {
  return value != nullptr && GetString(*value, out) && !out->empty();
}
// An optional string: absent or null gives "", a string its value, anything else fails.
bool GetOptionalString(const sj::element* value, std::string_view* out) {
  *out = {};
  return value == nullptr || GetString(*value, out);
}
// An optional boolean: absent or null gives false, a boolean its value, anything else fails.
bool GetOptionalBool(const sj::element* value, bool* out) {
  *out = false;
  return value == nullptr || value->get_bool().get(*out) == simdjson::SUCCESS;
}
// An optional object: absent or null gives false, an object true, anything else fails.
bool IsOptionalObject(const sj::element* value, bool* present) {
  *present = value != nullptr;
  return value == nullptr || value->type() == sj::element_type::OBJECT;
}
bool GetObject(const sj::element* value, sj::object* out) {
  return value != nullptr && value->get_object().get(*out) == simdjson::SUCCESS;
}
// An integer as DecodeSlice reads it (int64; no floating point, which nlohmann may type
// differently).
bool GetInt(const sj::element* value, int64_t* out) {
  return value != nullptr && value->type() == sj::element_type::INT64 &&
         value->get_int64().get(*out) == simdjson::SUCCESS;
}

// "v1beta1" → true (devices wrap their fields in `basic`), "v1beta2"/"v1" → false.
bool IsKnownSliceVersion(std::string_view api_version, bool* basic_wrapper) {
  if (!StartsWith(api_version, kResourceGroupPrefix)) return false;
  const std::string_view version = api_version.substr(kResourceGroupPrefix.size());
  *basic_wrapper = version == "v1beta1";
  return version == "v1" || version == "v1beta2" || version == "v1beta1";
}

// The index of an attribute value's member name: int, bool, string, version (0-3), ints, bools,
// strings, versions (4-7); -1 for any other name.
int AttributeKindIndex(std::string_view key) {
  switch (key.size()) {
    case 3:
      return SameText(key, "int") ? 0 : -1;
    case 4:
      return SameText(key, "bool") ? 1 : SameText(key, "ints") ? 4 : -1;
    case 5:
      return SameText(key, "bools") ? 5 : -1;
    case 6:
      return SameText(key, "string") ? 2 : -1;
    case 7:
      return SameText(key, "version") ? 3 : SameText(key, "strings") ? 6 : -1;
    case 8:
      return SameText(key, "versions") ? 7 : -1;
    default:
      return -1;
  }
}

class SliceDecoder {
 public:
  // `demand`: the scalar attributes to keep (null: all); must outlive the decoder.
  explicit SliceDecoder(const AttributeDemand* demand = nullptr) : demand_(demand) {}

  // Decodes one ResourceSlice object whose kind/apiVersion (own or inherited from its list) are
  // `kind` and `api_version`.
  bool Decode(sj::object object, std::string_view kind, std::string_view api_version,
              ResourceSlice* slice) {
    bool basic_wrapper = false;
    if (kind != kSliceKind || !IsKnownSliceVersion(api_version, &basic_wrapper)) return false;
    std::array<std::optional<sj::element>, 2> members;
    if (!Pick<2>(object, {"metadata", "spec"}, &members)) return false;
    sj::object metadata, spec;
    if (!GetObject(Set(members[0]), &metadata) || !GetObject(Set(members[1]), &spec)) {
      return false;
    }
    std::array<std::optional<sj::element>, 2> meta;
    std::string_view name, resource_version;
    if (!Pick<2>(metadata, {"name", "resourceVersion"}, &meta) ||
        !GetNonEmptyString(Set(meta[0]), &name) ||
        !GetOptionalString(Set(meta[1]), &resource_version)) {
      return false;
    }
    slice->name = std::string(name);
    slice->resource_version = std::string(resource_version);
    slice->api_version = std::string(api_version);

    std::array<std::optional<sj::element>, 8> fields;
    if (!Pick<8>(spec,
                 {"driver", "pool", "nodeName", "devices", "allNodes", "nodeSelector",
                  "perDeviceNodeSelection", "sharedCounters"},
                 &fields)) {
      return false;
    }
    std::string_view driver, node_name;
    sj::object pool;
    bool all_nodes = false, node_selector = false;
    if (!GetNonEmptyString(Set(fields[0]), &driver) || !GetObject(Set(fields[1]), &pool) ||
        !GetOptionalString(Set(fields[2]), &node_name) ||
        !GetOptionalBool(Set(fields[4]), &all_nodes) ||
        !IsOptionalObject(Set(fields[5]), &node_selector) ||
        !GetOptionalBool(Set(fields[6]), &slice->per_device_node_selection)) {
      return false;
    }
    slice->driver = std::string(driver);
    if (driver != driver_) {
      driver_ = std::string(driver);
      verdicts_.clear();
    }
    slice->node_name = std::string(node_name);
    slice->node_scope = SliceNodeScope(ToAbsl(node_name), all_nodes, node_selector);
    if (const sj::element* sets = Set(fields[7])) {
      sj::array list;
      if (sets->get_array().get(list) != simdjson::SUCCESS) return false;
      for (sj::element entry : list) {
        sj::object set_object;
        std::array<std::optional<sj::element>, 2> set_fields;
        std::string_view set_name;
        if (entry.get_object().get(set_object) != simdjson::SUCCESS ||
            !Pick<2>(set_object, {"name", "counters"}, &set_fields) ||
            !GetNonEmptyString(Set(set_fields[0]), &set_name)) {
          return false;
        }
        CounterSet set;
        set.name = std::string(set_name);
        if (!DecodeCounters(Set(set_fields[1]), &set.counters)) return false;
        slice->shared_counters.push_back(std::move(set));
      }
    }
    std::array<std::optional<sj::element>, 3> pool_fields;
    std::string_view pool_name;
    if (!Pick<3>(pool, {"name", "generation", "resourceSliceCount"}, &pool_fields) ||
        !GetNonEmptyString(Set(pool_fields[0]), &pool_name) ||
        !GetInt(Set(pool_fields[1]), &slice->pool_generation) ||
        !GetInt(Set(pool_fields[2]), &slice->resource_slice_count) ||
        slice->resource_slice_count <= 0) {
      return false;
    }
    slice->pool = std::string(pool_name);

    if (const sj::element* devices = Set(fields[3])) {
      sj::array list;
      if (devices->get_array().get(list) != simdjson::SUCCESS) return false;
      device_names_.Clear();
      attribute_names_.StartSlice();
      DeviceSetBuilder builder(ToAbsl(driver), ToAbsl(pool_name), slice->pool_generation,
                               ToAbsl(name));
      builder.ExpectDevices(list.size());
      for (sj::element entry : list) {
        if (!DecodeDevice(entry, basic_wrapper, *slice, &builder)) return false;
      }
      slice->devices = std::move(builder).Build();
    }
    return true;
  }

 private:
  // The fields of a device body: on the device (v1beta2, v1) or under `basic` (v1beta1).
  static constexpr std::array<std::string_view, 8> kBodyFields = {
      "attributes", "capacity",        "nodeName",
      "allNodes",   "nodeSelector",    "allowMultipleAllocations",
      "taints",     "consumesCounters"};

  // Adds one device of `slice` (whose node fields are decoded) to `builder`.
  bool DecodeDevice(const sj::element& entry, bool basic_wrapper, const ResourceSlice& slice,
                    DeviceSetBuilder* builder) {
    sj::object device_object;
    if (entry.get_object().get(device_object) != simdjson::SUCCESS) return false;
    // name, basic, then the body fields as they sit on a v1beta2/v1 device.
    std::array<std::optional<sj::element>, 10> fields;
    if (!Pick<10>(device_object,
                  {"name", "basic", kBodyFields[0], kBodyFields[1], kBodyFields[2], kBodyFields[3],
                   kBodyFields[4], kBodyFields[5], kBodyFields[6], kBodyFields[7]},
                  &fields)) {
      return false;
    }
    std::string_view name;
    if (!GetNonEmptyString(Set(fields[0]), &name) || !device_names_.Add(name)) {
      return false;
    }
    std::array<const sj::element*, 8> body;
    std::array<std::optional<sj::element>, 8> basic_fields;
    if (basic_wrapper) {
      sj::object basic;
      if (!GetObject(Set(fields[1]), &basic) || !Pick<8>(basic, kBodyFields, &basic_fields)) {
        return false;
      }
      for (size_t i = 0; i < body.size(); ++i) body[i] = Set(basic_fields[i]);
    } else {
      if (Set(fields[1]) != nullptr) return false;  // `basic` is v1beta1 only
      for (size_t i = 0; i < body.size(); ++i) body[i] = Set(fields[i + 2]);
    }

    std::string_view device_node;
    bool device_all_nodes = false, device_selector = false, allow_multiple = false;
    if (!GetOptionalString(body[2], &device_node) || !GetOptionalBool(body[3], &device_all_nodes) ||
        !IsOptionalObject(body[4], &device_selector) ||
        !GetOptionalBool(body[5], &allow_multiple)) {
      return false;
    }
    const DeviceNodes nodes =
        DeviceNodeScope(slice, ToAbsl(device_node), device_all_nodes, device_selector);
    builder->AddDevice(ToAbsl(name), nodes.node, nodes.scope);
    builder->SetAllowMultipleAllocations(allow_multiple);

    if (body[0] != nullptr) {
      sj::object attributes;
      if (!GetObject(body[0], &attributes)) return false;
      attribute_names_.StartDevice();
      size_t position = 0;
      for (sj::key_value_pair member : attributes) {
        // A name given twice is left to the strict path, whatever it makes of it.
        if (member.key.empty() || !attribute_names_.Add(member.key) ||
            !DecodeAttribute(position++, ToAbsl(member.key), member.value, builder)) {
          return false;
        }
      }
      attribute_names_.FinishDevice();
    }
    if (body[1] != nullptr) {
      sj::object capacity;
      if (!GetObject(body[1], &capacity)) return false;
      member_names_.Clear();
      for (sj::key_value_pair member : capacity) {
        std::optional<Quantity> quantity;
        std::optional<CapacityRequestPolicy> policy;
        if (member.key.empty() || !member_names_.Add(member.key) ||
            !DecodeDeviceCapacity(member.value, &quantity, &policy)) {
          return false;
        }
        builder->AddCapacity(ToAbsl(member.key), *quantity, policy ? &*policy : nullptr);
      }
    }
    if (body[6] != nullptr && !DecodeTaints(*body[6], builder)) return false;
    if (body[7] != nullptr && !DecodeConsumption(*body[7], builder)) return false;
    return true;
  }

  bool DecodeTaints(const sj::element& value, DeviceSetBuilder* builder) {
    sj::array list;
    if (value.get_array().get(list) != simdjson::SUCCESS) return false;
    for (sj::element entry : list) {
      sj::object taint;
      std::array<std::optional<sj::element>, 3> taint_fields;
      std::string_view key, taint_value, effect;
      if (entry.get_object().get(taint) != simdjson::SUCCESS ||
          !Pick<3>(taint, {"key", "value", "effect"}, &taint_fields) ||
          !GetNonEmptyString(Set(taint_fields[0]), &key) ||
          !GetOptionalString(Set(taint_fields[1]), &taint_value) ||
          !GetNonEmptyString(Set(taint_fields[2]), &effect)) {
        return false;
      }
      builder->AddTaint(ToAbsl(key), ToAbsl(taint_value), ToAbsl(effect));
    }
    return true;
  }

  bool DecodeConsumption(const sj::element& value, DeviceSetBuilder* builder) {
    sj::array list;
    if (value.get_array().get(list) != simdjson::SUCCESS) return false;
    for (sj::element entry : list) {
      sj::object use;
      std::array<std::optional<sj::element>, 2> use_fields;
      std::string_view counter_set;
      if (entry.get_object().get(use) != simdjson::SUCCESS ||
          !Pick<2>(use, {"counterSet", "counters"}, &use_fields) ||
          !GetNonEmptyString(Set(use_fields[0]), &counter_set)) {
        return false;
      }
      counters_.clear();
      if (!DecodeCounters(Set(use_fields[1]), &counters_)) return false;
      for (const auto& [counter, amount] : counters_) {
        builder->AddCounterUse(ToAbsl(counter_set), counter, amount);
      }
    }
    return true;
  }

  // `counters: {name: {value: Q}}`, sorted by name as the strict path (an ordered JSON object)
  // yields them; absent means none.
  bool DecodeCounters(const sj::element* value,
                      std::vector<std::pair<std::string, Quantity>>* out) {
    if (value == nullptr) return true;
    sj::object counters;
    if (value->get_object().get(counters) != simdjson::SUCCESS) return false;
    member_names_.Clear();
    for (sj::key_value_pair member : counters) {
      std::optional<Quantity> quantity;
      if (member.key.empty() || !member_names_.Add(member.key) ||
          !DecodeCapacity(member.value, &quantity)) {
        return false;
      }
      out->emplace_back(std::string(member.key), *quantity);
    }
    std::sort(out->begin(), out->end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return true;
  }

  // Whether the scalar attribute `name`, the `position`th of its device, is kept. Devices of a
  // slice list their attributes alike, so the verdict on the name last seen at a position is
  // asked first.
  bool Kept(size_t position, absl::string_view name) {
    if (demand_ == nullptr || demand_->everything()) return true;
    if (position < verdicts_.size() && SameText(verdicts_[position].first, name)) {
      return verdicts_[position].second;
    }
    const bool wanted = demand_->Wants(driver_, name);
    if (position >= verdicts_.size()) verdicts_.resize(position + 1);
    verdicts_[position] = {std::string(name), wanted};
    return wanted;
  }

  // Decodes (and so checks) the attribute `name` (JSON `value`) whatever the demand, and adds it
  // to `builder` unless it is a scalar the demand leaves out. Texts refer to the document.
  bool DecodeAttribute(size_t position, absl::string_view name, const sj::element& value,
                       DeviceSetBuilder* builder) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    // One pass over the members (usually exactly one): the value kinds by name, 0-3 scalars and
    // 4-7 lists. Attributes are the bulk of a slice, so no Pick here.
    int set = 0, index = -1;
    bool any_member = false;
    uint8_t seen = 0;
    sj::element kind_value;
    for (sj::key_value_pair member : object) {
      any_member = true;
      const int k = AttributeKindIndex(member.key);
      if (k < 0) continue;
      if ((seen & (1u << k)) != 0) return false;  // a name twice: left to the strict path
      seen |= static_cast<uint8_t>(1u << k);
      if (member.value.is_null()) continue;
      ++set;
      index = k;
      kind_value = member.value;
    }
    if (set == 0 && any_member) {
      // A kind this project does not know: kept whole, with the text the strict path gives it
      // (nlohmann's rendering of the value).
      nlohmann::json parsed = nlohmann::json::parse(simdjson::to_string(value), /*cb=*/nullptr,
                                                    /*allow_exceptions=*/false);
      if (parsed.is_discarded()) return false;
      const std::string text = parsed.dump();
      builder->AddAttribute(name, AttributeValue::Opaque(text));
      return true;
    }
    if (set != 1) return false;
    constexpr AttributeValue::Kind kElementKinds[] = {
        AttributeValue::Kind::kInt, AttributeValue::Kind::kBool, AttributeValue::Kind::kString,
        AttributeValue::Kind::kVersion};
    const AttributeValue::Kind element_kind = kElementKinds[index % 4];
    if (index < 4) {
      AttributeValue scalar;
      if (!DecodeScalar(element_kind, kind_value, &scalar)) return false;
      if (Kept(position, name)) builder->AddAttribute(name, scalar);
      return true;
    }
    sj::array items;
    if (kind_value.get_array().get(items) != simdjson::SUCCESS) return false;
    list_items_.clear();
    for (sj::element item : items) {
      AttributeValue scalar;
      if (!DecodeScalar(element_kind, item, &scalar)) return false;
      list_items_.push_back(scalar);
    }
    builder->AddAttribute(name, AttributeValue::List(element_kind, list_items_));
    return true;
  }

  static bool DecodeScalar(AttributeValue::Kind kind, const sj::element& value,
                           AttributeValue* out) {
    switch (kind) {
      case AttributeValue::Kind::kInt: {
        int64_t number = 0;
        if (!GetInt(&value, &number)) return false;
        *out = AttributeValue::Int(number);
        return true;
      }
      case AttributeValue::Kind::kBool: {
        bool flag = false;
        if (value.get_bool().get(flag) != simdjson::SUCCESS) return false;
        *out = AttributeValue::Bool(flag);
        return true;
      }
      default: {
        std::string_view text;
        if (!GetString(value, &text)) return false;
        *out = kind == AttributeValue::Kind::kString ? AttributeValue::String(ToAbsl(text))
                                                     : AttributeValue::Version(ToAbsl(text));
        return true;
      }
    }
  }

  // Fleets repeat a few quantities on every device: each distinct text is parsed once. The keys
  // are copies, so one decoder may serve many documents (watch events).
  absl::StatusOr<Quantity> ParseQuantity(std::string_view text) {
    if (auto it = quantities_.find(ToAbsl(text)); it != quantities_.end()) return it->second;
    absl::StatusOr<Quantity> parsed = Quantity::Parse(ToAbsl(text));
    if (parsed.ok() && quantities_.size() < kMaxCached) {
      quantities_.emplace(std::string(text), *parsed);
    }
    return parsed;
  }

  // `{value: Q}` (a counter's; a device capacity's members besides `value` are ignored).
  bool DecodeCapacity(const sj::element& value, std::optional<Quantity>* out) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 1> fields;
    if (!Pick<1>(object, {"value"}, &fields)) return false;
    const sj::element* q = Set(fields[0]);
    return q != nullptr && DecodeQuantity(*q, out);
  }

  // A device capacity `{value: Q, requestPolicy: {default, validValues, validRange}}`, the
  // policy into `policy` (unset when absent). Any policy the strict path would reject, or read
  // differently, is left to it.
  bool DecodeDeviceCapacity(const sj::element& value, std::optional<Quantity>* out,
                            std::optional<CapacityRequestPolicy>* policy) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 2> fields;
    if (!Pick<2>(object, {"value", "requestPolicy"}, &fields)) return false;
    const sj::element* q = Set(fields[0]);
    if (q == nullptr || !DecodeQuantity(*q, out)) return false;
    const sj::element* p = Set(fields[1]);
    if (p == nullptr) return true;
    sj::object policy_object;
    if (p->get_object().get(policy_object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 3> members;
    if (!Pick<3>(policy_object, {"default", "validValues", "validRange"}, &members)) return false;
    CapacityRequestPolicy decoded;
    if (const sj::element* d = Set(members[0]);
        d != nullptr && !DecodeQuantity(*d, &decoded.default_value)) {
      return false;
    }
    if (const sj::element* values = Set(members[1]); values != nullptr) {
      sj::array list;
      if (values->get_array().get(list) != simdjson::SUCCESS) return false;
      for (sj::element item : list) {
        std::optional<Quantity> v;
        if (!DecodeQuantity(item, &v)) return false;
        decoded.valid_values.push_back(*v);
      }
    }
    if (const sj::element* range = Set(members[2]);
        range != nullptr && !DecodeValidRange(*range, &decoded.valid_range)) {
      return false;
    }
    if (!decoded.valid_values.empty() && decoded.valid_range) return false;
    *policy = std::move(decoded);
    return true;
  }

  bool DecodeValidRange(const sj::element& value,
                        std::optional<CapacityRequestPolicy::Range>* out) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 3> fields;
    if (!Pick<3>(object, {"min", "max", "step"}, &fields)) return false;
    std::optional<Quantity> min;
    const sj::element* m = Set(fields[0]);
    if (m == nullptr || !DecodeQuantity(*m, &min)) return false;
    CapacityRequestPolicy::Range range;
    range.min = *min;
    if (const sj::element* max = Set(fields[1]);
        max != nullptr && !DecodeQuantity(*max, &range.max)) {
      return false;
    }
    if (const sj::element* step = Set(fields[2]);
        step != nullptr && !DecodeQuantity(*step, &range.step)) {
      return false;
    }
    *out = std::move(range);
    return true;
  }

  // A quantity: a string, or an integer as nlohmann's dump() prints it; floating point is left
  // to the strict path (its text is nlohmann's shortest round-trip form).
  bool DecodeQuantity(const sj::element& value, std::optional<Quantity>* out) {
    const sj::element* q = &value;
    absl::StatusOr<Quantity> parsed = absl::InvalidArgumentError("");
    switch (q->type()) {
      case sj::element_type::STRING: {
        std::string_view text;
        if (!GetString(*q, &text)) return false;
        parsed = ParseQuantity(text);
        break;
      }
      case sj::element_type::INT64: {
        int64_t i = 0;
        if (q->get_int64().get(i) != simdjson::SUCCESS) return false;
        parsed = Quantity::Parse(absl::StrCat(i));
        break;
      }
      case sj::element_type::UINT64: {
        uint64_t u = 0;
        if (q->get_uint64().get(u) != simdjson::SUCCESS) return false;
        parsed = Quantity::Parse(absl::StrCat(u));
        break;
      }
      default:
        return false;
    }
    if (!parsed.ok()) return false;
    *out = *std::move(parsed);
    return true;
  }

  static constexpr size_t kMaxCached = 4096;
  SeenNames device_names_;
  SeenNames member_names_;                                  // of one capacity or counters object
  DeviceNames attribute_names_;                             // of the slice's devices
  std::vector<AttributeValue> list_items_;                  // of one list-typed attribute
  std::vector<std::pair<std::string, Quantity>> counters_;  // of one consumesCounters entry
  absl::flat_hash_map<std::string, Quantity> quantities_;
  const AttributeDemand* demand_;
  std::string driver_;  // of the slice being decoded
  // Per attribute position of the driver's devices: the name last seen there and whether it is
  // kept.
  std::vector<std::pair<std::string, bool>> verdicts_;
};

// The top level of a manifest object, as manifest_reader's AddObject checks it.
struct Header {
  std::string_view api_version;
  std::string_view kind;
  bool has_items = false;              // `items` present (even null)
  const sj::element* items = nullptr;  // non-null `items`
};

bool ReadHeader(sj::object object, std::array<std::optional<sj::element>, 3>* members,
                Header* header) {
  if (!Pick<3>(object, {"apiVersion", "kind", "items"}, members)) return false;
  // AddObject requires both as non-empty strings (null included in "missing").
  if (!GetNonEmptyString(Set((*members)[0]), &header->api_version) ||
      !GetNonEmptyString(Set((*members)[1]), &header->kind)) {
    return false;
  }
  header->has_items = (*members)[2].has_value();
  header->items = Set((*members)[2]);
  return true;
}

bool IsList(const Header& h) {
  return h.kind == "List" || (EndsWith(h.kind, "List") && h.has_items);
}

// Cheap check that the document is ResourceSlices before the text is given up: the top-level
// object and each item's kind and apiVersion.
bool LooksLikeSlices(const sj::element& root) {
  sj::object object;
  std::array<std::optional<sj::element>, 3> members;
  Header header;
  if (root.get_object().get(object) != simdjson::SUCCESS ||
      !ReadHeader(object, &members, &header)) {
    return false;
  }
  if (!IsList(header)) return header.kind == kSliceKind;
  if (header.items == nullptr) return true;
  sj::array items;
  if (header.items->get_array().get(items) != simdjson::SUCCESS) return false;
  for (sj::element item : items) {
    sj::object item_object;
    if (item.get_object().get(item_object) != simdjson::SUCCESS) return false;
    std::string_view kind;
    for (sj::key_value_pair member : item_object) {
      if (member.key == "kind" && !member.value.is_null()) GetString(member.value, &kind);
    }
    if (kind.empty() && header.kind != "List") kind = header.kind.substr(0, header.kind.size() - 4);
    if (kind != kSliceKind) return false;
  }
  return true;
}

// A list's items, one at a time, into `out`; false (and the file is not handled) at the first
// item that is not a ResourceSlice the strict path would decode the same.
class ListItemDecoder {
 public:
  // `header` is the list's (its views must outlive this).
  ListItemDecoder(const Header& header, const AttributeDemand& demand,
                  std::vector<FastDecodedSlice>* out)
      : header_(header),
        // A typed list (ResourceSliceList) lends its items a missing kind and apiVersion.
        item_kind_(header.kind == "List" ? std::string_view()
                                         : header.kind.substr(0, header.kind.size() - 4)),
        decoder_(&demand),
        out_(out) {}

  bool Decode(const sj::element& item) {
    sj::object item_object;
    std::array<std::optional<sj::element>, 2> item_members;
    if (item.get_object().get(item_object) != simdjson::SUCCESS ||
        !Pick<2>(item_object, {"apiVersion", "kind"}, &item_members)) {
      return false;
    }
    std::string_view api_version = header_.api_version, kind = item_kind_;
    if (item_kind_.empty() || Set(item_members[0]) != nullptr) {
      if (!GetNonEmptyString(Set(item_members[0]), &api_version)) return false;
    }
    if (item_kind_.empty() || Set(item_members[1]) != nullptr) {
      if (!GetNonEmptyString(Set(item_members[1]), &kind)) return false;
    }
    // Nested lists (flattened by the strict path) and other kinds are left to the strict path.
    if (kind != kSliceKind) return false;
    FastDecodedSlice decoded;
    decoded.item_index = index_++;
    if (!decoder_.Decode(item_object, kind, api_version, &decoded.slice)) return false;
    out_->push_back(std::move(decoded));
    return true;
  }

 private:
  const Header& header_;
  const std::string_view item_kind_;
  SliceDecoder decoder_;
  std::vector<FastDecodedSlice>* out_;
  int index_ = 0;
};

bool DecodeDocument(const sj::element& root, const AttributeDemand& demand,
                    std::vector<FastDecodedSlice>* out) {
  sj::object object;
  std::array<std::optional<sj::element>, 3> members;
  Header header;
  if (root.get_object().get(object) != simdjson::SUCCESS ||
      !ReadHeader(object, &members, &header)) {
    return false;
  }
  if (!IsList(header)) {
    SliceDecoder decoder(&demand);
    FastDecodedSlice decoded;
    if (!decoder.Decode(object, header.kind, header.api_version, &decoded.slice)) return false;
    out->push_back(std::move(decoded));
    return true;
  }
  if (header.items == nullptr) return true;  // `items: null`: an empty list
  sj::array items;
  if (header.items->get_array().get(items) != simdjson::SUCCESS) return false;
  out->reserve(items.size());
  ListItemDecoder decoder(header, demand, out);
  for (sj::element item : items) {
    if (!decoder.Decode(item)) return false;
  }
  return true;
}

enum class ListRunsOutcome {
  kDecoded,     // `out` holds every item
  kNotHandled,  // the text is JSON (as far as read) but not what the fast path decodes
  kNotParsed,   // the envelope or a run does not parse, or could not be read
};

// The list whose envelope is `envelope`, its runs given by `next_run`, each parsed by one reused
// parser.
ListRunsOutcome DecodeRuns(absl::string_view envelope, NextRunFn next_run,
                           const AttributeDemand& demand, std::vector<FastDecodedSlice>* out,
                           int* runs) {
  sj::parser envelope_parser;
  sj::element root;
  sj::object object;
  std::array<std::optional<sj::element>, 3> members;
  Header header;
  sj::array no_items;
  if (envelope_parser.parse(envelope.data(), envelope.size()).get(root) != simdjson::SUCCESS) {
    return ListRunsOutcome::kNotParsed;
  }
  // The cut emptied the root's "items": anything else is not the list it looked like.
  if (root.get_object().get(object) != simdjson::SUCCESS ||
      !ReadHeader(object, &members, &header) || !IsList(header) || header.items == nullptr ||
      header.items->get_array().get(no_items) != simdjson::SUCCESS || no_items.size() != 0) {
    return ListRunsOutcome::kNotHandled;
  }
  sj::parser run_parser;
  size_t capacity = 0;
  ListItemDecoder decoder(header, demand, out);
  for (;;) {
    absl::string_view run;
    switch (next_run(&run)) {
      case NextRun::kRun:
        break;
      case NextRun::kEnd:
        return ListRunsOutcome::kDecoded;
      case NextRun::kUnreadable:
        return ListRunsOutcome::kNotParsed;
    }
    ++*runs;
    if (run.size() > capacity) {
      capacity = std::max(run.size(), simdjson::dom::MINIMAL_DOCUMENT_CAPACITY);
      if (run_parser.allocate(capacity, kRunMaxDepth) != simdjson::SUCCESS ||
          run_parser.doc.allocate(capacity) != simdjson::SUCCESS) {
        return ListRunsOutcome::kNotParsed;
      }
    }
    sj::element run_root;
    sj::array items;
    // An empty run would let "[a,]" through as "[a]" and "[]": every run holds an item.
    if (run_parser.parse(run.data(), run.size(), /*realloc_if_needed=*/false).get(run_root) !=
            simdjson::SUCCESS ||
        run_root.get_array().get(items) != simdjson::SUCCESS || items.size() == 0) {
      return ListRunsOutcome::kNotParsed;
    }
    for (sj::element item : items) {
      if (!decoder.Decode(item)) return ListRunsOutcome::kNotHandled;
    }
  }
}

// The strict path for one object: nlohmann::json, then DecodeSlice.
absl::StatusOr<ResourceSlice> DecodeStrict(absl::string_view json) {
  if (absl::Status s = limits::CheckJsonText(json, "ResourceSlice", limits::kMaxApiObjectBytes);
      !s.ok()) {
    return absl::DataLossError(s.message());
  }
  nlohmann::json object = nlohmann::json::parse(json.begin(), json.end(), /*cb=*/nullptr,
                                                /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return absl::DataLossError(absl::StrCat("ResourceSlice: not JSON: ", json.substr(0, 200),
                                            json.size() > 200 ? "..." : ""));
  }
  return DecodeSlice(object);
}

}  // namespace

struct SliceJsonDecoder::Impl {
  sj::parser parser;
  std::string buffer;  // the text plus simdjson's padding
  SliceDecoder decoder;
  int64_t fallbacks = 0;
};

SliceJsonDecoder::SliceJsonDecoder() : impl_(std::make_unique<Impl>()) {}
SliceJsonDecoder::~SliceJsonDecoder() = default;
SliceJsonDecoder::SliceJsonDecoder(SliceJsonDecoder&&) noexcept = default;
SliceJsonDecoder& SliceJsonDecoder::operator=(SliceJsonDecoder&&) noexcept = default;

absl::StatusOr<ResourceSlice> SliceJsonDecoder::Decode(absl::string_view json) {
  Impl& impl = *impl_;
  if (impl.buffer.capacity() < json.size() + kFastDecoderPadding) {
    impl.buffer.reserve(json.size() + kFastDecoderPadding);
  }
  impl.buffer.assign(json.data(), json.size());
  sj::element root;
  sj::object object;
  std::array<std::optional<sj::element>, 2> members;
  std::string_view api_version, kind;
  if (impl.parser.parse(impl.buffer.data(), impl.buffer.size(), /*realloc_if_needed=*/false)
              .get(root) == simdjson::SUCCESS &&
      root.get_object().get(object) == simdjson::SUCCESS &&
      Pick<2>(object, {"apiVersion", "kind"}, &members) &&
      GetNonEmptyString(Set(members[0]), &api_version) &&
      GetNonEmptyString(Set(members[1]), &kind)) {
    ResourceSlice slice;
    if (impl.decoder.Decode(object, kind, api_version, &slice)) return slice;
  }
  ++impl.fallbacks;
  return DecodeStrict(json);
}

int64_t SliceJsonDecoder::fallbacks() const { return impl_->fallbacks; }

absl::StatusOr<ResourceSlice> DecodeSliceFast(absl::string_view json) {
  thread_local SliceJsonDecoder decoder;
  return decoder.Decode(json);
}

FastDecodeResult FastDecodeSliceJson(absl::string_view padded_text,
                                     absl::FunctionRef<void()> release_text,
                                     const AttributeDemand& demand) {
  FastDecodeResult result;
  if (padded_text.size() >= kListRunsFromBytes) {
    if (std::optional<ListRuns> cut = CutListIntoRuns(padded_text, kListRunBytes)) {
      // Each run is copied between brackets into one buffer, padded for simdjson.
      std::unique_ptr<char[]> buffer(new char[cut->longest_run + 2 + kFastDecoderPadding]);
      size_t next = 0;
      const auto next_run = [&](absl::string_view* run) {
        if (next == cut->runs.size()) return NextRun::kEnd;
        const ListRuns::Run& r = cut->runs[next++];
        buffer[0] = '[';
        std::memcpy(buffer.get() + 1, padded_text.data() + r.begin, r.end - r.begin);
        buffer[r.end - r.begin + 1] = ']';
        std::memset(buffer.get() + r.end - r.begin + 2, 0, kFastDecoderPadding);
        *run = absl::string_view(buffer.get(), r.end - r.begin + 2);
        return NextRun::kRun;
      };
      int runs = 0;
      switch (DecodeRuns(cut->layout.envelope, next_run, demand, &result.slices, &runs)) {
        case ListRunsOutcome::kDecoded:
          release_text();
          result.text_released = true;
          result.handled = true;
          result.runs = runs;
          return result;
        case ListRunsOutcome::kNotHandled:
          result.slices.clear();
          return result;
        case ListRunsOutcome::kNotParsed:
          result.slices.clear();
          break;
      }
    }
  }
  sj::parser parser;
  sj::element root;
  if (!ReadyParserForDocument(padded_text.size(), &parser).ok() ||
      parser.parse(padded_text.data(), padded_text.size(), /*realloc_if_needed=*/false).get(root) !=
          simdjson::SUCCESS) {
    return result;
  }
  if (!LooksLikeSlices(root)) return result;
  // The parsed document holds its own copy of every string: the text is no longer needed.
  release_text();
  result.text_released = true;
  if (!DecodeDocument(root, demand, &result.slices)) {
    result.slices.clear();
    return result;
  }
  result.handled = true;
  return result;
}

FastDecodeResult FastDecodeSliceRuns(absl::string_view envelope, NextRunFn next_run,
                                     const AttributeDemand& demand) {
  FastDecodeResult result;
  switch (DecodeRuns(envelope, next_run, demand, &result.slices, &result.runs)) {
    case ListRunsOutcome::kDecoded:
      result.handled = true;
      break;
    case ListRunsOutcome::kNotHandled:
    case ListRunsOutcome::kNotParsed:
      result.slices.clear();
      result.runs = 0;
      break;
  }
  return result;
}

FastDecodeResult FastDecodeSliceJson(std::string* text, const AttributeDemand& demand) {
  if (text->capacity() < text->size() + kFastDecoderPadding) {
    text->reserve(text->size() + kFastDecoderPadding);
  }
  return FastDecodeSliceJson(
      *text, [text] { std::string().swap(*text); }, demand);
}

}  // namespace gpuprofile::dra
