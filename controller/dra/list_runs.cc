// File: controller/dra/list_runs.cc
#include "controller/dra/list_runs.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {
namespace {

// How far from the start the root's "items" key, and from the end its closing bracket, are
// looked for: kubectl's and the API server's lists give a few short members around it
// (apiVersion, kind, metadata).
constexpr size_t kHeadLimit = size_t{64} << 10;
constexpr size_t kTailLimit = size_t{64} << 10;
// The least an item's end is looked for past a run's length.
constexpr size_t kItemEndWindow = size_t{64} << 10;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(absl::string_view text, size_t at, size_t limit) {
  while (at < limit && IsJsonSpace(text[at])) ++at;
  return at;
}

// Where the root object's "items" key starts (its opening quote) and where the "[" that
// opens its value is. Lexes the text as JSON does (strings with their escapes, nesting), so that
// a bracket or a key inside a string or a nested object is never taken for it. A key written
// with escapes is not recognised (nullopt: the text is parsed whole).
struct ItemsKey {
  size_t key = 0;
  size_t bracket = 0;
};
std::optional<ItemsKey> FindItemsKey(absl::string_view text) {
  const size_t limit = std::min(text.size(), kHeadLimit);
  int depth = 0;
  bool key_next = false;  // at depth 1, after "{" or ","
  size_t i = SkipSpace(text, 0, limit);
  if (i >= limit || text[i] != '{') return std::nullopt;
  while (i < limit) {
    const char c = text[i];
    if (c == '"') {
      const size_t quote = i;
      const size_t start = ++i;
      while (i < limit && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (i >= limit) return std::nullopt;
      const absl::string_view string = text.substr(start, i - start);
      ++i;
      if (depth == 1 && key_next) {
        key_next = false;
        i = SkipSpace(text, i, limit);
        if (i >= limit || text[i] != ':') return std::nullopt;
        i = SkipSpace(text, i + 1, limit);
        if (string == "items") {
          if (i < limit && text[i] == '[') return ItemsKey{quote, i};
          return std::nullopt;
        }
      }
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) return std::nullopt;  // the root closed without "items"
    } else if (c == ',' && depth == 1) {
      key_next = true;
    }
    ++i;
  }
  return std::nullopt;
}

// The whitespace that indents the line on which `at` is, when only whitespace comes before it
// on that line; nullopt otherwise (or on the text's first line).
std::optional<absl::string_view> LineIndent(absl::string_view text, size_t at) {
  const size_t newline = text.substr(0, at).rfind('\n');
  if (newline == absl::string_view::npos) return std::nullopt;
  const absl::string_view indent = text.substr(newline + 1, at - newline - 1);
  for (char c : indent) {
    if (!IsJsonSpace(c)) return std::nullopt;
  }
  return indent;
}

}  // namespace

std::optional<ListRuns> CutListIntoRuns(absl::string_view text, size_t run_bytes) {
  const std::optional<ItemsKey> items = FindItemsKey(text);
  if (!items) return std::nullopt;
  const size_t open = items->bracket;
  // The items' closing bracket: on a line of its own, indented as the key's line (kubectl
  // prints the root's members in key order, so "kind" and "metadata" may follow).
  const std::optional<absl::string_view> key_indent = LineIndent(text, items->key);
  if (!key_indent) return std::nullopt;
  const size_t tail = text.size() > kTailLimit ? text.size() - kTailLimit : 0;
  size_t close_line = text.substr(tail).rfind(absl::StrCat("\n", *key_indent, "]"));
  if (close_line == absl::string_view::npos || tail + close_line <= open) return std::nullopt;
  close_line += tail;
  const size_t close = close_line + 1 + key_indent->size();
  // The first item, on a line of its own: its indentation ends every item's last line.
  const size_t first = SkipSpace(text, open + 1, close);
  if (first >= close || text[first] != '{') return std::nullopt;
  const std::optional<absl::string_view> item_indent = LineIndent(text, first);
  if (!item_indent) return std::nullopt;
  const std::string item_end = absl::StrCat("\n", *item_indent, "},");

  ListRuns cut;
  size_t begin = first;
  while (begin + run_bytes < close) {
    // Looked for within one more run's length (64 KiB at least), so that a layout without such
    // lines costs a megabyte's search, not the whole text's; a longer item ends the cutting.
    const size_t window_end = begin + run_bytes + std::max(run_bytes, kItemEndWindow);
    const absl::string_view window = text.substr(0, std::min(close, window_end));
    const size_t found = window.find(item_end, begin + run_bytes);
    if (found == absl::string_view::npos) break;
    const size_t comma = found + item_end.size() - 1;
    cut.runs.push_back({begin, comma});
    begin = SkipSpace(text, comma + 1, close);
    if (begin >= close) return std::nullopt;  // a comma before "]": left to the whole parse
  }
  cut.runs.push_back({begin, close});
  if (cut.runs.size() < 2) return std::nullopt;
  for (const ListRuns::Run& run : cut.runs) {
    cut.longest_run = std::max(cut.longest_run, run.end - run.begin);
  }
  cut.envelope = absl::StrCat(text.substr(0, open), "[]", text.substr(close + 1));
  cut.open = open;
  cut.close = close;
  return cut;
}

}  // namespace gpuprofile::dra
