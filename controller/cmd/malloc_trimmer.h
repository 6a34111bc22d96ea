// File: controller/cmd/malloc_trimmer.h
// Gives the pages of freed heap memory back to the kernel at a steady pace (glibc's
// malloc_trim), for the long-running `run` process.
//
// Why: glibc returns memory to the kernel only from the top of each arena. The operator's live
// heap is steady (the caches), but every watch event, list page and desired-state computation
// allocates and frees around it, so free pages pile up inside the arenas: in the 5,000-node
// benchmark the RSS was about twice the live heap, most of it one fully touched 64 MiB arena.
// malloc_trim(0) releases every whole free page of every arena (MADV_DONTNEED), so RSS follows
// the live heap. A pass over a ~100 MB heap takes about a millisecond.
// Thread-safety: construct and destroy from one thread; the trimming runs on its own thread.
// SetMmapThreshold: call once, at start, before other threads allocate.
#pragma once

#include <cstddef>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace gpuprofile::cmd {

class MallocTrimmer {
 public:
  // Trims every `interval` until destroyed; a zero interval disables it.
  explicit MallocTrimmer(absl::Duration interval);
  ~MallocTrimmer();
  MallocTrimmer(const MallocTrimmer&) = delete;
  MallocTrimmer& operator=(const MallocTrimmer&) = delete;

  // Trims once, now (returns whether any memory was released).
  static bool TrimNow();

  // Serves blocks of `bytes` and more from mmap, so that they go back to the kernel as soon as
  // they are freed; 0 keeps glibc's default. Why: glibc's default threshold is dynamic, raised
  // (up to 32 MiB) to the size of each mmap'd block freed, so after the first few computations
  // their ~1 MiB vectors (the inventory's 40,000 device handles, its pools) came from the arenas
  // and sat there, touched, until the next trim: in the 5,000-node churn the peak RSS was 73 MiB
  // (3 rounds), 67-71 with a fixed 128 KiB threshold and the inventory changes that came with
  // it (docs/performance.md). Call it before the process allocates much.
  static void SetMmapThreshold(size_t bytes);

 private:
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace gpuprofile::cmd
