// File: controller/core/input_limits.cc
#include "controller/core/input_limits.h"

#include <algorithm>
#include <exception>
#include <new>
#include <limits>

#include "absl/strings/str_cat.h"

namespace gpuprofile::limits {

int64_t YamlNodeBudget(size_t input_bytes) {
  constexpr uint64_t kMaxBytes =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 4) / kYamlNodesPerInputByte;
  const uint64_t bytes = std::min<uint64_t>(input_bytes, kMaxBytes);
  return kYamlNodeBudgetFloor + kYamlNodesPerInputByte * static_cast<int64_t>(bytes);
}

absl::Status CheckSize(size_t size, size_t max_bytes, absl::string_view what,
                       absl::string_view noun) {
  if (size <= max_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", noun, " is ", size,
                                                 " bytes, over the limit of ", max_bytes,
                                                 " bytes"));
}

absl::Status CheckJsonText(absl::string_view text, absl::string_view what, size_t max_bytes) {
  if (absl::Status s = CheckSize(text.size(), max_bytes, what, "the JSON text"); !s.ok()) {
    return s;
  }
  int depth = 0;
  int line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > kMaxNestingDepth) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, ": JSON nests deeper than ", kMaxNestingDepth,
                           " levels (at byte ", i + 1, ", line ", line, ")"));
        }
        break;
      case ']':
      case '}':
        --depth;  // unbalanced text is the parser's to report
        break;
      case '\n':
        ++line;
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view what,
                                         size_t max_bytes) {
  if (absl::Status s = CheckJsonText(text, what, max_bytes); !s.ok()) return s;
  try {
    nlohmann::json value =
        nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (!value.is_discarded()) return value;
    // Parse again with exceptions for nlohmann's positioned message.
    const nlohmann::json unused = nlohmann::json::parse(text.begin(), text.end());
    (void)unused;
  } catch (const nlohmann::json::exception& e) {
    absl::string_view message = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> "parse error ..."
    if (auto pos = message.find("] "); pos != absl::string_view::npos) {
      message.remove_prefix(pos + 2);
    }
    return absl::InvalidArgumentError(absl::StrCat(what, ": invalid JSON: ", message));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": out of memory parsing ", text.size(), " bytes of JSON"));
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": invalid JSON"));
}

}  // namespace gpuprofile::limits
