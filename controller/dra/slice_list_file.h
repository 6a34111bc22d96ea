// File: controller/dra/slice_list_file.h
// Decodes a large file of ResourceSlices printed as kubectl prints a list (list_runs.h) by
// reading it a run of items at a time into one buffer, instead of mapping it whole.
//
// Why: mapping a 74 MB file (mapped_file.h) makes the kernel set up, and later tear down, a
// page table entry for each of its 18,000 pages, which cost render more than the copy a read
// makes (docs/performance.md). With runs, a read of each run into a reused buffer is the only
// copy.
//
// Only the command-line readers (manifest_loader.h) call this. The one difference from mapping
// that a caller may see: a file that another process rewrites while it is read gives a
// mixture of its two contents, which then either fails to parse (not handled: the caller reads
// it again the usual way) or parses as any file could.
// Thread-compatible.
#pragma once

#include <string>

#include "controller/dra/attribute_demand.h"
#include "controller/dra/slice_fast_decoder.h"

namespace gpuprofile::dra {

// Handled (as FastDecodeSliceJson would handle the file's text) when `path` is a regular file
// of at least kListRunsFromBytes laid out as list_runs.h describes, every run parses and every
// item decodes on the fast path. Not handled otherwise, with nothing said: the caller reads the
// file the usual way, which reports what is wrong (an unreadable file included).
FastDecodeResult FastDecodeSliceListFile(const std::string& path,
                                         const AttributeDemand& demand = {});

}  // namespace gpuprofile::dra
