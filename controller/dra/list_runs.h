// File: controller/dra/list_runs.h
// Cuts a large, indented JSON List (`kubectl get resourceslices -o json`) into its envelope and
// runs of items that can each be parsed alone.
//
// Why: parsing a 74 MB list as one document makes simdjson write about 60 MB of fresh memory
// (structural indexes, tape, strings), and on this project's machines the kernel's faulting and
// zeroing of that memory is a large share of `render`'s CPU. A parser reused for runs of about
// a megabyte writes the same few megabytes over and over, and the decoder reads each run's tape
// while it is still in the cache.
//
// How the cut stays exact: `text` = H + "[" + R + "]" + S, where "[" opens the value of the
// root object's "items" (found by lexing H as JSON) and "]" is taken to close it. R is cut at
// commas into runs R1 "," R2 "," ... Rn. If H + "[]" + S (the envelope) parses and every
// "[" + Ri + "]" parses to an array of one element or more (an empty run would let "[a,]"
// through as "[a]" and "[]"), then `text` parses, and its items are the runs' elements in
// order: one valid value stands in for another. A guess that was wrong (a cut inside a string or a
// nested value, a "]" that closes something else) leaves a run unclosed or with content after its
// closing bracket, so it never parses: wrong guesses are caught by the parse, never silently
// accepted, and the caller then parses the whole text as one document. A run wrapped in
// brackets is one level shallower than in the whole text: its parser allows one level less
// (kRunMaxDepth), so a run parses only where the whole text would.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "simdjson.h"

namespace gpuprofile::dra {

// A run's simdjson depth limit, one less than a whole document's.
inline constexpr size_t kRunMaxDepth = simdjson::DEFAULT_MAX_DEPTH - 1;

// The decoders' choice (slice_fast_decoder.h): runs of about a megabyte, for texts from 4 MiB
// on. Runs of 256 KiB and 4 MiB rendered the benchmark's fleet in the same time.
inline constexpr size_t kListRunBytes = size_t{1} << 20;
inline constexpr size_t kListRunsFromBytes = 4 * kListRunBytes;

// How far from the start the root's "items" key, and from the end its closing bracket, are
// looked for: kubectl's and the API server's lists give a few short members around it
// (apiVersion, kind, metadata).
inline constexpr size_t kListHeadBytes = size_t{64} << 10;
inline constexpr size_t kListTailBytes = size_t{64} << 10;

// Where a list printed as kubectl prints one keeps its items: the root's "items" key at the
// start of a line, its closing bracket on a line of its own at that indentation, and its items
// objects starting and ending on lines of their own at one indentation.
struct ListLayout {
  size_t open = 0;   // the items' "["
  size_t close = 0;  // the items' "]"
  size_t first = 0;  // the first item's "{"
  // H + "[]" + S, to parse as the list without its items.
  std::string envelope;
  // "\n" + the items' indentation + "},": how a line that ends an item (and not the last one)
  // reads.
  std::string item_end;
};

// The layout of a text of `size` bytes from its first and last bytes: `head` is the text's
// first min(size, kListHeadBytes) bytes, `tail` its last min(size, kListTailBytes). nullopt
// when the text is not laid out so (compact JSON, the key or the bracket not within reach, no
// items). A nullopt is never an error: the text is then parsed whole.
std::optional<ListLayout> FindListLayout(absl::string_view head, absl::string_view tail,
                                         size_t size);

// Where the run that starts at `begin` (an item's start, or just after a comma that ends one)
// ends: the position of the comma after the first item that ends `run_bytes` or more past
// `begin`. It is looked for in a window of the text from `begin` on, first of `run_bytes` and
// 64 KiB, doubled while no item ends in it, up to 16 MiB; past that (or at layout.close) there is
// none, and the run goes on to the items' end, so that a layout without item-ending lines costs
// one bounded search. `window(length)` gives the text from `begin` on, at least `length` bytes
// or up to layout.close (more is fine, past layout.close is not read); nullopt when it cannot
// be read.
// Returns npos when no item ends in the largest window, nullopt when `window` gave nullopt.
std::optional<size_t> FindRunEnd(
    const ListLayout& layout, size_t begin, size_t run_bytes,
    absl::FunctionRef<std::optional<absl::string_view>(size_t length)> window);

struct ListRuns {
  ListLayout layout;
  // [begin, end) of each run in the text: items separated by commas, maybe whitespace around.
  struct Run {
    size_t begin = 0;
    size_t end = 0;
  };
  std::vector<Run> runs;
  size_t longest_run = 0;  // bytes
};

// The runs of about `run_bytes` (more where an item is longer) of a text held whole. nullopt
// where FindListLayout gives none or the text makes fewer than two runs.
std::optional<ListRuns> CutListIntoRuns(absl::string_view text, size_t run_bytes);

}  // namespace gpuprofile::dra
