// File: test/core/same_text_test.cc
#include "controller/core/same_text.h"

#include <string>

#include "gtest/gtest.h"

namespace gpuprofile {
namespace same_text_test {
namespace {

// Every length up to 40 (each path: bytes, 4-byte and 8-byte ends, memcmp), a difference at
// every position, in texts cut from a longer buffer so that neither starts aligned.
TEST(SameTextTest, AgreesWithStringEqualityAtEveryLengthAndPosition) {
  const std::string base = "xGPU-05fdf179-6cc6-ac05-4ba7-dae828398f9f0123456789";
  for (size_t n = 0; n <= 40; ++n) {
    const std::string a_text = base.substr(1, n);
    const absl::string_view a = a_text;
    std::string b = a_text;
    EXPECT_TRUE(SameText(a, absl::string_view(b))) << n;
    for (size_t i = 0; i < n; ++i) {
      b = a_text;
      b[i] = static_cast<char>(b[i] ^ 0x20);
      EXPECT_FALSE(SameText(a, absl::string_view(b))) << n << " at " << i;
      EXPECT_FALSE(SameText(std::string_view(b), std::string_view(a_text))) << n << " at " << i;
    }
    if (n > 0) {
      EXPECT_FALSE(SameText(a, a.substr(0, n - 1))) << n;
      EXPECT_FALSE(SameText(a.substr(0, n - 1), a)) << n;
    }
  }
  EXPECT_TRUE(SameText(absl::string_view(""), absl::string_view()));
}

}  // namespace
}  // namespace same_text_test
}  // namespace gpuprofile
