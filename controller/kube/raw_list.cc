// File: controller/kube/raw_list.cc
#include "controller/kube/raw_list.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace gpuprofile::kube {
namespace {

namespace od = simdjson::ondemand;

bool Ok(simdjson::error_code e) { return e == simdjson::SUCCESS; }

std::string Quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The list's metadata: resourceVersion, continue, remainingItemCount.
bool ReadMetadata(od::value value, RawListPage* page) {
  od::object metadata;
  if (!Ok(value.get_object().get(metadata))) return true;  // not an object: nothing to read
  for (auto member : metadata) {
    od::field field;
    std::string_view key;
    if (!Ok(std::move(member).get(field)) || !Ok(field.unescaped_key().get(key))) return false;
    std::string_view text;
    int64_t number = 0;
    if (key == "resourceVersion" && Ok(field.value().get_string().get(text))) {
      page->resource_version = std::string(text);
    } else if (key == "continue" && Ok(field.value().get_string().get(text))) {
      page->continue_token = std::string(text);
    } else if (key == "remainingItemCount" && Ok(field.value().get_int64().get(number))) {
      page->remaining_item_count = number;
    }
  }
  return true;
}

// One item: whether it names its apiVersion and kind, and its text.
bool ReadItem(od::value value, RawListPage* page) {
  od::object object;
  if (!Ok(value.get_object().get(object))) return true;  // not an object: skipped
  RawListPage::Item item;
  for (auto member : object) {
    od::field field;
    std::string_view key;
    if (!Ok(std::move(member).get(field)) || !Ok(field.unescaped_key().get(key))) return false;
    if (key == "apiVersion") item.has_api_version = true;
    if (key == "kind") item.has_kind = true;
  }
  std::string_view text;
  if (!Ok(object.raw_json().get(text))) return false;
  item.text = ClosedObjectText(text);
  if (item.text.empty()) return false;
  page->items.push_back(item);
  return true;
}

}  // namespace

std::string_view ClosedObjectText(std::string_view raw_json) {
  while (!raw_json.empty() && (raw_json.back() == ' ' || raw_json.back() == '\n' ||
                               raw_json.back() == '\r' || raw_json.back() == '\t')) {
    raw_json.remove_suffix(1);
  }
  if (raw_json.empty() || raw_json.back() != '}') return {};
  return raw_json;
}

std::string RawListPage::WithTypeMeta(const Item& item) const {
  if ((item.has_api_version || api_version.empty()) &&
      (item.has_kind || !absl::EndsWith(kind, "List"))) {
    return std::string(item.text);
  }
  std::string out = "{";
  if (!item.has_api_version && !api_version.empty()) {
    absl::StrAppend(&out, "\"apiVersion\":", Quoted(api_version), ",");
  }
  if (!item.has_kind && absl::EndsWith(kind, "List")) {
    absl::StrAppend(&out, "\"kind\":", Quoted(kind.substr(0, kind.size() - 4)), ",");
  }
  std::string_view rest = item.text.substr(1);  // after '{'
  const absl::string_view inside(rest.data(), rest.size());
  if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(inside), "}")) {
    out.pop_back();  // an empty object: no comma after the fields put in front
  }
  out.append(rest.data(), rest.size());
  return out;
}

absl::StatusOr<RawListPage> ParseRawListPage(std::string body, absl::string_view what) {
  if (absl::Status s = limits::CheckJsonText(body, what, limits::kMaxApiResponseBytes); !s.ok()) {
    return absl::DataLossError(s.message());
  }
  RawListPage page;
  page.body = std::move(body);
  const size_t length = page.body.size();
  page.body.reserve(length + simdjson::SIMDJSON_PADDING);
  auto malformed = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(what, ": the list ", why));
  };
  od::parser parser;
  od::document doc;
  od::object top;
  if (!Ok(parser.iterate(page.body.data(), length, page.body.capacity()).get(doc)) ||
      !Ok(doc.get_object().get(top))) {
    return malformed("is not a JSON object");
  }
  for (auto member : top) {
    od::field field;
    std::string_view key;
    if (!Ok(std::move(member).get(field)) || !Ok(field.unescaped_key().get(key))) {
      return malformed("is not valid JSON");
    }
    std::string_view text;
    if (key == "apiVersion" && Ok(field.value().get_string().get(text))) {
      page.api_version = std::string(text);
    } else if (key == "kind" && Ok(field.value().get_string().get(text))) {
      page.kind = std::string(text);
    } else if (key == "metadata") {
      if (!ReadMetadata(field.value(), &page)) return malformed("has invalid metadata");
    } else if (key == "items") {
      od::array items;
      if (!Ok(field.value().get_array().get(items))) continue;  // not an array: no items
      page.items.clear();  // a repeated member counts as its last occurrence, as nlohmann reads it
      for (auto element : items) {
        od::value value;
        if (!Ok(std::move(element).get(value)) || !ReadItem(value, &page)) {
          return malformed("has an item that is not valid JSON");
        }
      }
    }
  }
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    return malformed("is not valid JSON (text after the object)");
  }
  return page;
}

}  // namespace gpuprofile::kube
