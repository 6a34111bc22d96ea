// File: controller/cmd/left_to_exit.cc
#include "controller/cmd/left_to_exit.h"

#include <vector>

namespace gpuprofile::cmd {
namespace {

bool allowed = false;

// Never destroyed (a static pointer, not a static object): its contents are what the process
// leaves to its exit.
std::vector<std::shared_ptr<void>>& Kept() {
  static auto* const kept = new std::vector<std::shared_ptr<void>>();
  return *kept;
}

}  // namespace

void AllowLeavingToExit(bool allow) { allowed = allow; }
bool LeavingToExitAllowed() { return allowed; }

namespace left_to_exit_internal {
void Keep(std::shared_ptr<void> kept) { Kept().push_back(std::move(kept)); }
}  // namespace left_to_exit_internal

}  // namespace gpuprofile::cmd
