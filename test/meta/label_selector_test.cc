// File: test/meta/label_selector_test.cc
// LabelSelector::Matches (metav1 semantics) and its strict codec.
#include "controller/meta/label_selector.h"

#include <map>
#include <string>
#include <vector>

#include "controller/meta/label_selector_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::meta {
namespace label_selector_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using Op = LabelSelectorRequirement::Operator;
using Labels = std::map<std::string, std::string>;

struct MatchCase {
  std::string name;
  LabelSelector selector;
  Labels labels;
  bool matches;
};

LabelSelector Expr(std::vector<LabelSelectorRequirement> expressions, Labels match_labels = {}) {
  LabelSelector s;
  s.match_labels = std::move(match_labels);
  s.match_expressions = std::move(expressions);
  return s;
}

TEST(LabelSelectorTest, MatchesWithMetav1Semantics) {
  const Labels team_a = {{"team", "a"}, {"gpu-profiles", "enabled"}};
  const std::vector<MatchCase> cases = {
      {"empty selects all", {}, team_a, true},
      {"empty selects unlabelled", {}, {}, true},
      {"matchLabels equal", Expr({}, {{"team", "a"}}), team_a, true},
      {"matchLabels other value", Expr({}, {{"team", "b"}}), team_a, false},
      {"matchLabels missing key", Expr({}, {{"env", "prod"}}), team_a, false},
      {"matchLabels all must hold", Expr({}, {{"team", "a"}, {"env", "prod"}}), team_a, false},
      {"In hit", Expr({{"team", Op::kIn, {"b", "a"}}}), team_a, true},
      {"In miss", Expr({{"team", Op::kIn, {"b"}}}), team_a, false},
      {"In lacking key", Expr({{"env", Op::kIn, {"prod"}}}), team_a, false},
      {"NotIn hit", Expr({{"team", Op::kNotIn, {"a"}}}), team_a, false},
      {"NotIn miss", Expr({{"team", Op::kNotIn, {"b"}}}), team_a, true},
      {"NotIn selects lacking key", Expr({{"env", Op::kNotIn, {"prod"}}}), team_a, true},
      {"Exists", Expr({{"team", Op::kExists, {}}}), team_a, true},
      {"Exists lacking key", Expr({{"env", Op::kExists, {}}}), team_a, false},
      {"DoesNotExist", Expr({{"team", Op::kDoesNotExist, {}}}), team_a, false},
      {"DoesNotExist selects lacking key", Expr({{"env", Op::kDoesNotExist, {}}}), team_a, true},
      {"expressions are AND-ed (both hold)",
       Expr({{"team", Op::kIn, {"a"}}, {"gpu-profiles", Op::kExists, {}}}), team_a, true},
      {"expressions are AND-ed (one fails)",
       Expr({{"team", Op::kIn, {"a"}}, {"env", Op::kExists, {}}}), team_a, false},
      {"matchLabels AND expressions",
       Expr({{"team", Op::kIn, {"a"}}}, {{"gpu-profiles", "disabled"}}), team_a, false},
      {"value comparison is exact", Expr({}, {{"team", "A"}}), team_a, false},
  };
  for (const MatchCase& c : cases) {
    EXPECT_EQ(c.selector.Matches(c.labels), c.matches) << c.name;
  }
}

TEST(LabelSelectorTest, EmptyReportsEmptiness) {
  EXPECT_TRUE(LabelSelector{}.Empty());
  EXPECT_FALSE(Expr({}, {{"a", "b"}}).Empty());
}

TEST(LabelSelectorCodecTest, DecodesMatchLabelsAndExpressions) {
  ASSERT_OK_AND_ASSIGN(
      LabelSelector s,
      DecodeLabelSelector(json::parse(R"({"matchLabels": {"gpu-profiles": "enabled"},
          "matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["x", "y"]},
                               {"key": "example.com/tier", "operator": "Exists"}]})")));
  EXPECT_EQ(s.match_labels, (Labels{{"gpu-profiles", "enabled"}}));
  ASSERT_EQ(s.match_expressions.size(), 2u);
  EXPECT_EQ(s.match_expressions[0].key, "team");
  EXPECT_EQ(s.match_expressions[0].op, Op::kNotIn);
  EXPECT_THAT(s.match_expressions[0].values, ::testing::ElementsAre("x", "y"));
  EXPECT_EQ(s.match_expressions[1].op, Op::kExists);
  EXPECT_TRUE(s.match_expressions[1].values.empty());
}

TEST(LabelSelectorCodecTest, EmptyObjectIsTheEmptySelector) {
  ASSERT_OK_AND_ASSIGN(LabelSelector s, DecodeLabelSelector(json::object()));
  EXPECT_TRUE(s.Empty());
  EXPECT_EQ(EncodeLabelSelector(s).dump(), "{}");
}

TEST(LabelSelectorCodecTest, RejectsBadSelectors) {
  struct Case {
    std::string input;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {R"([])", "sel: must be an object, got array"},
      {R"({"matchLabel": {}})", "sel.matchLabel: unknown field"},
      {R"({"matchLabels": {"a": 1}})", "sel.matchLabels[a]: must be a string, got integer"},
      {R"({"matchLabels": {"-a": "x"}})", "sel.matchLabels[-a]: invalid value \"-a\": name part"},
      {R"({"matchLabels": {"a": "-x"}})",
       "sel.matchLabels[a]: invalid value \"-x\": a valid label"},
      {R"({"matchExpressions": {}})", "sel.matchExpressions: must be a list, got object"},
      {R"({"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]})",
       "sel.matchExpressions[0].operator: unsupported value \"Equals\": supported values: \"In\", "
       "\"NotIn\", \"Exists\", \"DoesNotExist\""},
      {R"({"matchExpressions": [{"key": "a", "values": ["x"]}]})",
       "sel.matchExpressions[0].operator: required"},
      {R"({"matchExpressions": [{"operator": "Exists"}]})",
       "sel.matchExpressions[0].key: required"},
      {R"({"matchExpressions": [{"key": "a", "operator": "In"}]})",
       "sel.matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'"},
      {R"({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]})",
       "sel.matchExpressions[0].values: must be specified"},
      {R"({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})",
       "sel.matchExpressions[0].values: may not be specified when `operator` is 'Exists' or "
       "'DoesNotExist'"},
      {R"({"matchExpressions": [{"key": "a", "operator": "In", "values": ["a b"]}]})",
       "sel.matchExpressions[0].values[0]: invalid value \"a b\""},
      {R"({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"], "value": "y"}]})",
       "sel.matchExpressions[0].value: unknown field"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<LabelSelector> s = DecodeLabelSelector(json::parse(c.input), "sel");
    ASSERT_FALSE(s.ok()) << c.input;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.expected)) << c.input;
  }
}

TEST(LabelSelectorCodecTest, EncodesInOrderAndRoundTrips) {
  LabelSelector s = Expr({{"team", Op::kIn, {"a", "b"}}, {"env", Op::kDoesNotExist, {}}},
                         {{"z", "1"}, {"a", "2"}});
  const std::string encoded = EncodeLabelSelector(s).dump();
  EXPECT_EQ(encoded,
            R"({"matchLabels":{"a":"2","z":"1"},"matchExpressions":[{"key":"team","operator":"In",)"
            R"("values":["a","b"]},{"key":"env","operator":"DoesNotExist"}]})");
  ASSERT_OK_AND_ASSIGN(LabelSelector again, DecodeLabelSelector(json::parse(encoded)));
  EXPECT_EQ(EncodeLabelSelector(again).dump(), encoded);
}

}  // namespace
}  // namespace label_selector_test
}  // namespace gpuprofile::meta
