// File: test/cel/conformance/conformance_runner.h
// Runs the official CEL conformance tests (github.com/google/cel-spec, simple tests, as exported
// by tools/cel-spec/export-conformance.mjs) against the engine in controller/cel.
//
// Each test is compiled in Environment::Standard(<its typeEnv>, <its container>), type-checked
// unless the test says disableCheck, evaluated with its bindings and compared with the expected
// result (see ValuesMatch in value_json.h; an expected evalError matches any error value).
// Tests that need what Kubernetes' CEL does not have (protobuf messages and enums, extension
// libraries Kubernetes lacks, unknowns) are skipped and counted by reason; compile failures with
// status Unimplemented are counted apart from other failures.
// Thread-safety: pure functions over their arguments.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::cel::conformance {

struct CaseResult {
  enum class Outcome { kPassed, kFailed, kUnimplemented, kSkipped };
  Outcome outcome = Outcome::kPassed;
  std::string skip_reason;    // kSkipped
  std::string failure_class;  // kFailed, kUnimplemented: a short grouping key
  std::string expected;       // kFailed, kUnimplemented
  std::string actual;         // kFailed, kUnimplemented
  // Informational (never a failure): the checked result type when it differs from the one
  // cel-go's checker infers ("checkedType" in the export), as "engine vs cel-go".
  std::string type_difference;
};

// Runs one SimpleTest given in protobuf-JSON form.
CaseResult RunCase(const nlohmann::json& test);

struct SuiteSummary {
  std::string name;
  int total = 0;
  int passed = 0;
  int failed = 0;         // excluding unimplemented
  int unimplemented = 0;  // compile status Unimplemented
  int skipped = 0;
  std::map<std::string, int> skipped_by_reason;

  int applicable() const { return total - skipped; }
};

struct Failure {
  std::string suite;
  std::string section;
  std::string name;
  std::string expr;
  std::string expected;
  std::string actual;
  std::string failure_class;
  bool unimplemented = false;
};

struct TypeDifference {
  std::string suite;
  std::string section;
  std::string name;
  std::string expr;
  std::string difference;  // "engine vs cel-go"
};

struct Report {
  std::string source;  // where the tests came from
  std::vector<SuiteSummary> suites;
  std::vector<Failure> failures;
  std::vector<TypeDifference> type_differences;

  SuiteSummary Total() const;
  // Per-suite table: passed / applicable / failed / unimplemented / skipped, then the skip
  // reasons with counts.
  std::string SummaryTable() const;
  // The `top` most frequent failure classes with counts and up to `examples` cases each.
  std::string FailureClasses(int top, int examples) const;
  // Every failure: suite/section/name, expression, expected, got; then the type differences.
  std::string FailuresText() const;
};

// Runs every test of the exported file's suites whose "suite/section/name" contains `filter`
// (all when empty). InvalidArgument when `root` is not an export of export-conformance.mjs.
absl::StatusOr<Report> RunSuites(const nlohmann::json& root, absl::string_view filter = "");

}  // namespace gpuprofile::cel::conformance
