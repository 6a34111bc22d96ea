// File: controller/dra/slice_fast_decoder.cc
// simdjson's DOM API (runtime CPU dispatch, full validation of the input) read into
// ResourceSlice values. Each Decode* function mirrors what manifest_reader.cc (AddObject) and
// resource_slice.cc (DecodeSlice) accept, and returns false where either would report a problem
// or where the two JSON parsers could disagree; the caller then takes the strict path.
#include "controller/dra/slice_fast_decoder.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/core/input_limits.h"
#include "controller/core/quantity.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace gpuprofile::dra {
namespace {

namespace sj = simdjson::dom;

static_assert(kFastDecoderPadding >= simdjson::SIMDJSON_PADDING,
              "the padding simdjson reads past the end");

constexpr std::string_view kSliceKind = "ResourceSlice";
constexpr std::string_view kGroupPrefix = "resource.k8s.io/";

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The members of `object` named in `names`, JSON null included (callers decide what null
// means). False when one of them appears twice: nlohmann keeps the last, and such files are left
// to the strict path rather than guessed at.
template <size_t N>
bool Pick(sj::object object, const std::array<std::string_view, N>& names,
          std::array<std::optional<sj::element>, N>* out) {
  for (sj::key_value_pair member : object) {
    for (size_t i = 0; i < N; ++i) {
      if (member.key != names[i]) continue;
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
bool SliceVersion(std::string_view api_version, bool* basic_wrapper) {
  if (!StartsWith(api_version, kGroupPrefix)) return false;
  const std::string_view version = api_version.substr(kGroupPrefix.size());
  *basic_wrapper = version == "v1beta1";
  return version == "v1" || version == "v1beta2" || version == "v1beta1";
}

class SliceDecoder {
 public:
  // Decodes one ResourceSlice object whose kind/apiVersion (own or inherited from its list) are
  // `kind` and `api_version`.
  bool Decode(sj::object object, std::string_view kind, std::string_view api_version,
              ResourceSlice* slice) {
    bool basic_wrapper = false;
    if (kind != kSliceKind || !SliceVersion(api_version, &basic_wrapper)) return false;
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

    std::array<std::optional<sj::element>, 4> fields;
    if (!Pick<4>(spec, {"driver", "pool", "nodeName", "devices"}, &fields)) return false;
    std::string_view driver, node_name;
    sj::object pool;
    if (!GetNonEmptyString(Set(fields[0]), &driver) || !GetObject(Set(fields[1]), &pool) ||
        !GetOptionalString(Set(fields[2]), &node_name)) {
      return false;
    }
    slice->driver = std::string(driver);
    slice->node_name = std::string(node_name);
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
      device_names_.clear();
      DeviceSetBuilder builder(ToAbsl(driver), ToAbsl(pool_name), slice->pool_generation,
                               ToAbsl(name));
      for (sj::element entry : list) {
        if (!DecodeDevice(entry, basic_wrapper, node_name, &builder)) return false;
      }
      slice->devices = std::move(builder).Build();
    }
    return true;
  }

 private:
  // Adds one device to `builder`; `slice_node` is the slice's spec.nodeName (may be empty).
  bool DecodeDevice(const sj::element& entry, bool basic_wrapper, std::string_view slice_node,
                    DeviceSetBuilder* builder) {
    sj::object device_object;
    if (entry.get_object().get(device_object) != simdjson::SUCCESS) return false;
    // name, basic, then the body fields as they sit on a v1beta2/v1 device.
    std::array<std::optional<sj::element>, 5> fields;
    if (!Pick<5>(device_object, {"name", "basic", "attributes", "capacity", "nodeName"}, &fields)) {
      return false;
    }
    std::string_view name;
    if (!GetNonEmptyString(Set(fields[0]), &name) || !device_names_.insert(name).second) {
      return false;
    }
    std::array<const sj::element*, 3> body = {Set(fields[2]), Set(fields[3]), Set(fields[4])};
    std::array<std::optional<sj::element>, 3> basic_fields;
    if (basic_wrapper) {
      sj::object basic;
      if (!GetObject(Set(fields[1]), &basic) ||
          !Pick<3>(basic, {"attributes", "capacity", "nodeName"}, &basic_fields)) {
        return false;
      }
      body = {Set(basic_fields[0]), Set(basic_fields[1]), Set(basic_fields[2])};
    } else if (Set(fields[1]) != nullptr) {
      return false;  // `basic` is v1beta1 only
    }

    std::string_view device_node;
    if (!GetOptionalString(body[2], &device_node)) return false;
    builder->AddDevice(ToAbsl(name), ToAbsl(!slice_node.empty() ? slice_node : device_node));

    if (body[0] != nullptr) {
      sj::object attributes;
      if (!GetObject(body[0], &attributes)) return false;
      member_names_.clear();
      for (sj::key_value_pair member : attributes) {
        AttributeValue value;
        // A name given twice is left to the strict path, whatever it makes of it.
        if (member.key.empty() || !member_names_.insert(member.key).second ||
            !DecodeAttribute(member.value, &value)) {
          return false;
        }
        builder->AddAttribute(ToAbsl(member.key), value);
      }
    }
    if (body[1] != nullptr) {
      sj::object capacity;
      if (!GetObject(body[1], &capacity)) return false;
      member_names_.clear();
      for (sj::key_value_pair member : capacity) {
        std::optional<Quantity> quantity;
        if (member.key.empty() || !member_names_.insert(member.key).second ||
            !DecodeCapacity(member.value, &quantity)) {
          return false;
        }
        builder->AddCapacity(ToAbsl(member.key), *quantity);
      }
    }
    return true;
  }

  // The value's text refers to the document being decoded.
  bool DecodeAttribute(const sj::element& value, AttributeValue* out) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 4> kinds;
    if (!Pick<4>(object, {"int", "bool", "string", "version"}, &kinds)) return false;
    int set = 0;
    for (const auto& kind : kinds) set += Set(kind) != nullptr ? 1 : 0;
    if (set != 1) return false;
    if (const sj::element* i = Set(kinds[0])) {
      int64_t number = 0;
      if (!GetInt(i, &number)) return false;
      *out = AttributeValue::Int(number);
      return true;
    }
    if (const sj::element* b = Set(kinds[1])) {
      bool flag = false;
      if (b->get_bool().get(flag) != simdjson::SUCCESS) return false;
      *out = AttributeValue::Bool(flag);
      return true;
    }
    std::string_view text;
    if (const sj::element* s = Set(kinds[2])) {
      if (!GetString(*s, &text)) return false;
      *out = AttributeValue::String(ToAbsl(text));
      return true;
    }
    if (!GetString(*Set(kinds[3]), &text)) return false;
    *out = AttributeValue::Version(ToAbsl(text));
    return true;
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

  bool DecodeCapacity(const sj::element& value, std::optional<Quantity>* out) {
    sj::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    std::array<std::optional<sj::element>, 1> fields;
    if (!Pick<1>(object, {"value"}, &fields)) return false;
    const sj::element* q = Set(fields[0]);
    if (q == nullptr) return false;
    absl::StatusOr<Quantity> parsed = absl::InvalidArgumentError("");
    switch (q->type()) {
      case sj::element_type::STRING: {
        std::string_view text;
        if (!GetString(*q, &text)) return false;
        parsed = ParseQuantity(text);
        break;
      }
      // Integers print as nlohmann's dump() prints them; floating point is left to the strict
      // path (its text is nlohmann's shortest round-trip form).
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
  absl::flat_hash_set<std::string_view> device_names_;
  absl::flat_hash_set<std::string_view> member_names_;  // of one attributes / capacity object
  absl::flat_hash_map<std::string, Quantity> quantities_;
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

bool DecodeDocument(const sj::element& root, std::vector<FastDecodedSlice>* out) {
  sj::object object;
  std::array<std::optional<sj::element>, 3> members;
  Header header;
  if (root.get_object().get(object) != simdjson::SUCCESS ||
      !ReadHeader(object, &members, &header)) {
    return false;
  }
  SliceDecoder decoder;
  if (!IsList(header)) {
    FastDecodedSlice decoded;
    if (!decoder.Decode(object, header.kind, header.api_version, &decoded.slice)) return false;
    out->push_back(std::move(decoded));
    return true;
  }
  if (header.items == nullptr) return true;  // `items: null`: an empty list
  sj::array items;
  if (header.items->get_array().get(items) != simdjson::SUCCESS) return false;
  // A typed list (ResourceSliceList) lends its items a missing kind and apiVersion.
  const std::string_view item_kind =
      header.kind == "List" ? std::string_view() : header.kind.substr(0, header.kind.size() - 4);
  out->reserve(items.size());
  int index = 0;
  for (sj::element item : items) {
    sj::object item_object;
    std::array<std::optional<sj::element>, 2> item_members;
    if (item.get_object().get(item_object) != simdjson::SUCCESS ||
        !Pick<2>(item_object, {"apiVersion", "kind"}, &item_members)) {
      return false;
    }
    std::string_view api_version = header.api_version, kind = item_kind;
    if (item_kind.empty() || Set(item_members[0]) != nullptr) {
      if (!GetNonEmptyString(Set(item_members[0]), &api_version)) return false;
    }
    if (item_kind.empty() || Set(item_members[1]) != nullptr) {
      if (!GetNonEmptyString(Set(item_members[1]), &kind)) return false;
    }
    // Nested lists (flattened by the strict path) and other kinds are left to the strict path.
    if (kind != kSliceKind) return false;
    FastDecodedSlice decoded;
    decoded.item_index = index++;
    if (!decoder.Decode(item_object, kind, api_version, &decoded.slice)) return false;
    out->push_back(std::move(decoded));
  }
  return true;
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

FastDecodeResult FastDecodeSliceJson(std::string* text) {
  FastDecodeResult result;
  if (text->capacity() < text->size() + kFastDecoderPadding) {
    text->reserve(text->size() + kFastDecoderPadding);
  }
  sj::parser parser;
  sj::element root;
  if (parser.parse(text->data(), text->size(), /*realloc_if_needed=*/false).get(root) !=
      simdjson::SUCCESS) {
    return result;
  }
  if (!LooksLikeSlices(root)) return result;
  // The parsed document holds its own copy of every string: the text is no longer needed.
  std::string().swap(*text);
  result.text_released = true;
  if (!DecodeDocument(root, &result.slices)) {
    result.slices.clear();
    return result;
  }
  result.handled = true;
  return result;
}

}  // namespace gpuprofile::dra
