// File: controller/core/same_text.h
// Equality of short texts without a call to memcmp. The slice decoders compare attribute names
// and values with the previous device's hundreds of thousands of times per fleet, and nearly
// all are under 17 bytes; an out-of-line memcmp per comparison cost render about 2% of its
// instructions. Texts of up to 16 bytes are compared with two (overlapping) loads of 4 or 8
// bytes each; longer ones with memcmp.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {

namespace same_text_internal {
template <typename Word>
inline Word Load(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}
// The first and the last sizeof(Word) bytes, which together cover n bytes for
// sizeof(Word) <= n <= 2 * sizeof(Word).
template <typename Word>
inline bool SameEnds(const char* a, const char* b, size_t n) {
  return Load<Word>(a) == Load<Word>(b) &&
         Load<Word>(a + n - sizeof(Word)) == Load<Word>(b + n - sizeof(Word));
}
}  // namespace same_text_internal

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameText(const char* x, size_t n, const char* y,
                                                  size_t m) {
  if (n != m) return false;
  if (n >= 8) {
    if (n > 16) return std::memcmp(x, y, n) == 0;
    return same_text_internal::SameEnds<uint64_t>(x, y, n);
  }
  if (n >= 4) return same_text_internal::SameEnds<uint32_t>(x, y, n);
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameText(absl::string_view a, absl::string_view b) {
  return SameText(a.data(), a.size(), b.data(), b.size());
}
// simdjson's texts are std::string_view (Debian's Abseil has a string_view of its own).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameText(std::string_view a, std::string_view b) {
  return SameText(a.data(), a.size(), b.data(), b.size());
}

}  // namespace gpuprofile
