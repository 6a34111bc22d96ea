// File: controller/dra/large_document_parser.h
// Readies a simdjson DOM parser for one large document, its buffers on huge pages.
//
// Why: the parser's buffers (structural indexes, tape, string buffer) are fresh memory, and a
// 74 MB `kubectl get resourceslices -o json` touches about 60 MB of it: 15,000 of `render`'s
// 25,300 page faults of 4 KiB. Advised with MADV_HUGEPAGE, the kernel maps them 2 MiB at a time
// where it has huge pages to give (Debian's default THP mode, "madvise", honours the advice;
// "never" ignores it and nothing changes): 10,000 faults and 12% less CPU for that render
// (docs/performance.md).
//
// Only the command-line readers parse whole files this way; the operator decodes one object at
// a time and never calls this.
// Thread-compatible (one parser per caller).
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "simdjson.h"

namespace gpuprofile::dra {

// Documents from this size on get their buffers advised; below it the faults cost little and a
// huge page's rounding would be a larger share of the memory.
inline constexpr size_t kHugePageDocumentBytes = size_t{8} << 20;

// Allocates `parser` for a document of `bytes` and, when `bytes` >= kHugePageDocumentBytes,
// advises its buffers for huge pages. Errors: ResourceExhausted when the parser cannot allocate
// (the caller's parse would fail the same way); the advice itself is best effort and its
// failure (a kernel without THP) is not an error.
absl::Status ReadyParserForDocument(size_t bytes, simdjson::dom::parser* parser);

// madvise(MADV_HUGEPAGE) over the pages that hold [start, start + bytes); the range must be
// memory this process allocated. Returns the call's errno as a status (for tests: the advice's
// users ignore it).
absl::Status AdviseHugePages(const void* start, size_t bytes);

}  // namespace gpuprofile::dra
