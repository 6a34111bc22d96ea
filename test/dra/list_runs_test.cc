// File: test/dra/list_runs_test.cc
// CutListIntoRuns: where it cuts a kubectl-style list, that the envelope and the bracketed runs
// give back the list's items in order, and the layouts it declines (the text is then parsed
// whole).
#include "controller/dra/list_runs.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {
namespace list_runs_test {
namespace {

using json = nlohmann::ordered_json;

json Item(int i) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", absl::StrCat("slice-", i)}, {"labels", {{"a", "b"}}}}},
          {"spec", {{"devices", json::array({{{"name", "gpu-0"}}, {{"name", "gpu-1"}}})}}}};
}

json List(int items) {
  json list = {{"apiVersion", "resource.k8s.io/v1"},
               {"kind", "ResourceSliceList"},
               {"metadata", {{"resourceVersion", "7"}}},
               {"items", json::array()}};
  for (int i = 0; i < items; ++i) list["items"].push_back(Item(i));
  return list;
}

// The items the runs hold, each run parsed as "[" + run + "]".
std::vector<json> ItemsOfRuns(const std::string& text, const ListRuns& cut) {
  std::vector<json> items;
  for (const ListRuns::Run& run : cut.runs) {
    const json parsed =
        json::parse(absl::StrCat("[", text.substr(run.begin, run.end - run.begin), "]"));
    for (const json& item : parsed) items.push_back(item);
  }
  return items;
}

TEST(ListRunsTest, CutsAnIndentedListBetweenItems) {
  const json list = List(40);
  for (int indent : {2, 4}) {
    const std::string text = list.dump(indent);
    std::optional<ListRuns> cut = CutListIntoRuns(text, 500);
    ASSERT_TRUE(cut.has_value()) << "indent " << indent;
    EXPECT_GT(cut->runs.size(), 5u);
    json envelope = list;
    envelope["items"] = json::array();
    EXPECT_EQ(json::parse(cut->layout.envelope), envelope);
    EXPECT_EQ(ItemsOfRuns(text, *cut), list["items"].get<std::vector<json>>());
    size_t longest = 0;
    for (size_t i = 0; i < cut->runs.size(); ++i) {
      const ListRuns::Run& run = cut->runs[i];
      longest = std::max(longest, run.end - run.begin);
      EXPECT_EQ(text[text.find_first_not_of(" \n", run.begin)], '{');
      if (i + 1 < cut->runs.size()) {
        EXPECT_EQ(text[run.end], ',');
        EXPECT_GE(run.end - run.begin, 500u);
      }
    }
    EXPECT_EQ(cut->longest_run, longest);
  }
}

// kubectl prints a List's members in key order: apiVersion, items, kind, metadata.
TEST(ListRunsTest, CutsAListWhoseItemsComeBeforeOtherMembers) {
  const json list = List(30);
  json kubectl = {{"apiVersion", "v1"},
                  {"items", list["items"]},
                  {"kind", "List"},
                  {"metadata", {{"resourceVersion", ""}, {"note", "]\n    ]"}}}};
  const std::string text = kubectl.dump(4);
  std::optional<ListRuns> cut = CutListIntoRuns(text, 300);
  ASSERT_TRUE(cut.has_value());
  EXPECT_GT(cut->runs.size(), 5u);
  json envelope = kubectl;
  envelope["items"] = json::array();
  EXPECT_EQ(json::parse(cut->layout.envelope), envelope);
  EXPECT_EQ(ItemsOfRuns(text, *cut), list["items"].get<std::vector<json>>());
}

TEST(ListRunsTest, AnItemLongerThanARunIsARunOfItsOwn) {
  const std::string text = List(6).dump(4);
  std::optional<ListRuns> cut = CutListIntoRuns(text, 1);
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->runs.size(), 6u);
  EXPECT_EQ(ItemsOfRuns(text, *cut).size(), 6u);
}

TEST(ListRunsTest, CarriageReturnsAndTabsAreIndentationToo) {
  std::string text = List(12).dump(1, '\t');
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  std::optional<ListRuns> cut = CutListIntoRuns(crlf, 100);
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(ItemsOfRuns(crlf, *cut).size(), 12u);
}

TEST(ListRunsTest, DeclinesLayoutsItCannotCut) {
  const json list = List(20);
  json nested_items = {{"metadata", {{"items", list["items"]}}}, {"kind", "List"}};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"compact", list.dump()},
      {"each item on one line",
       absl::StrCat("{\n  \"items\": [\n    {\"a\": 1},\n    {\"a\": 2},\n    {\"a\": 3}\n  ],\n"
                    "  \"kind\": \"List\"\n}")},
      {"closing bracket not on a line of its own",
       absl::StrCat("{\n  \"items\": [\n    {\n      \"a\": 1\n    },\n    {\n      \"a\": 2\n"
                    "    }],\n  \"kind\": \"List\"\n}")},
      {"items only nested", nested_items.dump(4)},
      {"no items", json{{"kind", "List"}}.dump(4)},
      {"empty items", List(0).dump(4)},
      {"one run", List(20).dump(4)},  // at the run size below, the whole list is one run
      {"an array at the root", list["items"].dump(4)},
      {"escaped key",
       absl::StrCat("{\n  \"kind\": \"List\",\n  \"it\\u0065ms\": [\n    {\n      \"a\": 1\n    },"
                    "\n    {\n      \"a\": 2\n    }\n  ]\n}")},
  };
  for (const auto& [name, text] : cases) {
    const size_t run_bytes = name == "one run" ? text.size() : 10;
    EXPECT_FALSE(CutListIntoRuns(text, run_bytes).has_value()) << name;
  }
}

// A string or a nested object that looks like the key, before the real one, is lexed as what it
// is.
TEST(ListRunsTest, FindsTheRootsItemsPastLookalikes) {
  const std::string text = absl::StrCat(
      "{\n  \"note\": \"\\\"items\\\": [ {\",\n  \"metadata\": {\"items\": [1, {\"b\": \"]\"}]},\n"
      "  \"items\": [\n    {\n      \"a\": 1\n    },\n    {\n      \"a\": \"\\\\\"\n    },\n"
      "    {\n      \"a\": 3\n    }\n  ]\n}\n");
  ASSERT_TRUE(json::accept(text)) << text;
  std::optional<ListRuns> cut = CutListIntoRuns(text, 1);
  ASSERT_TRUE(cut.has_value());
  json envelope = json::parse(text);
  const std::vector<json> items = envelope["items"].get<std::vector<json>>();
  envelope["items"] = json::array();
  EXPECT_EQ(json::parse(cut->layout.envelope), envelope);
  EXPECT_EQ(ItemsOfRuns(text, *cut), items);
}

// Where the item-closing line also closes an object inside an item, a cut can land inside the
// item: that run (and so the cut) does not parse, which is what sends the text to a whole parse.
TEST(ListRunsTest, ACutInsideAnItemGivesARunThatDoesNotParse) {
  std::string text = "{\n    \"kind\": \"List\",\n    \"items\": [\n";
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&text, "        {\"name\": \"s", i,
                    "\", \"labels\": {\"a\": \"b\"\n        }, ", "\"x\": 1}", i < 3 ? "," : "",
                    "\n");
  }
  text += "    ]\n}\n";
  ASSERT_TRUE(json::accept(text)) << text;
  std::optional<ListRuns> cut = CutListIntoRuns(text, 1);
  ASSERT_TRUE(cut.has_value());
  bool every_run_parses = true;
  for (const ListRuns::Run& run : cut->runs) {
    every_run_parses &=
        json::accept(absl::StrCat("[", text.substr(run.begin, run.end - run.begin), "]"));
  }
  EXPECT_FALSE(every_run_parses);
}

}  // namespace
}  // namespace list_runs_test
}  // namespace gpuprofile::dra
