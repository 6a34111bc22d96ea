// File: controller/cmd/exit_codes.h
// Process exit codes shared by the subcommands (docs/design.md §5-§6).
#pragma once

namespace gpuprofile::cmd {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;        // rejected expression, invalid input
inline constexpr int kExitUsage = 2;          // bad flags or arguments
inline constexpr int kExitUnimplemented = 3;  // `cel check`: a feature this engine lacks

}  // namespace gpuprofile::cmd
