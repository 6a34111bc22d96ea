// File: test/dra/large_document_parser_test.cc
// A parser readied for a document parses it without growing, and a large document's buffers
// carry the huge-page advice (read back from /proc/self/smaps) while a small one's do not.
#include "controller/dra/large_document_parser.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "simdjson.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::dra {
namespace large_document_parser_test {
namespace {

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
std::string ThpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('[');
  const size_t close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

// The "THPeligible:" value of the mapping holding `address` in /proc/self/smaps; nullopt when
// no mapping holds it or the kernel does not say.
std::optional<int> ThpEligible(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const std::string first = line.substr(0, line.find(' '));
    const std::vector<std::string> range = absl::StrSplit(first, '-');
    uint64_t begin = 0, end = 0;
    if (range.size() == 2 && absl::SimpleHexAtoi(range[0], &begin) &&
        absl::SimpleHexAtoi(range[1], &end)) {
      inside = begin <= a && a < end;
      continue;
    }
    int value = 0;
    if (inside && absl::StartsWith(line, "THPeligible:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(12)), &value)) {
      return value;
    }
  }
  return std::nullopt;
}

// A JSON array of `bytes` or a little more.
std::string ArrayOf(size_t bytes) {
  std::string text = "[";
  while (text.size() < bytes) text += "{\"name\": \"gpu\", \"index\": 7}, ";
  text += "0]";
  return text;
}

TEST(LargeDocumentParserTest, ParsesTheDocumentWithoutGrowing) {
  for (size_t bytes : {size_t{0}, size_t{100}, kHugePageDocumentBytes + 1000}) {
    const std::string text = ArrayOf(bytes);
    simdjson::dom::parser parser;
    ASSERT_OK(ReadyParserForDocument(text.size(), &parser));
    EXPECT_GE(parser.capacity(), text.size());
    const uint64_t* tape = parser.doc.tape.get();
    simdjson::padded_string padded(text);
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(padded.data(), padded.size(), /*realloc_if_needed=*/false).get(root),
              simdjson::SUCCESS);
    EXPECT_EQ(parser.doc.tape.get(), tape) << "the parse reallocated the tape";
    EXPECT_TRUE(root.is_array());
  }
}

TEST(LargeDocumentParserTest, OnlyLargeDocumentsBuffersAreAdvised) {
  if (ThpMode() != "madvise") {
    GTEST_SKIP() << "THP mode is '" << ThpMode() << "': eligibility does not show the advice";
  }
  simdjson::dom::parser large;
  ASSERT_OK(ReadyParserForDocument(kHugePageDocumentBytes, &large));
  for (const void* buffer :
       {static_cast<const void*>(large.doc.tape.get()),
        static_cast<const void*>(large.doc.string_buf.get()),
        static_cast<const void*>(large.implementation->structural_indexes.get())}) {
    EXPECT_EQ(ThpEligible(buffer), 1);
  }
}

// Under the threshold the tape is still an mmap of its own (1 MiB x 8 bytes), not advised. The
// check runs in a fresh process (the test binary started again for this test alone): in this
// one, earlier tests free advised parse buffers into the heap, where a small tape may land and
// read as advised.
TEST(LargeDocumentParserTest, SmallDocumentsBuffersAreNotAdvised) {
  if (ThpMode() != "madvise") {
    GTEST_SKIP() << "THP mode is '" << ThpMode() << "': eligibility does not show the advice";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        simdjson::dom::parser small;
        const bool ready = ReadyParserForDocument(kHugePageDocumentBytes / 8, &small).ok();
        std::_Exit(ready && ThpEligible(small.doc.tape.get()) == std::optional<int>(0) ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(LargeDocumentParserTest, AdviceOnMemoryNotMappedIsAnError) {
  EXPECT_OK(AdviseHugePages(nullptr, 0));
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* region = ::mmap(nullptr, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  EXPECT_OK(AdviseHugePages(static_cast<char*>(region) + 10, page));
  ASSERT_EQ(::munmap(region, 4 * page), 0);
  EXPECT_FALSE(AdviseHugePages(static_cast<char*>(region) + 10, page).ok());
}

}  // namespace
}  // namespace large_document_parser_test
}  // namespace gpuprofile::dra
