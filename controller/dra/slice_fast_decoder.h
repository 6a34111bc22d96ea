// File: controller/dra/slice_fast_decoder.h
// Fast paths for ResourceSlice JSON, parsed with simdjson and decoded straight into ResourceSlice
// values without an nlohmann::json document:
//  - FastDecodeSliceJson: whole files (`kubectl get resourceslices -o json`, an API server's
//    ResourceSliceList, or one slice);
//  - SliceJsonDecoder / DecodeSliceFast: one object at a time (a watch event's object), with the
//    strict decoder's exact result.
//
// FastDecodeSliceJson is all-or-nothing per file, and it never words an error: it either returns
// exactly the slices that ParseManifests + DecodeSlice would produce for the file, or says "not
// handled", and the caller reads the file the strict way (which then reports every problem with its
// path). "Not handled" covers: invalid JSON; JSON that simdjson rejects although nlohmann accepts
// it (integers beyond 64 bits, a byte-order mark); a document that is not one object; a list that
// holds anything but ResourceSlices, or lists; a slice DecodeSlice would reject; and inputs
// where the two parsers could disagree (a member this decoder reads appearing twice in one
// object, numbers where a string is expected, floating-point numbers where an integer or a
// quantity is read).
//
// Memory: a large list laid out as kubectl prints it is parsed a run of items at a time
// (list_runs.h), by one parser whose few megabytes of buffers are reused; its text is released
// once every item is decoded. Any other file's text is released as soon as simdjson has parsed
// it whole (when the file looks like ResourceSlices), so that the text, the parsed document and
// the decoded devices are never all alive at once; a large file's parse buffers are then advised
// for huge pages (large_document_parser.h).
// Pure (no I/O). FastDecodeSliceJson and DecodeSliceFast are thread-safe; a SliceJsonDecoder is
// thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/dra/attribute_demand.h"
#include "controller/dra/resource_slice.h"

namespace gpuprofile::dra {

// Bytes simdjson may read past the end of the text. A caller that reserves this much spare
// capacity in its std::string spares the decoder a copy of the text.
inline constexpr size_t kFastDecoderPadding = 64;

struct FastDecodedSlice {
  ResourceSlice slice;
  // 0-based index in the file's list (`items`), or -1 when the file is one ResourceSlice; as
  // ManifestObject::item_index.
  int item_index = -1;
};

struct FastDecodeResult {
  // True when `slices` is the whole content of the file (possibly none: an empty list).
  bool handled = false;
  std::vector<FastDecodedSlice> slices;  // in file order; empty unless handled
  // True when the decoder released the caller's text (it does so once the file is parsed and
  // looks like ResourceSlices). A caller that falls back then has to read the file again.
  bool text_released = false;
  // How many runs of items the list was parsed in (list_runs.h); 0 when it was parsed whole.
  int runs = 0;
};

// Decodes one ResourceSlice object from its JSON text (e.g. the object of a watch event) straight
// into a ResourceSlice, with simdjson and without an nlohmann::json document. The result is
// exactly DecodeSlice(nlohmann::json::parse(json)), errors included: whatever the fast path would
// not decode identically (see above) is handed to the strict path. Errors:
//  - DataLoss when the text is not JSON, or when the strict path gets text over
//    limits::kMaxApiObjectBytes or nested deeper than limits::kMaxNestingDepth (simdjson, on the
//    fast path, stops at 1,024 levels by itself);
//  - DecodeSlice's InvalidArgument (every problem, with field paths) otherwise.
// Thread-compatible: one decoder per thread. It keeps its parser's buffers and the versions and
// quantities it parsed (bounded) between calls, which is what makes per-event decoding cheap.
class SliceJsonDecoder {
 public:
  SliceJsonDecoder();
  ~SliceJsonDecoder();
  SliceJsonDecoder(SliceJsonDecoder&&) noexcept;
  SliceJsonDecoder& operator=(SliceJsonDecoder&&) noexcept;

  absl::StatusOr<ResourceSlice> Decode(absl::string_view json);
  // How many Decode calls took the strict path.
  int64_t fallbacks() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// SliceJsonDecoder::Decode with a decoder of the calling thread's own. Thread-safe.
absl::StatusOr<ResourceSlice> DecodeSliceFast(absl::string_view json);

// Decodes a whole JSON file. `*text` is the file's content; on return it is either unchanged or
// empty with its memory released (see text_released).
// `demand` (attribute_demand.h): the devices keep only the scalar attributes it wants; every
// attribute is still decoded and checked, so what is handled and what is not stays the same.
// By default every attribute is kept, and the slices are exactly the strict path's.
FastDecodeResult FastDecodeSliceJson(std::string* text, const AttributeDemand& demand = {});

// The same for a text the caller holds elsewhere (a mapped file, mapped_file.h): the
// kFastDecoderPadding bytes after `padded_text` must be readable. Calls `release_text` (once, at
// most) where the std::string overload would release its text; the text is not read after it.
FastDecodeResult FastDecodeSliceJson(absl::string_view padded_text,
                                     absl::FunctionRef<void()> release_text,
                                     const AttributeDemand& demand = {});

// A list given a run of items at a time (list_runs.h), for a reader that never holds the whole
// text (slice_list_file.h).
enum class NextRun {
  kRun,         // the next run, between brackets: "[" + items + "]"
  kEnd,         // every run was given
  kUnreadable,  // the text could not be read on
};
// Sets *run to the next run; the kFastDecoderPadding bytes after it must be readable, and it
// stays valid until the next call.
using NextRunFn = absl::FunctionRef<NextRun(absl::string_view* run)>;

// `envelope` is the list with its items emptied (ListLayout::envelope). Handled, with `runs`
// counted, exactly when the envelope and every run parse and every item decodes as on the fast
// path; then the slices are those the whole text would give. Not handled otherwise (nothing
// then says why: the caller decodes the text the usual way, which does).
FastDecodeResult FastDecodeSliceRuns(absl::string_view envelope, NextRunFn next_run,
                                     const AttributeDemand& demand = {});

}  // namespace gpuprofile::dra
