// File: test/testing/test_paths.h
// Where the sources and the build tree are, for tests that read shipped files or write reports.
// The paths live in one generated source file (test_paths.cc, configured by CMake) rather than
// in compile definitions, so that the test files themselves compile identically in every clone
// and a fresh CI checkout reuses the compiler cache.
#pragma once

#include <string>

namespace gpuprofile::testing {

// Absolute path of the project's source tree (no trailing slash).
const std::string& SourceDir();
// Absolute path of the build tree (no trailing slash).
const std::string& BinaryDir();

}  // namespace gpuprofile::testing
