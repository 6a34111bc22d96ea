// File: controller/core/check.h
// GPO_CHECK(condition, message parts...): the one way the project crashes on purpose.
//
// The rule (docs/design.md, "What may crash"): a broken invariant of the program's own making —
// a generated object without the label the engine always sets, an index out of the range the
// code itself computed, a metric registered with the wrong number of labels — ends the process
// at once with the file, line and a message, because going on would write wrong objects to the
// cluster. Everything that input or the network can cause (a malformed manifest, a hostile
// object, an API error, a dropped watch) is returned as an absl::Status instead, and never
// reaches a GPO_CHECK. Never `.at()` or `.value()` on something input decides: they throw,
// and an exception leaving a worker thread ends the process without saying why.
// Thread-safety: stateless.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace gpuprofile::internal_check {

[[noreturn]] inline void Fail(const char* file, int line, const char* condition,
                              const std::string& message) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s: %s\n", file, line, condition, message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace gpuprofile::internal_check

#define GPO_CHECK(condition, ...)                                        \
  do {                                                                   \
    if (!(condition)) {                                                  \
      ::gpuprofile::internal_check::Fail(__FILE__, __LINE__, #condition, \
                                         ::absl::StrCat(__VA_ARGS__));   \
    }                                                                    \
  } while (false)
