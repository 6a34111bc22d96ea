// File: controller/cel/internal/go_text.h
// Text handling as Go does it, for messages and results that must read exactly like cel-go's and
// Kubernetes': UTF-8 decoding where every invalid byte is U+FFFD of width 1, and strconv.Quote.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace gpuprofile::cel::internal {

struct Decoded {
  char32_t rune;
  int width;
};

// The rune starting at byte `i` of `s` (i < s.size()).
Decoded DecodeRune(absl::string_view s, size_t i);
// Appends `r` in UTF-8.
void AppendRune(std::string& out, char32_t r);
// Go's strconv.IsPrint (approximated outside the ranges that matter for CEL text).
bool IsGoPrint(char32_t r);
// Go's strconv.Quote (also what %q prints).
std::string GoQuote(absl::string_view s);

}  // namespace gpuprofile::cel::internal
