// File: test/cel/conformance/conformance_runner.cc
#include "test/cel/conformance/conformance_runner.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "re2/re2.h"
#include "test/cel/conformance/value_json.h"

namespace gpuprofile::cel::conformance {
namespace {

using nlohmann::json;
using Outcome = CaseResult::Outcome;

// ---- Skip rules. ----

constexpr char kSkipMessages[] = "protobuf messages/enums";
constexpr char kSkipMessageValues[] = "protobuf message values";
constexpr char kSkipDisableMacros[] = "disableMacros (engine cannot turn macros off)";
constexpr char kSkipUnknowns[] = "unknown results (partial evaluation)";
constexpr char kSkipFunctionDecls[] = "custom function declarations";
constexpr char kSkipNonValueBinding[] = "bindings that are not values";

// Libraries Kubernetes' CEL environment does not have. Their suites (math_ext, encoders_ext,
// block_ext, proto2_ext) are not exported at all; these rules catch stray uses elsewhere.
struct ExtensionRule {
  const char* reason;
  const char* pattern;
};
constexpr ExtensionRule kExtensionRules[] = {
    {"not in Kubernetes CEL: math ext (math.*)", R"(\bmath\.\w+\s*\()"},
    {"not in Kubernetes CEL: encoders ext (base64.*)", R"(\bbase64\.(encode|decode)\b)"},
    {"not in Kubernetes CEL: block ext (cel.block)", R"(\bcel\.@?block\b)"},
    {"not in Kubernetes CEL: proto ext (proto.getExt/hasExt)", R"(\bproto\.(getExt|hasExt)\b)"},
};

// The expression with the contents of string and bytes literals blanked, so that the skip
// patterns only see code.
std::string StripLiterals(absl::string_view expr) {
  static const LazyRE2 kLiteral = {
      R"re('''(?s:.*?)'''|"""(?s:.*?)"""|'(\\.|[^'\\])*'|"(\\.|[^"\\])*")re"};
  std::string out(expr);
  RE2::GlobalReplace(&out, *kLiteral, "''");
  return out;
}

// Why a test needs protobuf messages or enums, judging by its expression and container; empty
// when it does not.
std::string MessageReason(absl::string_view expr, absl::string_view container) {
  static const LazyRE2 kMessageNames = {
      R"(\b(google\.protobuf\.|cel\.expr\.conformance\.)|\b(TestAllTypes|NestedTestAllTypes|)"
      R"(TestRequired|NestedMessage|NestedEnum|GlobalEnum)\b)"};
  // `Name{...}` / `a.b.Name{...}`, but not `x in {...}`.
  static const LazyRE2 kConstruction = {R"((?:^|[^\w.])([A-Za-z_][\w.]*)\s*\{)"};
  if (absl::StartsWith(container, "cel.expr.conformance") ||
      absl::StartsWith(container, "google.protobuf")) {
    return kSkipMessages;
  }
  const std::string code = StripLiterals(expr);
  if (RE2::PartialMatch(code, *kMessageNames)) return kSkipMessages;
  re2::StringPiece input(code);
  std::string name;
  while (RE2::FindAndConsume(&input, *kConstruction, &name)) {
    if (name != "in") return kSkipMessages;
  }
  return "";
}

std::string ExtensionReason(absl::string_view expr) {
  static const auto* const kCompiled = [] {
    auto* compiled = new std::vector<std::pair<const char*, std::unique_ptr<RE2>>>();
    for (const ExtensionRule& rule : kExtensionRules) {
      compiled->emplace_back(rule.reason, std::make_unique<RE2>(rule.pattern));
    }
    return compiled;
  }();
  const std::string code = StripLiterals(expr);
  for (const auto& [reason, pattern] : *kCompiled) {
    if (RE2::PartialMatch(code, *pattern)) return reason;
  }
  return "";
}

// ---- Results. ----

// The first line of an error message without cel-go's "ERROR: <input>:1:2: " position prefix.
std::string NormalizeMessage(absl::string_view message) {
  static const LazyRE2 kPrefix = {R"(^(compilation failed: )?(ERROR: )?<input>:\d+:\d+: )"};
  std::string line(message.substr(0, message.find('\n')));
  RE2::Replace(&line, *kPrefix, "");
  if (line.size() > 110) line = absl::StrCat(line.substr(0, 107), "...");
  return line;
}

CaseResult Skipped(std::string reason) {
  CaseResult r;
  r.outcome = Outcome::kSkipped;
  r.skip_reason = std::move(reason);
  return r;
}

CaseResult Failed(Outcome outcome, std::string failure_class, std::string expected,
                  std::string actual) {
  CaseResult r;
  r.outcome = outcome;
  r.failure_class = std::move(failure_class);
  r.expected = std::move(expected);
  r.actual = std::move(actual);
  return r;
}

// What the test expects: a value, or (nullopt) an error.
struct Expectation {
  std::optional<Value> value;
  std::string error_text;  // the expected error messages, for reports
};

// Converts the declarations, bindings and expectation; a CaseResult when the test cannot run.
struct Prepared {
  std::vector<Variable> variables;
  MapActivation activation;
  Expectation expectation;
};

std::optional<CaseResult> Prepare(const json& test, Prepared& out) {
  if (test.value("disableMacros", false)) return Skipped(kSkipDisableMacros);
  if (test.contains("unknown") || test.contains("anyUnknowns")) return Skipped(kSkipUnknowns);

  const std::string expr = test.value("expr", "");
  const std::string container = test.value("container", "");
  if (std::string reason = MessageReason(expr, container); !reason.empty()) {
    return Skipped(std::move(reason));
  }
  if (std::string reason = ExtensionReason(expr); !reason.empty()) {
    return Skipped(std::move(reason));
  }

  for (const json& decl : test.value("typeEnv", json::array())) {
    if (decl.contains("function")) return Skipped(kSkipFunctionDecls);
    const json ident_type =
        decl.contains("ident") ? decl["ident"].value("type", json::object()) : json::object();
    absl::StatusOr<Type> type = TypeFromProtoJson(ident_type);
    if (absl::IsUnimplemented(type.status())) return Skipped(kSkipMessages);
    if (!type.ok()) {
      return Failed(Outcome::kFailed, "malformed test data (typeEnv)", "",
                    std::string(type.status().message()));
    }
    out.variables.push_back(Variable{decl.value("name", ""), *std::move(type)});
  }

  const json bindings = test.value("bindings", json::object());
  for (const auto& [name, binding] : bindings.items()) {
    if (!binding.contains("value")) return Skipped(kSkipNonValueBinding);
    absl::StatusOr<Value> value = ValueFromProtoJson(binding["value"]);
    if (absl::IsUnimplemented(value.status())) return Skipped(kSkipMessageValues);
    if (!value.ok()) {
      return Failed(Outcome::kFailed, "malformed test data (bindings)", "",
                    std::string(value.status().message()));
    }
    out.activation.Set(name, *std::move(value));
  }

  if (test.contains("value")) {
    absl::StatusOr<Value> value = ValueFromProtoJson(test["value"]);
    if (absl::IsUnimplemented(value.status())) return Skipped(kSkipMessageValues);
    if (!value.ok()) {
      return Failed(Outcome::kFailed, "malformed test data (value)", "",
                    std::string(value.status().message()));
    }
    out.expectation.value = *std::move(value);
  } else if (test.contains("evalError") || test.contains("anyEvalErrors")) {
    std::vector<std::string> messages;
    const json& errors = test.contains("evalError") ? test["evalError"] : test["anyEvalErrors"];
    for (const json& e : errors.value("errors", json::array())) {
      messages.push_back(e.value("message", "?"));
    }
    out.expectation.error_text = absl::StrCat("error(", absl::StrJoin(messages, " | "), ")");
  } else {
    // SimpleTest: "If no result matcher is given, the result must be the bool true."
    out.expectation.value = Value::Bool(true);
  }
  return std::nullopt;
}

CaseResult Compare(const Expectation& expectation, const Value& actual,
                   const std::string& expected);

CaseResult RunPrepared(const json& test, Prepared& prepared) {
  const std::string expr = test.value("expr", "");
  const Expectation& expectation = prepared.expectation;
  const std::string expected =
      expectation.value.has_value() ? Describe(*expectation.value) : expectation.error_text;

  std::shared_ptr<const Environment> env =
      Environment::Standard(std::move(prepared.variables), test.value("container", ""));
  CompileOptions options;
  options.type_check = !test.value("disableCheck", false);
  options.enforce_limits = false;
  absl::StatusOr<std::shared_ptr<const Program>> program = Compile(expr, env, options);
  if (!program.ok()) {
    const std::string message = NormalizeMessage(program.status().message());
    const bool unimplemented = absl::IsUnimplemented(program.status());
    return Failed(unimplemented ? Outcome::kUnimplemented : Outcome::kFailed,
                  absl::StrCat(unimplemented ? "unimplemented: " : "compile error: ", message),
                  expected, program.status().ToString());
  }

  std::string type_difference;
  if (options.type_check && test.contains("checkedType")) {
    const std::string engine_type = (*program)->result_type().ToString();
    const std::string cel_go_type = test.value("checkedType", "");
    if (engine_type != cel_go_type)
      type_difference = absl::StrCat(engine_type, " vs ", cel_go_type);
  }
  CaseResult result = Compare(expectation, (*program)->Evaluate(prepared.activation), expected);
  result.type_difference = std::move(type_difference);
  return result;
}

// Compares an evaluation result with the expectation (`expected` describes it).
CaseResult Compare(const Expectation& expectation, const Value& actual,
                   const std::string& expected) {
  if (!expectation.value.has_value()) {
    if (actual.is_error()) return CaseResult{};
    return Failed(Outcome::kFailed, "expected an error, got a value", expected, Describe(actual));
  }
  if (actual.is_error()) {
    return Failed(Outcome::kFailed,
                  absl::StrCat("unexpected error: ", NormalizeMessage(actual.error_message())),
                  expected, Describe(actual));
  }
  if (ValuesMatch(*expectation.value, actual)) return CaseResult{};
  std::string failure_class = "wrong value";
  if (expectation.value->kind() != actual.kind()) {
    absl::StrAppend(&failure_class, " (expected ", expectation.value->TypeName(), ", got ",
                    actual.TypeName(), ")");
  }
  return Failed(Outcome::kFailed, std::move(failure_class), expected, Describe(actual));
}

std::string Percent(int num, int den) {
  return den == 0 ? "-" : absl::StrFormat("%.1f%%", 100.0 * num / den);
}

}  // namespace

CaseResult RunCase(const json& test) {
  Prepared prepared;
  if (std::optional<CaseResult> early = Prepare(test, prepared)) return *std::move(early);
  // The engine reports failures as statuses and error values; an escaping exception is an engine
  // bug, which the report should show rather than abort the whole run.
  try {
    return RunPrepared(test, prepared);
  } catch (const std::exception& e) {
    return Failed(Outcome::kFailed, "exception escaped the engine", "", e.what());
  }
}

SuiteSummary Report::Total() const {
  SuiteSummary total;
  total.name = "TOTAL";
  for (const SuiteSummary& s : suites) {
    total.total += s.total;
    total.passed += s.passed;
    total.failed += s.failed;
    total.unimplemented += s.unimplemented;
    total.skipped += s.skipped;
    for (const auto& [reason, n] : s.skipped_by_reason) total.skipped_by_reason[reason] += n;
  }
  return total;
}

std::string Report::SummaryTable() const {
  std::string out = absl::StrCat("CEL conformance (", source, ")\n");
  absl::StrAppendFormat(&out, "%-14s %6s %6s %10s %6s %6s %7s %7s\n", "suite", "total", "passed",
                        "applicable", "failed", "unimpl", "skipped", "pass");
  auto row = [&out](const SuiteSummary& s) {
    absl::StrAppendFormat(&out, "%-14s %6d %6d %10d %6d %6d %7d %7s\n", s.name, s.total, s.passed,
                          s.applicable(), s.failed, s.unimplemented, s.skipped,
                          Percent(s.passed, s.applicable()));
  };
  for (const SuiteSummary& s : suites) row(s);
  const SuiteSummary total = Total();
  row(total);
  if (!total.skipped_by_reason.empty()) {
    absl::StrAppend(&out, "skipped by reason:\n");
    for (const auto& [reason, n] : total.skipped_by_reason) {
      std::vector<std::string> per_suite;
      for (const SuiteSummary& s : suites) {
        auto it = s.skipped_by_reason.find(reason);
        if (it != s.skipped_by_reason.end())
          per_suite.push_back(absl::StrCat(s.name, "=", it->second));
      }
      absl::StrAppendFormat(&out, "  %5d  %s [%s]\n", n, reason, absl::StrJoin(per_suite, " "));
    }
  }
  absl::StrAppend(&out, "checked result types that differ from cel-go's (informational): ",
                  type_differences.size(), "\n");
  return out;
}

std::string Report::FailureClasses(int top, int examples) const {
  std::map<std::string, std::vector<const Failure*>> by_class;
  for (const Failure& f : failures) by_class[f.failure_class].push_back(&f);
  std::vector<std::pair<std::string, std::vector<const Failure*>>> sorted(by_class.begin(),
                                                                          by_class.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::string out;
  int shown = 0;
  for (const auto& [failure_class, cases] : sorted) {
    if (shown++ == top) {
      absl::StrAppend(&out, "  ... ", sorted.size() - top, " more classes\n");
      break;
    }
    absl::StrAppendFormat(&out, "  %4d  %s\n", cases.size(), failure_class);
    for (int i = 0; i < examples && i < static_cast<int>(cases.size()); ++i) {
      const Failure& f = *cases[i];
      absl::StrAppendFormat(&out, "          %s/%s/%s: %s  => expected %s, got %s\n", f.suite,
                            f.section, f.name, f.expr, f.expected, f.actual);
    }
  }
  return out;
}

std::string Report::FailuresText() const {
  std::string out =
      absl::StrCat("# CEL conformance failures (", source, "): ", failures.size(), "\n");
  for (const Failure& f : failures) {
    absl::StrAppend(&out, "\n", f.suite, "/", f.section, "/", f.name,
                    f.unimplemented ? " [unimplemented]" : "", "\n  class:    ", f.failure_class,
                    "\n  expr:     ", f.expr, "\n  expected: ", f.expected,
                    "\n  got:      ", f.actual, "\n");
  }
  absl::StrAppend(&out, "\n# Checked result types that differ from cel-go's (informational): ",
                  type_differences.size(), "\n");
  for (const TypeDifference& t : type_differences) {
    absl::StrAppend(&out, t.suite, "/", t.section, "/", t.name, ": ", t.expr, "\n  ", t.difference,
                    "\n");
  }
  return out;
}

absl::StatusOr<Report> RunSuites(const json& root, absl::string_view filter) {
  if (!root.is_object() || !root.contains("suites") || !root["suites"].is_array()) {
    return absl::InvalidArgumentError("not a conformance export: no \"suites\" array");
  }
  Report report;
  report.source = root.value("source", "unknown source");
  for (const json& suite : root["suites"]) {
    SuiteSummary summary;
    summary.name = suite.value("name", "?");
    for (const json& section : suite.value("sections", json::array())) {
      const std::string section_name = section.value("name", "?");
      for (const json& test : section.value("tests", json::array())) {
        const std::string name = test.value("name", "?");
        if (!filter.empty() &&
            !absl::StrContains(absl::StrCat(summary.name, "/", section_name, "/", name), filter)) {
          continue;
        }
        ++summary.total;
        CaseResult result = RunCase(test);
        if (!result.type_difference.empty()) {
          report.type_differences.push_back(TypeDifference{
              summary.name, section_name, name, test.value("expr", ""), result.type_difference});
        }
        switch (result.outcome) {
          case Outcome::kPassed:
            ++summary.passed;
            continue;
          case Outcome::kSkipped:
            ++summary.skipped;
            ++summary.skipped_by_reason[result.skip_reason];
            continue;
          case Outcome::kFailed:
            ++summary.failed;
            break;
          case Outcome::kUnimplemented:
            ++summary.unimplemented;
            break;
        }
        report.failures.push_back(Failure{summary.name, section_name, name, test.value("expr", ""),
                                          std::move(result.expected), std::move(result.actual),
                                          std::move(result.failure_class),
                                          result.outcome == Outcome::kUnimplemented});
      }
    }
    report.suites.push_back(std::move(summary));
  }
  return report;
}

}  // namespace gpuprofile::cel::conformance
