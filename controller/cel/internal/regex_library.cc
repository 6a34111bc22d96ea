// File: controller/cel/internal/regex_library.cc
// Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go): `find` and `findAll`,
// part of the base environment on every version.
//
// Kubernetes uses Go's regexp, whose syntax and leftmost-first semantics RE2 shares; findAll
// follows Go's FindAllString exactly, including how empty matches are skipped right after a
// match. Compile errors become error values worded like Go's ("Illegal regex: error parsing
// regexp: missing closing ): `(`").
//
// Patterns are almost always literals, so compiled patterns are kept in a small process-wide
// cache (mutex-guarded; the library is otherwise pure).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "controller/cel/internal/function.h"
#include "re2/re2.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr char kRegexLibrary[] = "Kubernetes regex library";
// Beyond this many distinct patterns the cache starts over; keeps memory bounded when patterns
// are computed from data.
constexpr size_t kMaxCachedPatterns = 256;

// Go's regexp error texts for the RE2 error codes (regexp/syntax ErrorCode strings).
absl::string_view GoErrorText(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorUnexpectedParen: return "unexpected )";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "invalid regular expression";
  }
}

class PatternCache {
 public:
  // The compiled pattern, or the error message for an invalid one.
  std::shared_ptr<const RE2> Get(const std::string& pattern, std::string* error) {
    {
      absl::MutexLock lock(&mu_);
      auto it = cache_.find(pattern);
      if (it != cache_.end()) return it->second;
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const RE2>(pattern, options);
    if (!re->ok()) {
      // Go quotes the offending fragment in backquotes; RE2 reports the same fragment.
      *error = absl::StrCat("Illegal regex: error parsing regexp: ", GoErrorText(re->error_code()),
                            ": `", re->error_arg(), "`");
      return nullptr;
    }
    absl::MutexLock lock(&mu_);
    if (cache_.size() >= kMaxCachedPatterns) cache_.clear();
    cache_.emplace(pattern, re);
    return re;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const RE2>> cache_ ABSL_GUARDED_BY(mu_);
};

PatternCache& Cache() {
  static auto* cache = new PatternCache();  // never destroyed: safe during static teardown
  return *cache;
}

// Go's regexp.FindAllString(s, n): successive non-overlapping leftmost matches; an empty match
// directly after the previous match is skipped; n < 0 means all.
std::vector<Value> FindAll(const RE2& re, absl::string_view text, int64_t n) {
  std::vector<Value> out;
  const re2::StringPiece subject(text.data(), text.size());
  size_t pos = 0;
  int64_t prev_match_end = -1;
  while ((n < 0 || static_cast<int64_t>(out.size()) < n) && pos <= text.size()) {
    re2::StringPiece match;
    if (!re.Match(subject, pos, subject.size(), RE2::UNANCHORED, &match, 1)) break;
    const auto start = static_cast<size_t>(match.data() - text.data());
    const size_t end = start + match.size();
    bool accept = true;
    if (end == pos) {
      // An empty match at the search position.
      if (static_cast<int64_t>(start) == prev_match_end) accept = false;
      if (pos < text.size()) {
        // Advance by one UTF-8 sequence (Go advances by the rune width).
        const auto b = static_cast<unsigned char>(text[pos]);
        size_t width = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
        pos += std::min(width, text.size() - pos);
      } else {
        pos = text.size() + 1;
      }
    } else {
      pos = end;
    }
    prev_match_end = static_cast<int64_t>(end);
    if (accept) out.push_back(Value::String(std::string(match.data(), match.size())));
  }
  return out;
}

Value FindImpl(absl::Span<const Value> args) {
  std::string error;
  std::shared_ptr<const RE2> re = Cache().Get(args[1].string_ref(), &error);
  if (re == nullptr) return Value::Error(std::move(error));
  // Debian's RE2 predates its absl::string_view interface.
  const re2::StringPiece text(args[0].string_ref());
  re2::StringPiece match;
  if (!re->Match(text, 0, text.size(), RE2::UNANCHORED, &match, 1)) return Value::String("");
  return Value::String(std::string(match.data(), match.size()));
}

Value FindAllImpl(absl::Span<const Value> args) {
  std::string error;
  std::shared_ptr<const RE2> re = Cache().Get(args[1].string_ref(), &error);
  if (re == nullptr) return Value::Error(std::move(error));
  int64_t n = args.size() > 2 ? args[2].int_value() : -1;
  if (n == 0) return Value::List(std::vector<Value>{});
  return Value::List(FindAll(*re, args[0].string_value(), n));
}

void AddRegexFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
         std::vector<Type> params, Type result, FunctionImpl impl) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            /*receiver_style=*/true);
  o.gate = Gate{0, kRegexLibrary};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterRegexLibrary(FunctionRegistry& registry) {
  const Type s = Type::String();
  AddRegexFunction(registry, "find", "string_find_string", {s, s}, s, FindImpl);
  AddRegexFunction(registry, "findAll", "string_find_all_string", {s, s}, Type::List(s),
                   FindAllImpl);
  AddRegexFunction(registry, "findAll", "string_find_all_string_int", {s, s, Type::Int()},
                   Type::List(s), FindAllImpl);
}

}  // namespace gpuprofile::cel::internal
