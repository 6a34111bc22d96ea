// File: controller/dra/large_document_parser.cc
#include "controller/dra/large_document_parser.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "simdjson.h"

namespace gpuprofile::dra {

absl::Status AdviseHugePages(const void* start, size_t bytes) {
  if (start == nullptr || bytes == 0) return absl::OkStatus();
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(start) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(start) + bytes;
  if (::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) {
    return absl::ErrnoToStatus(errno, "madvise(MADV_HUGEPAGE)");
  }
  return absl::OkStatus();
}

absl::Status ReadyParserForDocument(size_t bytes, simdjson::dom::parser* parser) {
  // parser::allocate sizes the structural indexes only; the document's tape and string buffer
  // are sized by the parse unless allocated here first. The parse gives no document less room
  // than the minimum.
  const size_t capacity = std::max(bytes, simdjson::dom::MINIMAL_DOCUMENT_CAPACITY);
  if (parser->allocate(capacity) != simdjson::SUCCESS ||
      parser->doc.allocate(capacity) != simdjson::SUCCESS) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate a JSON parser for ", bytes, " bytes"));
  }
  if (bytes < kHugePageDocumentBytes) return absl::OkStatus();
  // The sizes are the least simdjson 3 allocates for `bytes` (document::allocate,
  // dom_parser_implementation::set_capacity); its buffers are at least this long, so the
  // advice stays within them.
  AdviseHugePages(parser->implementation->structural_indexes.get(), bytes * sizeof(uint32_t))
      .IgnoreError();
  AdviseHugePages(parser->doc.tape.get(), bytes * sizeof(uint64_t)).IgnoreError();
  AdviseHugePages(parser->doc.string_buf.get(), 5 * bytes / 3).IgnoreError();
  return absl::OkStatus();
}

}  // namespace gpuprofile::dra
