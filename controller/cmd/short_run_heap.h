// File: controller/cmd/short_run_heap.h
// Sets glibc's heap up for a short command-line run that reads a large fleet (render, explain,
// cel match): one heap, grown in large steps, on huge pages.
//
// Why: render on the benchmark's 40,000-device fleet allocates about 25 MiB, touched once. On
// 4 KiB pages that was 6,100 page faults, at 3-5 us each on this project's machines, plus
// glibc mapping, copying and unmapping each large vector as it grew. With the heap advised for
// huge pages (Debian's default THP mode, "madvise", honours the advice; "never" ignores it and
// nothing changes) the run takes under 1,000 faults and 0.88x the CPU, for a few MiB more peak
// RSS (docs/performance.md). The exception measured: on a VM that reports free memory to its
// host (Firecracker's free page reporting), a run right after another process freed about 1 GB
// faults its 2 MiB pages back from the host, and took more CPU than on 4 KiB pages; run alone,
// 4 KiB pages took 1.11x the CPU.
//
// Not for `run`: the operator lives long, returns freed memory to the kernel
// (malloc_trimmer.h), and its RSS is a target of its own.
// Call once, first thing in main, before other threads exist.
#pragma once

#include <cstddef>

namespace gpuprofile::cmd {

// How far the heap is grown at once, and advised.
inline constexpr size_t kShortRunHeapStep = size_t{128} << 20;

// Serves every allocation from the main heap (no per-block mmap), grows the heap
// kShortRunHeapStep at a time, keeps freed memory in it, grows it once now and advises that
// room for huge pages. Best effort: a refused advice changes nothing but speed.
void SetUpHeapForShortRun();

}  // namespace gpuprofile::cmd
