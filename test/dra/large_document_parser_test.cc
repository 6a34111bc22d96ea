// File: test/dra/large_document_parser_test.cc
// A parser readied for a document parses it without growing, and a large document's buffers
// carry the huge-page advice (read back from /proc/self/smaps) while a small one's do not.
#include "controller/dra/large_document_parser.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "simdjson.h"
#include "test/testing/huge_pages.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::dra {
namespace large_document_parser_test {
namespace {

using ::gpuprofile::testing::ThpEligible;
using ::gpuprofile::testing::ThpMode;

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
