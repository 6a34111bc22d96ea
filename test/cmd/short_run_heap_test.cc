// File: test/cmd/short_run_heap_test.cc
// After SetUpHeapForShortRun, a large block comes from the heap and lies in memory advised for
// huge pages; without it, glibc maps such a block on its own, not advised. Each case runs in a
// fresh process (the test binary started again for it alone), since the setup is for the
// whole process.
#include "controller/cmd/short_run_heap.h"

#include <cstdlib>
#include <optional>

#include "gtest/gtest.h"
#include "test/testing/huge_pages.h"

namespace gpuprofile::cmd {
namespace short_run_heap_test {
namespace {

using ::gpuprofile::testing::ThpEligible;
using ::gpuprofile::testing::ThpMode;

// Whether a fresh 8 MiB block is in THP-eligible memory, after the setup or not.
bool LargeBlockIsEligible(bool set_up) {
  if (set_up) SetUpHeapForShortRun();
  void* block = std::malloc(size_t{8} << 20);
  const bool eligible = ThpEligible(block) == std::optional<int>(1);
  std::free(block);
  return eligible;
}

TEST(ShortRunHeapTest, LargeBlocksComeFromTheAdvisedHeap) {
  if (ThpMode() != "madvise") {
    GTEST_SKIP() << "THP mode is '" << ThpMode() << "': eligibility does not show the advice";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(LargeBlockIsEligible(/*set_up=*/true) ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::_Exit(LargeBlockIsEligible(/*set_up=*/false) ? 0 : 1),
              ::testing::ExitedWithCode(1), "");
}

}  // namespace
}  // namespace short_run_heap_test
}  // namespace gpuprofile::cmd
