// File: test/profile/recent_ids_test.cc
#include "controller/profile/recent_ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::profile {
namespace recent_ids_test {
namespace {

using ::testing::Eq;
using ::testing::Optional;

TEST(RecentIdsTest, FindsTheLastSixteenDistinctValuesAndForgetsOlderOnes) {
  RecentIds<std::string> recent;
  for (uint32_t i = 0; i < 20; ++i) recent.Add("v" + std::to_string(i), i);
  EXPECT_EQ(recent.Find("v0"), std::nullopt);
  EXPECT_EQ(recent.Find("v3"), std::nullopt);
  EXPECT_THAT(recent.Find("v4"), Optional(Eq(4u)));
  EXPECT_THAT(recent.Find("v19"), Optional(Eq(19u)));
  // A value found counts as the most recent: v4 outlives v5 when one more comes.
  recent.Add("v20", 20);
  EXPECT_THAT(recent.Find("v4"), Optional(Eq(4u)));
  EXPECT_EQ(recent.Find("v5"), std::nullopt);
  recent.Clear();
  EXPECT_EQ(recent.Find("v20"), std::nullopt);
}

TEST(StorageTokenIdsTest, TokensCountOnlyWithinTheStorageTheyWereReadIn) {
  int first = 0, second = 0;  // two storages, by address
  StorageTokenIds ids;
  const std::vector<uint64_t> tokens = {1, 2, 3};
  EXPECT_EQ(ids.Find(&first, tokens), std::nullopt);
  ids.Add(tokens, 7);
  EXPECT_THAT(ids.Find(&first, tokens), Optional(Eq(7u)));
  EXPECT_EQ(ids.Find(&first, {1, 2, 4}), std::nullopt);
  // The same tokens in another storage name other entries.
  EXPECT_EQ(ids.Find(&second, tokens), std::nullopt);
  ids.Add(tokens, 9);
  EXPECT_THAT(ids.Find(&second, tokens), Optional(Eq(9u)));
  // Back to the first storage: it starts afresh.
  EXPECT_EQ(ids.Find(&first, tokens), std::nullopt);
}

}  // namespace
}  // namespace recent_ids_test
}  // namespace gpuprofile::profile
