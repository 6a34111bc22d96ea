// File: controller/dra/list_runs.cc
#include "controller/dra/list_runs.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {
namespace {

// How far past a run's length an item's end is first looked for, and the most it is looked for
// in.
constexpr size_t kItemEndWindow = size_t{64} << 10;
constexpr size_t kMaxRunWindowBytes = size_t{16} << 20;

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
  const size_t limit = text.size();
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

std::optional<ListLayout> FindListLayout(absl::string_view head, absl::string_view tail,
                                         size_t size) {
  const std::optional<ItemsKey> items = FindItemsKey(head);
  if (!items) return std::nullopt;
  ListLayout layout;
  layout.open = items->bracket;
  // The items' closing bracket: on a line of its own, indented as the key's line (kubectl
  // prints the root's members in key order, so "kind" and "metadata" may follow).
  const std::optional<absl::string_view> key_indent = LineIndent(head, items->key);
  if (!key_indent) return std::nullopt;
  const size_t close_line = tail.rfind(absl::StrCat("\n", *key_indent, "]"));
  if (close_line == absl::string_view::npos) return std::nullopt;
  const size_t tail_start = size - tail.size();
  layout.close = tail_start + close_line + 1 + key_indent->size();
  if (layout.close <= layout.open) return std::nullopt;
  // The first item, on a line of its own in the head: its indentation ends every item's last
  // line.
  layout.first = SkipSpace(head, layout.open + 1, std::min(head.size(), layout.close));
  if (layout.first >= std::min(head.size(), layout.close) || head[layout.first] != '{') {
    return std::nullopt;
  }
  const std::optional<absl::string_view> item_indent = LineIndent(head, layout.first);
  if (!item_indent) return std::nullopt;
  layout.item_end = absl::StrCat("\n", *item_indent, "},");
  layout.envelope =
      absl::StrCat(head.substr(0, layout.open), "[]", tail.substr(layout.close + 1 - tail_start));
  return layout;
}

std::optional<size_t> FindRunEnd(
    const ListLayout& layout, size_t begin, size_t run_bytes,
    absl::FunctionRef<std::optional<absl::string_view>(size_t length)> window) {
  if (begin + run_bytes >= layout.close) return absl::string_view::npos;
  for (size_t length = run_bytes + kItemEndWindow;; length *= 2) {
    const std::optional<absl::string_view> text = window(length);
    if (!text) return std::nullopt;
    const size_t reach = std::min(text->size(), layout.close - begin);
    const size_t found = text->substr(0, reach).find(layout.item_end, run_bytes);
    if (found != absl::string_view::npos) return begin + found + layout.item_end.size() - 1;
    if (begin + length >= layout.close || length >= kMaxRunWindowBytes) {
      return absl::string_view::npos;
    }
  }
}

std::optional<ListRuns> CutListIntoRuns(absl::string_view text, size_t run_bytes) {
  const size_t size = text.size();
  std::optional<ListLayout> layout = FindListLayout(
      text.substr(0, kListHeadBytes), text.substr(size - std::min(size, kListTailBytes)), size);
  if (!layout) return std::nullopt;
  ListRuns cut;
  size_t begin = layout->first;
  for (;;) {
    const size_t comma = *FindRunEnd(*layout, begin, run_bytes, [&](size_t length) {
      return std::optional<absl::string_view>(text.substr(begin, length));
    });
    if (comma == absl::string_view::npos) break;
    cut.runs.push_back({begin, comma});
    begin = comma + 1;
  }
  cut.runs.push_back({begin, layout->close});
  if (cut.runs.size() < 2) return std::nullopt;
  for (const ListRuns::Run& run : cut.runs) {
    cut.longest_run = std::max(cut.longest_run, run.end - run.begin);
  }
  cut.layout = *std::move(layout);
  return cut;
}

}  // namespace gpuprofile::dra
