// File: test/dra/mapped_file_test.cc
#include "controller/dra/mapped_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir_test.h"

namespace gpuprofile::dra {
namespace mapped_file_test {
namespace {

using ::testing::HasSubstr;

class MappedFileTest : public testing::TempDirTest {};

// The padding is readable and zero whether the file ends mid-page or exactly on a page's end
// (where the padding is a page of its own).
TEST_F(MappedFileTest, TextIsTheFileFollowedByZeroPadding) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  for (size_t size : {size_t{1}, size_t{100}, page - 10, page, 3 * page, 3 * page + 1}) {
    std::string content(size, 'x');
    for (size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i % 26);
    const std::string path = Write(absl::StrCat("f", size), content);
    ASSERT_OK_AND_ASSIGN(MappedFile file, MappedFile::Open(path, 64, 1 << 30));
    EXPECT_EQ(file.text(), content) << size;
    const char* end = file.text().data() + file.text().size();
    for (size_t i = 0; i < 64; ++i) ASSERT_EQ(end[i], '\0') << size << " +" << i;
  }
}

TEST_F(MappedFileTest, ReleaseAndMoveLeaveOneOwner) {
  const std::string path = Write("f", "{\"kind\": \"List\"}");
  ASSERT_OK_AND_ASSIGN(MappedFile file, MappedFile::Open(path, 64, 1 << 20));
  MappedFile moved = std::move(file);
  EXPECT_TRUE(file.text().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(moved.text(), "{\"kind\": \"List\"}");
  MappedFile assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.text(), "{\"kind\": \"List\"}");
  assigned.Release();
  EXPECT_TRUE(assigned.text().empty());
  assigned.Release();  // twice is harmless
}

// Errors are ReadManifestFile's where it has one; what it would read but cannot be mapped is
// FailedPrecondition, for the caller to read instead.
TEST_F(MappedFileTest, ErrorsNameThePath) {
  const std::string missing = (root_ / "missing.json").string();
  absl::StatusOr<MappedFile> file = MappedFile::Open(missing, 64, 1 << 20);
  EXPECT_EQ(file.status(), ReadManifestFile(missing).status());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);

  const std::string big = Write("big.json", std::string(2000, ' '));
  file = MappedFile::Open(big, 64, 1000);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(), HasSubstr(big + ": the file is "));

  file = MappedFile::Open(Write("empty.json", ""), 64, 1 << 20);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  file = MappedFile::Open(root_.string(), 64, 1 << 20);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(file.status().message(), HasSubstr(root_.string()));
}

}  // namespace
}  // namespace mapped_file_test
}  // namespace gpuprofile::dra
