// File: controller/core/input_limits.cc
#include "controller/core/input_limits.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <new>

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
  // Every watch event passes here before it is parsed, so strings (most of a Kubernetes object's
  // bytes) are skipped with memchr rather than byte by byte.
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  int depth = 0;
  for (const char* p = begin; p < end; ++p) {
    switch (*p) {
      case '"': {
        // The string ends at the next quote not escaped by an odd run of backslashes.
        const char* q = p + 1;
        for (;;) {
          q = static_cast<const char*>(std::memchr(q, '"', static_cast<size_t>(end - q)));
          if (q == nullptr) return absl::OkStatus();  // unterminated: the parser's to report
          const char* run = q;
          while (run > p + 1 && run[-1] == '\\') --run;
          if (((q - run) & 1) == 0) break;
          ++q;
        }
        p = q;
        break;
      }
      case '[':
      case '{':
        if (++depth > kMaxNestingDepth) {
          const size_t offset = static_cast<size_t>(p - begin);
          const int line =
              1 + static_cast<int>(std::count(begin, p, '\n'));  // only on this error path
          return absl::InvalidArgumentError(
              absl::StrCat(what, ": JSON nests deeper than ", kMaxNestingDepth,
                           " levels (at byte ", offset + 1, ", line ", line, ")"));
        }
        break;
      case ']':
      case '}':
        --depth;  // unbalanced text is the parser's to report
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
