// File: controller/cmd/version.h
// Build identity printed by `gpu-profile-controller version`.
#pragma once

namespace gpuprofile::cmd {

inline constexpr char kVersion[] = "0.1.0";

// Prints "gpu-profile-controller <version>" to stdout; returns the exit code.
int RunVersion();

}  // namespace gpuprofile::cmd
