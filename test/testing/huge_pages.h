// File: test/testing/huge_pages.h
// What the kernel says about transparent huge pages, for tests of memory advised for them: the
// THP mode, and whether the mapping that holds an address is eligible (/proc/self/smaps).
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace gpuprofile::testing {

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
inline std::string ThpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('[');
  const size_t close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

// The "THPeligible:" value of the mapping holding `address` in /proc/self/smaps; nullopt when
// no mapping holds it or the kernel does not say.
inline std::optional<int> ThpEligible(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const std::string first = line.substr(0, line.find(' '));
    const std::vector<std::string> range = absl::StrSplit(first, '-');
    uint64_t begin = 0, end = 0;
    if (range.size() == 2 && absl::SimpleHexAtoi(range[0], &begin) &&
        absl::SimpleHexAtoi(range[1], &end)) {
      inside = begin <= a && a < end;
      continue;
    }
    int value = 0;
    if (inside && absl::StartsWith(line, "THPeligible:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(12)), &value)) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace gpuprofile::testing
