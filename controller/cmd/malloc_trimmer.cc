// File: controller/cmd/malloc_trimmer.cc
#include "controller/cmd/malloc_trimmer.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpuprofile::cmd {

MallocTrimmer::MallocTrimmer(absl::Duration interval) {
  if (interval <= absl::ZeroDuration()) return;
  thread_ = std::thread([this, interval] {
    while (!stop_.WaitForNotificationWithTimeout(interval)) TrimNow();
  });
}

MallocTrimmer::~MallocTrimmer() {
  stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

bool MallocTrimmer::TrimNow() {
#if defined(__GLIBC__)
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

void MallocTrimmer::SetMmapThreshold(size_t bytes) {
  if (bytes == 0) return;
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(bytes));
#endif
}

}  // namespace gpuprofile::cmd
