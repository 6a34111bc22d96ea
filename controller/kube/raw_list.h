// File: controller/kube/raw_list.h
// A list page as text: the list's own fields, and each item as the span of the body that holds
// it, found with simdjson and never built into a document. The informers whose kinds have a raw
// decoder (ResourceSlices) read their (re)lists this way, as they read watch events: a page of
// 100 slices as an nlohmann::json document took about 6 MiB and most of a list's CPU.
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::kube {

struct RawListPage {
  struct Item {
    std::string_view text;  // within `body`: from '{' to the matching '}'
    bool has_api_version = false;
    bool has_kind = false;
  };

  std::string api_version;  // of the list, e.g. "resource.k8s.io/v1"
  std::string kind;         // e.g. "ResourceSliceList"
  std::string resource_version;
  std::string continue_token;  // empty on the last page
  std::optional<int64_t> remaining_item_count;
  std::string body;         // owns the text the items point into (with simdjson's padding)
  std::vector<Item> items;  // the object items, in order (items that are not objects skipped)

  // The item's text with the list's apiVersion and the item kind (the list's kind without
  // "List") put in front when the item lacks them, as servers omit them in lists.
  std::string WithTypeMeta(const Item& item) const;
};

// An object's text from simdjson's raw_json() once the object was read to its end, which runs to
// the next token: the whitespace after the closing brace trimmed. Empty when the text does not
// end with '}' (not an object read whole). Shared with the watcher's event envelope.
std::string_view ClosedObjectText(std::string_view raw_json);

// Reads `body` (a list response of `what`, e.g. "GET /apis/..."), after the size and nesting
// checks of input_limits.h. DataLoss, starting with `what`, when it is not a JSON object or an
// item cannot be delimited.
absl::StatusOr<RawListPage> ParseRawListPage(std::string body, absl::string_view what);

}  // namespace gpuprofile::kube
