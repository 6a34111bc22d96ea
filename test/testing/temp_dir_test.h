// File: test/testing/temp_dir_test.h
// A fixture for tests that read files: each test gets a fresh directory of its own under
// gtest's TempDir (named after the suite and the test), removed when the test ends, and Write()
// to put a file in it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gpuprofile::testing {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = std::filesystem::path(::testing::TempDir()) /
            absl::StrCat(test->test_suite_name(), "_", test->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // Writes `text`, byte for byte, to `relative` under the directory (making the directories on
  // the way); returns the file's path.
  std::string Write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  std::filesystem::path root_;
};

}  // namespace gpuprofile::testing
