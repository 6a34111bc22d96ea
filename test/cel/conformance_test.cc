// File: test/cel/conformance_test.cc
// The official CEL conformance suites (cel-spec simple tests) against controller/cel.
//
// Input: the JSON written by tools/cel-spec/export-conformance.mjs, from $GPO_CEL_CONFORMANCE_JSON
// or <build dir>/cel-conformance.json (tools/cel-spec/prepare.sh <build dir> writes it).
// Output: a per-suite table on stdout, every failure in <build dir>/cel-conformance-failures.txt.
// $GPO_CEL_CONFORMANCE_FILTER runs only tests whose "suite/section/name" contains it.

// The build turns only test/<layer>/*_test.cc into executables; the runner's sources live in
// test/cel/conformance/ and are compiled into this test by inclusion.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "test/testing/test_paths.h"
#include "test/cel/conformance/conformance_runner.h"
#include "test/cel/conformance/value_json.h"

namespace gpuprofile::cel::conformance {
namespace conformance_test {
namespace {

using nlohmann::json;

constexpr double kRequiredPassRate = 0.95;

std::string ConformancePath() {
  const char* env = std::getenv("GPO_CEL_CONFORMANCE_JSON");
  return env != nullptr && *env != '\0' ? std::string(env)
                                         : ::gpuprofile::testing::BinaryDir() + "/cel-conformance.json";
}

TEST(ConformanceValueJson, ConvertsScalarsAndSpecialDoubles) {
  EXPECT_TRUE(ValuesMatch(Value::Int(-5), *ValueFromProtoJson(json{{"int64Value", "-5"}})));
  EXPECT_TRUE(ValuesMatch(Value::Uint(18446744073709551615u),
                          *ValueFromProtoJson(json{{"uint64Value", "18446744073709551615"}})));
  EXPECT_TRUE(ValuesMatch(Value::Bytes(std::string("\0\xff", 2)),
                          *ValueFromProtoJson(json{{"bytesValue", "AP8="}})));
  absl::StatusOr<Value> nan = ValueFromProtoJson(json{{"doubleValue", "NaN"}});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_TRUE(std::isnan(nan->double_value()));
  EXPECT_TRUE(ValuesMatch(*nan, Value::Double(std::nan(""))));
  absl::StatusOr<Value> inf = ValueFromProtoJson(json{{"doubleValue", "-Infinity"}});
  ASSERT_TRUE(inf.ok()) << inf.status();
  EXPECT_TRUE(std::isinf(inf->double_value()) && inf->double_value() < 0);
}

TEST(ConformanceValueJson, MatchingIsStrictAboutKinds) {
  EXPECT_FALSE(ValuesMatch(Value::Int(1), Value::Double(1.0)));
  EXPECT_FALSE(ValuesMatch(Value::Int(1), Value::Uint(1)));
  EXPECT_TRUE(ValuesMatch(Value::Error("a"), Value::Error("b")));
  EXPECT_FALSE(ValuesMatch(Value::Bool(false), Value::Error("b")));
}

TEST(ConformanceValueJson, ConvertsWellKnownObjectsAndRejectsMessages) {
  absl::StatusOr<Value> d = ValueFromProtoJson(json::parse(
      R"({"objectValue": {"@type": "type.googleapis.com/google.protobuf.Duration",
                          "value": "1.5s"}})"));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->duration_value(), absl::Milliseconds(1500));
  absl::StatusOr<Value> w = ValueFromProtoJson(json::parse(
      R"({"objectValue": {"@type": "type.googleapis.com/google.protobuf.Int32Value",
                          "value": 7}})"));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(ValuesMatch(Value::Int(7), *w));
  EXPECT_TRUE(absl::IsUnimplemented(ValueFromProtoJson(json::parse(R"({"objectValue": {"@type":
          "type.googleapis.com/cel.expr.conformance.proto3.TestAllTypes"}})"))
                                        .status()));
}

TEST(ConformanceValueJson, ConvertsListsAndMapsOrderInsensitively) {
  absl::StatusOr<Value> m = ValueFromProtoJson(json::parse(R"({"mapValue": {"entries": [
      {"key": {"stringValue": "a"}, "value": {"listValue": {"values": [{"int64Value": "1"}]}}},
      {"key": {"int64Value": "2"}, "value": {"boolValue": true}}]}})"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto reordered = std::make_shared<HashMapValue>();
  reordered->Insert(Value::Int(2), Value::Bool(true));
  reordered->Insert(Value::String("a"), Value::List({Value::Int(1)}));
  EXPECT_TRUE(ValuesMatch(*m, Value::Map(reordered)));
}

TEST(ConformanceValueJson, ConvertsDeclaredTypes) {
  absl::StatusOr<Type> t = TypeFromProtoJson(json::parse(
      R"({"mapType": {"keyType": {"primitive": "STRING"},
                      "valueType": {"listType": {"elemType": {"primitive": "INT64"}}}}})"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t, Type::Map(Type::String(), Type::List(Type::Int())));
  EXPECT_EQ(*TypeFromProtoJson(json::parse(R"({"null": null})")), Type::Null());
  EXPECT_TRUE(absl::IsUnimplemented(
      TypeFromProtoJson(json{{"messageType", "cel.expr.conformance.proto3.TestAllTypes"}})
          .status()));
}

TEST(CelConformance, PassRateOfApplicableCasesIsAtLeast95Percent) {
  const std::string path = ConformancePath();
  std::ifstream in(path);
  ASSERT_TRUE(in.good())
      << "CEL conformance data not found at " << path << ".\n"
      << "Produce it with:  tools/cel-spec/prepare.sh " << ::gpuprofile::testing::BinaryDir() << "\n"
      << "(needs node and npm; it runs `npm ci` in tools/cel-spec and exports the suites), or "
         "point GPO_CEL_CONFORMANCE_JSON at an export of tools/cel-spec/export-conformance.mjs.";
  json root = json::parse(in, /*cb=*/nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(root.is_discarded()) << path << " is not valid JSON; re-run prepare.sh";

  const char* filter = std::getenv("GPO_CEL_CONFORMANCE_FILTER");
  absl::StatusOr<Report> report = RunSuites(root, filter != nullptr ? filter : "");
  ASSERT_TRUE(report.ok()) << report.status();

  std::cout << report->SummaryTable();
  if (!report->failures.empty()) {
    std::cout << "top failure classes:\n" << report->FailureClasses(25, 3);
  }
  const std::string failures_path =
      ::gpuprofile::testing::BinaryDir() + "/cel-conformance-failures.txt";
  std::ofstream(failures_path) << report->FailuresText();
  std::cout << "all failures: " << failures_path << "\n";

  const SuiteSummary total = report->Total();
  ASSERT_GT(total.applicable(), 0) << "no applicable conformance tests ran";
  const double rate = static_cast<double>(total.passed) / total.applicable();
  EXPECT_GE(rate, kRequiredPassRate)
      << total.passed << " of " << total.applicable() << " applicable conformance tests pass ("
      << total.failed << " failed, " << total.unimplemented << " unimplemented); see "
      << failures_path;
}

}  // namespace
}  // namespace conformance_test
}  // namespace gpuprofile::cel::conformance
