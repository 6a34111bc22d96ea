#include "controller/reconciler/create_expectations.h"

#include <set>
#include <string>

#include "absl/time/time.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace create_expectations_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

bool NothingCached(const std::string&) { return false; }

TEST(CreateExpectationsTest, CreatedTemplatesAreAwaitedPerOwnerUntilObserved) {
  runtime::FakeClock clock;
  CreateExpectations created(&clock);
  created.Expect("p", "ns-a/t");
  created.Expect("p", "ns-b/t");
  created.Expect("q", "ns-a/u");
  EXPECT_THAT(created.Awaited("p", NothingCached), ElementsAre("ns-a/t", "ns-b/t"));
  EXPECT_THAT(created.Awaited("q", NothingCached), ElementsAre("ns-a/u"));
  EXPECT_THAT(created.Awaited("nobody", NothingCached), IsEmpty());

  created.Observed("ns-a/t");
  created.Observed("ns-z/unknown");  // not awaited: no effect
  EXPECT_THAT(created.Awaited("p", NothingCached), ElementsAre("ns-b/t"));
  EXPECT_EQ(created.size(), 2u);
}

// The event may be handled before the create's caller records the expectation: then the cache
// already holds the object, and the expectation ends on the next read.
TEST(CreateExpectationsTest, WhatTheCacheHoldsIsNoLongerAwaited) {
  runtime::FakeClock clock;
  CreateExpectations created(&clock);
  created.Expect("p", "ns-a/t");
  created.Expect("p", "ns-b/t");
  EXPECT_THAT(created.Awaited("p", [](const std::string& key) { return key == "ns-a/t"; }),
              ElementsAre("ns-b/t"));
  EXPECT_THAT(created.Awaited("p", NothingCached), ElementsAre("ns-b/t"));
  EXPECT_EQ(created.size(), 1u);
}

// A lost event must not stop a repair for long: the expectation ends at its deadline.
TEST(CreateExpectationsTest, ExpectationsEndAfterTheirTtl) {
  runtime::FakeClock clock;
  CreateExpectations created(&clock, absl::Seconds(30));
  created.Expect("p", "ns-a/t");
  clock.Advance(absl::Seconds(29));
  EXPECT_THAT(created.Awaited("p", NothingCached), ElementsAre("ns-a/t"));
  clock.Advance(absl::Seconds(1));
  EXPECT_THAT(created.Awaited("p", NothingCached), IsEmpty());
  EXPECT_EQ(created.size(), 0u);
}

TEST(CreateExpectationsTest, ACreateAgainRestartsTheWaitAndMovesTheKeyToItsCreator) {
  runtime::FakeClock clock;
  CreateExpectations created(&clock, absl::Seconds(30));
  created.Expect("p", "ns-a/t");
  clock.Advance(absl::Seconds(20));
  created.Expect("q", "ns-a/t");
  clock.Advance(absl::Seconds(20));
  EXPECT_THAT(created.Awaited("p", NothingCached), IsEmpty());
  EXPECT_THAT(created.Awaited("q", NothingCached), ElementsAre("ns-a/t"));
}

TEST(CreateExpectationsTest, ForgetEndsTheOwnersExpectationsOnly) {
  runtime::FakeClock clock;
  CreateExpectations created(&clock);
  created.Expect("p", "ns-a/t");
  created.Expect("q", "ns-a/u");
  created.Forget("p");
  created.Forget("never-seen");
  EXPECT_THAT(created.Awaited("p", NothingCached), IsEmpty());
  EXPECT_THAT(created.Awaited("q", NothingCached), ElementsAre("ns-a/u"));
}

}  // namespace
}  // namespace create_expectations_test
}  // namespace gpuprofile::reconciler
