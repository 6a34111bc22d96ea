// The real host adapters' bounds: a file or a child's output without end must not exhaust
// memory before the callers' size checks run.
#include "controller/kube/host.h"

#include "controller/core/input_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::kube {
namespace host_test {
namespace {

using ::testing::HasSubstr;

TEST(RealFileSystemTest, AFileWithoutEndIsRefusedNamingIt) {
  absl::StatusOr<std::string> read = RealFileSystem()->ReadFile("/dev/zero");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(read.status())) << read.status();
  EXPECT_THAT(read.status().message(), HasSubstr("/dev/zero: larger than 16 MiB"));
}

TEST(RealProcessRunnerTest, OutputPastTheExecLimitIsDroppedButStillTooLong) {
  // 4 MiB of output: more than the 1 MiB an exec credential plugin may print.
  absl::StatusOr<ProcessResult> result =
      RealProcessRunner()->Run({"head", "-c", "4194304", "/dev/zero"}, {}, absl::Seconds(30));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->stdout_text.size(), limits::kMaxExecCredentialBytes + 1);
}

}  // namespace
}  // namespace host_test
}  // namespace gpuprofile::kube
