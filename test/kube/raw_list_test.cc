// File: test/kube/raw_list_test.cc
// List pages read as text: the list's fields, each item's span and whether it names its
// apiVersion and kind, the type meta put in front of items that lack it, and malformed pages as
// DataLoss errors that name the request.
#include "controller/kube/raw_list.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace raw_list_test {
namespace {

TEST(RawListPageTest, ReadsTheListsFieldsAndEachItemsText) {
  const std::string body = R"({"kind":"ResourceSliceList","apiVersion":"resource.k8s.io/v1",
    "metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":7},
    "items":[ {"metadata":{"name":"a"},"spec":{"devices":[{"name":"g0"}]}} ,
              {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"b"}},
              17, {} ]})";
  ASSERT_OK_AND_ASSIGN(RawListPage page, ParseRawListPage(body, "GET /x"));
  EXPECT_EQ(page.kind, "ResourceSliceList");
  EXPECT_EQ(page.api_version, "resource.k8s.io/v1");
  EXPECT_EQ(page.resource_version, "42");
  EXPECT_EQ(page.continue_token, "tok");
  EXPECT_EQ(page.remaining_item_count, 7);
  ASSERT_EQ(page.items.size(), 3u);  // 17 is not an object
  EXPECT_EQ(page.items[0].text, R"({"metadata":{"name":"a"},"spec":{"devices":[{"name":"g0"}]}})");
  EXPECT_FALSE(page.items[0].has_api_version);
  EXPECT_FALSE(page.items[0].has_kind);
  EXPECT_TRUE(page.items[1].has_api_version && page.items[1].has_kind);
  EXPECT_EQ(page.items[2].text, "{}");

  nlohmann::json first = nlohmann::json::parse(page.WithTypeMeta(page.items[0]));
  EXPECT_EQ(first["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(first["kind"], "ResourceSlice");
  EXPECT_EQ(first["metadata"]["name"], "a");
  EXPECT_EQ(page.WithTypeMeta(page.items[1]), std::string(page.items[1].text));
  nlohmann::json empty = nlohmann::json::parse(page.WithTypeMeta(page.items[2]));
  EXPECT_EQ(empty, (nlohmann::json{{"apiVersion", "resource.k8s.io/v1"},
                                   {"kind", "ResourceSlice"}}));
}

TEST(RawListPageTest, ALastPageAndAnEmptyList) {
  ASSERT_OK_AND_ASSIGN(RawListPage page,
                       ParseRawListPage(R"({"kind":"List","metadata":{},"items":[]})", "GET /x"));
  EXPECT_TRUE(page.continue_token.empty());
  EXPECT_TRUE(page.items.empty());
  EXPECT_FALSE(page.remaining_item_count.has_value());
}

// The page's structure is read, not every value inside an item: an item's own text is its
// decoder's to check (the reflector counts one that is not JSON as undecodable).
TEST(RawListPageTest, AnItemsValuesAreLeftToItsDecoder) {
  ASSERT_OK_AND_ASSIGN(RawListPage page, ParseRawListPage(R"({"items":[{"a":tru}]})", "GET /x"));
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].text, R"({"a":tru})");
}

TEST(RawListPageTest, MalformedPagesAreDataLossNamingTheRequest) {
  for (const char* body : {"", "[]", "not json", R"({"items":[{"a":1},)", R"({"items":[]} x)"}) {
    absl::StatusOr<RawListPage> page = ParseRawListPage(body, "GET /apis/x");
    ASSERT_FALSE(page.ok()) << body;
    EXPECT_EQ(page.status().code(), absl::StatusCode::kDataLoss) << body;
    EXPECT_EQ(page.status().message().rfind("GET /apis/x", 0), 0u) << page.status();
  }
  std::string deep(300, '[');
  absl::StatusOr<RawListPage> nested =
      ParseRawListPage(R"({"items":[{"a":)" + deep + "}]}", "GET /apis/x");
  EXPECT_EQ(nested.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace raw_list_test
}  // namespace gpuprofile::kube
