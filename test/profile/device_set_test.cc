// File: test/profile/device_set_test.cc
#include "controller/profile/device_set.h"

#include <cstddef>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::profile {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<size_t> Members(const DeviceSet& set) {
  std::vector<size_t> out;
  set.ForEach([&](size_t d) { out.push_back(d); });
  return out;
}

// Members come back ascending across word boundaries, including the last, partial word.
TEST(DeviceSetTest, VisitsEveryMemberInOrder) {
  DeviceSet set(130);
  EXPECT_THAT(Members(set), IsEmpty());
  for (size_t d : {129, 0, 64, 63, 65, 1}) set.Insert(d);
  set.Insert(64);  // twice is once
  EXPECT_THAT(Members(set), ElementsAre(0, 1, 63, 64, 65, 129));
  EXPECT_TRUE(set[63]);
  EXPECT_FALSE(set[62]);
  EXPECT_EQ(set.size(), 130u);
}

TEST(DeviceSetTest, OfBitsHoldsTheTrueEntries) {
  std::vector<bool> bits(70, false);
  bits[3] = bits[69] = true;
  const DeviceSet set = DeviceSet::Of(bits);
  EXPECT_THAT(Members(set), ElementsAre(3, 69));
  EXPECT_EQ(set.size(), 70u);
  DeviceSet same(70);
  same.Insert(69);
  EXPECT_NE(set, same);
  same.Insert(3);
  EXPECT_EQ(set, same);
  EXPECT_THAT(Members(DeviceSet()), IsEmpty());
}

}  // namespace
}  // namespace gpuprofile::profile
