// File: controller/cmd/left_to_exit.h
// What a one-shot command may leave to the process's exit instead of destroying it.
//
// Why: render's last step on the benchmark's 40,000-device fleet was freeing what it had built,
// about 150,000 JSON values and every slice's device tables, one block at a time: 28 M
// instructions (2.7% of the run) and the cache misses of walking it all once more, for memory
// the kernel takes back whole when the process ends (docs/performance.md).
//
// Only main allows it (AllowLeavingToExit), for a command after which the process ends. Where
// it is not allowed (every other caller), LeaveToExit does nothing and the caller
// destroys its objects as usual, so a command behaves the same in both. What is left stays
// reachable from a static list, so a leak checker does not report it; its destructors never run,
// so nothing left may own a resource that must be released (a file to flush, a lock).
// Not thread-safe: call from the main thread.
#pragma once

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gpuprofile::cmd {

// The process ends when the current command returns: what it leaves is never destroyed.
// (false: back to destroying, for tests.)
void AllowLeavingToExit(bool allow = true);
bool LeavingToExitAllowed();

namespace left_to_exit_internal {
void Keep(std::shared_ptr<void> kept);
}  // namespace left_to_exit_internal

// Moves `values` out of the caller's variables into storage that is never freed, when allowed;
// otherwise leaves them where they are.
template <typename... T>
void LeaveToExit(T&... values) {
  static_assert((!std::is_const_v<T> && ...), "a const object cannot be moved away");
  if (!LeavingToExitAllowed()) return;
  left_to_exit_internal::Keep(std::make_shared<std::tuple<T...>>(std::move(values)...));
}

}  // namespace gpuprofile::cmd
