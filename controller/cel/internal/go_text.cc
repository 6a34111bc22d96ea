// File: controller/cel/internal/go_text.cc
#include "controller/cel/internal/go_text.h"

#include "absl/strings/str_cat.h"

namespace gpuprofile::cel::internal {

// ---- UTF-8 as Go sees it: every invalid byte decodes to U+FFFD with width 1. ----

Decoded DecodeRune(absl::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  auto at = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  if (b0 >= 0xC2 && b0 <= 0xDF && cont(1)) return {((b0 & 0x1Fu) << 6) | (at(1) & 0x3F), 2};
  if (b0 >= 0xE0 && b0 <= 0xEF && cont(1) && cont(2)) {
    char32_t r = ((b0 & 0x0Fu) << 12) | ((at(1) & 0x3F) << 6) | (at(2) & 0x3F);
    if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) return {r, 3};
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    char32_t r = ((b0 & 0x07u) << 18) | ((at(1) & 0x3F) << 12) | ((at(2) & 0x3F) << 6) |
                 (at(3) & 0x3F);
    if (r >= 0x10000 && r <= 0x10FFFF) return {r, 4};
  }
  return {0xFFFD, 1};
}

void AppendRune(std::string& out, char32_t r) {
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

// Go's strconv.IsPrint, approximated outside the ranges that matter for CEL literals: controls,
// separators other than ' ', format characters and noncharacters are not printable.
bool IsGoPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r <= 0xA0) || r == 0xAD) return false;
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F)) return false;
  if ((r >= 0x205F && r <= 0x2064) || r == 0x3000 || r == 0xFEFF) return false;
  if ((r >= 0xE000 && r <= 0xF8FF) || (r >= 0xFFF9 && r <= 0xFFFB)) return false;
  if ((r & 0xFFFE) == 0xFFFE || (r >= 0xFDD0 && r <= 0xFDEF)) return false;
  return true;
}

// Go's %q (strconv.Quote): the form cel-go uses for strings inside formatted lists and maps.
std::string GoQuote(absl::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    Decoded d = DecodeRune(s, i);
    if (d.rune == 0xFFFD && d.width == 1) {
      absl::StrAppend(&out, "\\x", absl::Hex(static_cast<unsigned char>(s[i]), absl::kZeroPad2));
      i += 1;
      continue;
    }
    i += d.width;
    char32_t r = d.rune;
    switch (r) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\a': out += "\\a"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\v': out += "\\v"; continue;
      default: break;
    }
    if (IsGoPrint(r)) {
      AppendRune(out, r);
    } else if (r < 0x80) {
      absl::StrAppend(&out, "\\x", absl::Hex(static_cast<uint32_t>(r), absl::kZeroPad2));
    } else if (r < 0x10000) {
      absl::StrAppend(&out, "\\u", absl::Hex(static_cast<uint32_t>(r), absl::kZeroPad4));
    } else {
      absl::StrAppend(&out, "\\U", absl::Hex(static_cast<uint32_t>(r), absl::kZeroPad8));
    }
  }
  out += "\"";
  return out;
}

}  // namespace gpuprofile::cel::internal
