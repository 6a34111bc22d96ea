// File: controller/cmd/short_run_heap.cc
#include "controller/cmd/short_run_heap.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "controller/dra/large_document_parser.h"

namespace gpuprofile::cmd {

void SetUpHeapForShortRun() {
  // Blocks of any size from the heap: a large vector's growth then reuses advised room instead
  // of a fresh mapping per size.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(2 * kShortRunHeapStep));
  mallopt(M_TOP_PAD, static_cast<int>(kShortRunHeapStep));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(4 * kShortRunHeapStep));
  // A block larger than any free room makes glibc grow the heap by the block and the pad (only
  // address space: nothing is touched); freed, it stays as the heap's top, where the next
  // allocations come from. It is advised from its start to the heap's end.
  void* block = std::malloc(kShortRunHeapStep);
  if (block == nullptr) return;
  const uintptr_t start = reinterpret_cast<uintptr_t>(block);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  if (end > start) dra::AdviseHugePages(block, end - start).IgnoreError();
  std::free(block);
}

}  // namespace gpuprofile::cmd
