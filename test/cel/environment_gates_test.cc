// File: test/cel/environment_gates_test.cc
// The DRA selector environment per Kubernetes version and feature gate, expression by expression
// against the facts sheet (shared/reference/dra-1.35-1.37.md, dynamic-resource-allocation
// cel/compile.go of 1.36 and 1.37): accepted on N, rejected on N-1, accepted with the gate on;
// stored expressions see what their release declares. Also the `includes()` function: its
// estimated cost (48), its 48-value runtime limit and its receivers (list or scalar).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/core/feature_gates.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel {
namespace environment_gates_test {
namespace {

using ::testing::HasSubstr;

constexpr ExpressionMode kNew = ExpressionMode::kNewExpression;
constexpr ExpressionMode kStored = ExpressionMode::kStoredExpression;

std::shared_ptr<const Environment> Env(const std::string& version, const std::string& gates,
                                       ExpressionMode mode) {
  KubeVersion v = *KubeVersion::Parse(version);
  absl::StatusOr<FeatureGates> parsed = FeatureGates::Parse(v, gates);
  EXPECT_OK(parsed);
  return Environment::ForDeviceSelectors(v, mode, parsed.ok() ? *parsed : FeatureGates(v));
}

absl::StatusOr<std::shared_ptr<const Program>> CompileOn(const std::string& expr,
                                                         const std::string& version,
                                                         const std::string& gates = "",
                                                         ExpressionMode mode = kNew) {
  CompileOptions options;
  options.require_bool_result = true;
  return Compile(expr, Env(version, gates, mode), options);
}

struct Case {
  const char* expression;
  const char* version;
  const char* gates;  // --feature-gates text; "" = the release defaults
  ExpressionMode mode;
  bool accepted;
  const char* reason = "";  // a substring of the rejection
};

std::string Describe(const Case& c) {
  return absl::StrCat(c.expression, " on ", c.version, c.mode == kStored ? " (stored)" : " (new)",
                      *c.gates ? absl::StrCat(" with ", c.gates) : std::string());
}

constexpr char kMulti[] = "device.allowMultipleAllocations == true";
constexpr char kIncludes[] = "device.attributes['gpu.nvidia.com'].numaNode.includes(0)";
// Iterating an attribute value needs it typed dyn: google.protobuf.Any is no comprehension range.
constexpr char kIterate[] = "device.attributes['gpu.nvidia.com'].numaNode.exists(n, n == 0)";
constexpr char kSizeOf[] = "device.attributes['gpu.nvidia.com'].numaNode.size() == 1";
constexpr char kIn[] = "0 in device.attributes['gpu.nvidia.com'].numaNode";

const std::vector<Case>& Cases() {
  static const std::vector<Case>* const kCases = new std::vector<Case>{
      // device.allowMultipleAllocations: DRAConsumableCapacity, alpha 1.34-1.35, beta (on) 1.36.
      {kMulti, "1.33", "", kNew, false, "undefined field 'allowMultipleAllocations'"},
      {kMulti, "1.33", "", kStored, false, "exists from Kubernetes 1.34"},
      {kMulti, "1.34", "", kNew, false, "--feature-gates DRAConsumableCapacity=true"},
      {kMulti, "1.34", "DRAConsumableCapacity=true", kNew, true},
      {kMulti, "1.34", "", kStored, true},
      {kMulti, "1.35", "", kNew, false, "the Kubernetes 1.35 default"},
      {kMulti, "1.35", "DRAConsumableCapacity=true", kNew, true},
      {kMulti, "1.36", "", kNew, true},
      {kMulti, "1.36.0", "", kNew, true},
      {kMulti, "1.36", "DRAConsumableCapacity=false", kNew, false, "set by --feature-gates"},
      {kMulti, "1.36", "DRAConsumableCapacity=false", kStored, true},
      {kMulti, "1.37", "", kNew, true},
      // includes(): IntroducedVersion 1.36, gate DRAListTypeAttributes (alpha from 1.36, off).
      {kIncludes, "1.35", "", kNew, false, "which Kubernetes 1.35 does not have"},
      {kIncludes, "1.35", "", kStored, false, "exists from 1.36"},
      {kIncludes, "1.36", "", kNew, false, "--feature-gates DRAListTypeAttributes=true"},
      {kIncludes, "1.36", "DRAListTypeAttributes=true", kNew, true},
      {kIncludes, "1.36", "", kStored, true},
      {kIncludes, "1.37", "", kNew, false, "DRAListTypeAttributes"},
      {kIncludes, "1.37", "DRAListTypeAttributes=true", kNew, true},
      {kIncludes, "1.37", "", kStored, true},
      // Attribute values: google.protobuf.Any without list types, dyn with them.
      {kIterate, "1.34", "", kNew, false, "'google.protobuf.Any' cannot be the range"},
      {kIterate, "1.35", "", kStored, false, "google.protobuf.Any"},
      {kIterate, "1.36", "", kNew, false, "google.protobuf.Any"},
      {kIterate, "1.36", "DRAListTypeAttributes=true", kNew, true},
      {kIterate, "1.36", "", kStored, false, "google.protobuf.Any"},  // 1.36 typed by its gate
      {kIterate, "1.36", "DRAListTypeAttributes=true", kStored, true},
      {kIterate, "1.37", "", kNew, false, "google.protobuf.Any"},
      {kIterate, "1.37", "DRAListTypeAttributes=true", kNew, true},
      {kIterate, "1.37", "", kStored, true},  // 1.37 stores the newest declaration
      // Both typings accept what CEL allows on dyn.
      {kSizeOf, "1.34", "", kNew, true},
      {kSizeOf, "1.36", "DRAListTypeAttributes=true", kNew, true},
      {kIn, "1.34", "", kNew, true},
      {kIn, "1.37", "DRAListTypeAttributes=true", kNew, true},
      // A bare attribute is a valid result either way ("bool or the unknown type").
      {"device.attributes['gpu.nvidia.com'].ok", "1.35", "", kNew, true},
      {"device.attributes['gpu.nvidia.com'].ok", "1.36", "DRAListTypeAttributes=true", kNew,
       true},
  };
  return *kCases;
}

TEST(EnvironmentGatesTest, FactsSheetTable) {
  for (const Case& c : Cases()) {
    absl::StatusOr<std::shared_ptr<const Program>> p =
        CompileOn(c.expression, c.version, c.gates, c.mode);
    if (c.accepted) {
      EXPECT_OK(p) << Describe(c);
      continue;
    }
    ASSERT_FALSE(p.ok()) << Describe(c);
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << Describe(c);
    EXPECT_THAT(std::string(p.status().message()), HasSubstr(c.reason)) << Describe(c);
  }
}

TEST(EnvironmentGatesTest, GateAbsentOnTheReleaseCountsAsOff) {
  // Set() is unchecked: a gate the release does not have must not declare anything.
  FeatureGates gates(*KubeVersion::Parse("1.33"));
  gates.Set(kDRAConsumableCapacity, true);
  auto env = Environment::ForDeviceSelectors(*KubeVersion::Parse("1.33"), kNew, gates);
  EXPECT_FALSE(env->options().consumable_capacity);
  EXPECT_FALSE(env->GateOn(kDRAConsumableCapacity));
  FeatureGates lists(*KubeVersion::Parse("1.35"));
  lists.Set(kDRAListTypeAttributes, true);
  EXPECT_FALSE(CompileOn(kIncludes, "1.35").ok());
  EXPECT_FALSE(Compile(kIncludes,
                       Environment::ForDeviceSelectors(*KubeVersion::Parse("1.35"), kNew, lists))
                   .ok());
}

TEST(EnvironmentGatesTest, DefaultsFollowTheRelease) {
  // The two-argument form takes the release defaults: DRAConsumableCapacity on from 1.36.
  EXPECT_FALSE(Environment::ForDeviceSelectors(*KubeVersion::Parse("1.35"))
                   ->options()
                   .consumable_capacity);
  EXPECT_TRUE(Environment::ForDeviceSelectors(*KubeVersion::Parse("1.36"))
                  ->options()
                  .consumable_capacity);
  EXPECT_FALSE(Environment::ForDeviceSelectors(*KubeVersion::Parse("1.37"))
                   ->options()
                   .list_type_attributes);
}

TEST(EnvironmentGatesTest, UngatedLibrariesStillFollowTheCompatibilityVersion) {
  // A gate being on does not open libraries of a later release: semver(s, true) is 1.33's.
  const char* expr = "device.attributes['gpu.nvidia.com'].v.compareTo(semver('1.0', true)) == 0";
  EXPECT_FALSE(CompileOn(expr, "1.33").ok());
  EXPECT_OK(CompileOn(expr, "1.34"));
  EXPECT_OK(CompileOn(expr, "1.33", "", kStored));
}

TEST(EnvironmentGatesTest, EstimatorBugOfEarly132StillModelled) {
  const char* expr = "device.attributes['gpu.nvidia.com'].productName.lowerAscii() == 'a'";
  auto early = CompileOn(expr, "1.32.2");
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_OK(CompileOn(expr, "1.32.3"));
}

// ---- includes(): cost ----

uint64_t CostOf(const std::string& expr, const std::string& version, const std::string& gates) {
  auto p = CompileOn(expr, version, gates);
  EXPECT_OK(p) << expr;
  return p.ok() ? (*p)->cost().max : 0;
}

TEST(EnvironmentGatesTest, IncludesCostsFortyEight) {
  // Kubernetes' compile_test.go: 4 (device, .attributes, [domain], .name) + 48.
  EXPECT_EQ(CostOf("device.attributes[\"dra.example.com\"].name.includes(\"value-48\")", "1.36",
                   "DRAListTypeAttributes=true"),
            4u + 48u);
  EXPECT_EQ(CostOf("device.attributes[\"dra.example.com\"].name.includes(\"value-48\")", "1.37",
                   "DRAListTypeAttributes=true"),
            4u + 48u);
  // The `in` operator is bounded by the attribute's declared size instead (64).
  EXPECT_EQ(CostOf("1 in device.attributes[\"dra.example.com\"].names", "1.36",
                   "DRAListTypeAttributes=true"),
            4u + 64u);
  // Whatever the receiver: a literal list (10 to create, as cel-go counts) plus 48.
  EXPECT_EQ(CostOf("[1, 2, 3].includes(1)", "1.36", "DRAListTypeAttributes=true"), 10u + 48u);
  EXPECT_EQ(CostOf("device.driver.includes('x')", "1.36", "DRAListTypeAttributes=true"),
            2u + 48u);
}

// ---- includes(): runtime ----

// `l.includes(x)` in the stored 1.37 environment, with `l` and `x` bound.
Value Includes(const Value& target, const Value& value) {
  Environment::Options o;
  o.kube_version = *KubeVersion::Parse("1.37");
  o.mode = kStored;
  o.variables = {Variable{"l", Type::Dyn()}, Variable{"x", Type::Dyn()}};
  auto program = Compile("l.includes(x)", Environment::Create(o));
  EXPECT_OK(program);
  if (!program.ok()) return Value::Error("compile");
  return (*program)->Evaluate({target, value});
}

Value Strings(int n) {
  std::vector<Value> values;
  for (int i = 0; i < n; ++i) values.push_back(Value::String(absl::StrCat("value-", i)));
  return Value::List(std::move(values));
}

TEST(EnvironmentGatesTest, IncludesOnListsUpToFortyEightValues) {
  EXPECT_TRUE(Includes(Strings(48), Value::String("value-47")).IsTrue());
  EXPECT_TRUE(Includes(Strings(48), Value::String("value-48")).IsFalse());
  EXPECT_TRUE(Includes(Strings(0), Value::String("value-0")).IsFalse());
}

TEST(EnvironmentGatesTest, IncludesPastFortyEightValuesIsARuntimeError) {
  const char* kError = "'includes' function cannot be applied to lists longer than 48 values";
  Value absent = Includes(Strings(49), Value::String("value-49"));
  ASSERT_TRUE(absent.is_error()) << absent.DebugString();
  EXPECT_EQ(absent.error_message(), kError);
  Value last = Includes(Strings(49), Value::String("value-48"));
  ASSERT_TRUE(last.is_error()) << last.DebugString();
  EXPECT_EQ(last.error_message(), kError);
  // A value among the first 48 is found before the limit, as Kubernetes' loop does.
  EXPECT_TRUE(Includes(Strings(49), Value::String("value-0")).IsTrue());
}

TEST(EnvironmentGatesTest, IncludesOnScalarsIsEquality) {
  EXPECT_TRUE(Includes(Value::Int(1), Value::Int(1)).IsTrue());
  EXPECT_TRUE(Includes(Value::Int(1), Value::Double(1.0)).IsTrue());  // CEL equality
  EXPECT_TRUE(Includes(Value::String("abc"), Value::String("a")).IsFalse());  // not a substring
  EXPECT_TRUE(Includes(Value::String("a"), Value::String("a")).IsTrue());
  EXPECT_TRUE(Includes(Value::Bool(true), Value::Int(1)).IsFalse());
  // Numeric equality inside lists too.
  EXPECT_TRUE(
      Includes(Value::List({Value::Int(0), Value::Int(3)}), Value::Uint(3)).IsTrue());
}

}  // namespace
}  // namespace environment_gates_test
}  // namespace gpuprofile::cel
