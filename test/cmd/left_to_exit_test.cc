// File: test/cmd/left_to_exit_test.cc
// LeaveToExit: a no-op unless allowed; once allowed, it takes the values and never destroys
// them.
#include "controller/cmd/left_to_exit.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace gpuprofile::cmd {
namespace left_to_exit_test {
namespace {

// Counts its destructions (of objects that own a value, not moved-from shells).
struct Counted {
  explicit Counted(int* destroyed) : destroyed(destroyed) {}
  Counted(Counted&& other) noexcept : destroyed(other.destroyed) { other.destroyed = nullptr; }
  ~Counted() {
    if (destroyed != nullptr) ++*destroyed;
  }
  int* destroyed;
};

TEST(LeftToExitTest, NotAllowedTheCallerKeepsAndDestroysItsValues) {
  ASSERT_FALSE(LeavingToExitAllowed());
  int destroyed = 0;
  {
    Counted counted(&destroyed);
    std::vector<std::string> texts = {"a", "b"};
    LeaveToExit(counted, texts);
    EXPECT_EQ(texts.size(), 2u);
    EXPECT_NE(counted.destroyed, nullptr);
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(LeftToExitTest, AllowedTheValuesAreTakenAndNeverDestroyed) {
  int destroyed = 0;
  std::weak_ptr<int> watch;
  {
    Counted counted(&destroyed);
    std::vector<std::string> texts = {"a", "b"};
    auto shared = std::make_shared<int>(7);
    watch = shared;
    AllowLeavingToExit();
    LeaveToExit(counted, texts, shared);
    AllowLeavingToExit(false);
    EXPECT_TRUE(texts.empty());
    EXPECT_EQ(counted.destroyed, nullptr);
    EXPECT_EQ(shared, nullptr);
  }
  EXPECT_EQ(destroyed, 0);
  EXPECT_FALSE(watch.expired()) << "the kept value was destroyed";
  EXPECT_FALSE(LeavingToExitAllowed());
}

}  // namespace
}  // namespace left_to_exit_test
}  // namespace gpuprofile::cmd
