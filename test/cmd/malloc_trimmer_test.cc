// File: test/cmd/malloc_trimmer_test.cc
#include "controller/cmd/malloc_trimmer.h"

#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cmd {
namespace malloc_trimmer_test {
namespace {

int64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

#if defined(__GLIBC__)
TEST(MallocTrimmerTest, TrimNowReturnsFreedPagesInsideTheHeap) {
  // 64 MiB in 1 KiB blocks, then every block freed but the last: the free space sits below a
  // live block, where glibc's own top-of-heap trimming cannot reach it.
  constexpr int kBlocks = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks;
  blocks.reserve(kBlocks);
  for (int i = 0; i < kBlocks; ++i) {
    blocks.emplace_back(new char[1024]);
    for (int j = 0; j < 1024; j += 512) blocks.back()[j] = static_cast<char>(i);
  }
  std::unique_ptr<char[]> last(new char[1024]);
  last[0] = 1;
  blocks.clear();
  blocks.shrink_to_fit();
  const int64_t before = RssBytes();
  MallocTrimmer::TrimNow();
  const int64_t after = RssBytes();
  EXPECT_LT(after, before - 32 * 1024 * 1024) << "before " << before << " after " << after;
}

// With glibc's dynamic threshold, freeing the 4 MiB block would raise the threshold to 4 MiB,
// and the 1 MiB block would then come from the heap and stay resident once freed.
TEST(MallocTrimmerTest, AFixedMmapThresholdGivesLargeBlocksBackWhenFreed) {
  MallocTrimmer::SetMmapThreshold(128 * 1024);
  constexpr size_t kLarge = 4 << 20, kBlock = 1 << 20;
  std::unique_ptr<char[]> large(new char[kLarge]);
  for (size_t i = 0; i < kLarge; i += 4096) large[i] = 1;
  large.reset();
  std::unique_ptr<char[]> block(new char[kBlock]);
  for (size_t i = 0; i < kBlock; i += 4096) block[i] = 1;
  const int64_t before = RssBytes();
  block.reset();
  const int64_t after = RssBytes();
  EXPECT_LT(after, before - 900 * 1024) << "before " << before << " after " << after;
}
#endif

TEST(MallocTrimmerTest, StopsPromptlyAndZeroDisables) {
  const absl::Time start = absl::Now();
  { MallocTrimmer trimmer(absl::Hours(1)); }
  { MallocTrimmer disabled(absl::ZeroDuration()); }
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace malloc_trimmer_test
}  // namespace gpuprofile::cmd
