// File: test/core/input_limits_test.cc
#include "controller/core/input_limits.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::limits {
namespace input_limits_test {
namespace {

using ::testing::HasSubstr;

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(CheckJsonTextTest, NestingUpToTheLimitPasses) {
  EXPECT_TRUE(CheckJsonText(Repeat("[", kMaxNestingDepth) + Repeat("]", kMaxNestingDepth), "x",
                            1 << 20)
                  .ok());
  EXPECT_TRUE(CheckJsonText(Repeat(R"({"a":)", kMaxNestingDepth - 1) + "{}" +
                                Repeat("}", kMaxNestingDepth - 1),
                            "x", 1 << 20)
                  .ok());
}

TEST(CheckJsonTextTest, DeeperNestingNamesWhatAndWhere) {
  const std::string text = "{\n\"a\": " + Repeat("[", 100'000);
  absl::Status s = CheckJsonText(text, "GET /api/v1/namespaces", 1 << 20);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // `{` is level 1 at byte 1; the brackets start at byte 8, so level kMaxNestingDepth + 1 is
  // at byte 7 + kMaxNestingDepth.
  EXPECT_EQ(s.message(), absl::StrCat("GET /api/v1/namespaces: JSON nests deeper than ",
                                      kMaxNestingDepth, " levels (at byte ", 7 + kMaxNestingDepth,
                                      ", line 2)"));
}

TEST(CheckJsonTextTest, BracketsInStringsDoNotCount) {
  const std::vector<std::string> strings = {
      R"("[[[[")", R"("\"[[[[")", R"("\\\"{{{{")", R"("a\\")", R"("")", R"("\\\\[")",
      R"("\\\\\"]]]]")"};
  for (const std::string& s : strings) {
    const std::string text =
        Repeat("[", kMaxNestingDepth - 1) + "[" + Repeat(s + ",", 2000) + "1]" +
        Repeat("]", kMaxNestingDepth - 1);
    EXPECT_TRUE(CheckJsonText(text, "x", 1 << 20).ok()) << s;
  }
  // A string that ends with an escaped backslash closes: the brackets after it count.
  const std::string closed = R"(["a\\", )" + Repeat("[", kMaxNestingDepth) + "]";
  EXPECT_FALSE(CheckJsonText(closed, "x", 1 << 20).ok());
}

TEST(CheckJsonTextTest, SizeOverTheLimitIsRefused) {
  absl::Status s = CheckJsonText(std::string(101, ' '), "watch event", 100);
  EXPECT_EQ(s.message(),
            "watch event: the JSON text is 101 bytes, over the limit of 100 bytes");
  EXPECT_TRUE(CheckJsonText(std::string(100, ' '), "watch event", 100).ok());
}

TEST(ParseJsonTest, ParsesValidJson) {
  absl::StatusOr<nlohmann::json> value = ParseJson(R"({"a": [1, "x"]})", "f.json", 1 << 20);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ((*value)["a"][1], "x");
}

TEST(ParseJsonTest, ErrorsNameWhatAndNeverThrow) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"a\": }", "f.json: invalid JSON: parse error at line 1, column 7"},
      {"", "f.json: invalid JSON: parse error"},
      {"\"\\ud800\"", "f.json: invalid JSON: parse error"},
      {Repeat("[", 100'000), "f.json: JSON nests deeper than 256 levels"},
      {Repeat("{\"a\":", 100'000), "f.json: JSON nests deeper than 256 levels"},
      {std::string(2 << 20, ' '), "f.json: the JSON text is 2097152 bytes, over the limit"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<nlohmann::json> value = ParseJson(c.text, "f.json", 1 << 20);
    ASSERT_FALSE(value.ok()) << c.text.substr(0, 40);
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(value.status().message()), HasSubstr(c.message));
  }
}

TEST(YamlNodeBudgetTest, GrowsWithTheInputFromAFloor) {
  EXPECT_EQ(YamlNodeBudget(0), kYamlNodeBudgetFloor);
  EXPECT_EQ(YamlNodeBudget(1000), kYamlNodeBudgetFloor + 1000 * kYamlNodesPerInputByte);
  EXPECT_GT(YamlNodeBudget(~size_t{0}), 0);  // no overflow
}

}  // namespace
}  // namespace input_limits_test
}  // namespace gpuprofile::limits
