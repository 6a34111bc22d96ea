// File: test/cel/cost_test.cc
// Estimated costs of DRA device selectors against Kubernetes' own numbers.
//
// Golden data: every `expectCost` of kubernetes/dynamic-resource-allocation cel/compile_test.go
// whose expression does not need list-type attributes. Skipped, because DRAListTypeAttributes
// (1.36 alpha) is not modelled: macro-exists-on-{int,bool,string,version}, list-of-*,
// macro-on-list-of-*, includes-function-* and in-operator-on-list.
// The test cases compile through the real pipeline (Compile with require_bool_result) in the
// environment the golden test uses (StoredExpressions unless it says NewExpressions).
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "controller/cel/program.h"
#include "controller/core/feature_gates.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel {
namespace cost_test {
namespace {

constexpr uint64_t kCostLimit = 1000000;  // CELSelectorExpressionMaxCost

struct Golden {
  const char* name;  // the test case's name in compile_test.go
  const char* expression;
  uint64_t cost;
  ExpressionMode mode = ExpressionMode::kStoredExpression;
  bool consumable_capacity = false;
};

// The estimate with limits off, so that over-the-limit expressions still report their cost.
absl::StatusOr<CostEstimate> Estimate(const std::string& expression, KubeVersion version,
                                      ExpressionMode mode, bool consumable_capacity = false) {
  CompileOptions options;
  options.require_bool_result = true;
  options.enforce_limits = false;
  FeatureGates gates(version);
  gates.Set(kDRAConsumableCapacity, consumable_capacity);
  absl::StatusOr<std::shared_ptr<const Program>> program =
      Compile(expression, Environment::ForDeviceSelectors(version, mode, gates), options);
  if (!program.ok()) return program.status();
  return (*program)->cost();
}

const std::vector<Golden>& GoldenCosts() {
  static const auto* const kCases = new std::vector<Golden>{
      {"true", "true", 0},
      {"false", "false", 0},
      {"runtime-error-lookup-identifier",
       R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))", 6},
      {"runtime-error-lookup-map",
       R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))", 6},
      {"domain-check-negative", R"("no-such-domain" in device.attributes)", 3},
      {"domain-check-positive", R"("dra.example.com" in device.attributes)", 3},
      {"empty-driver-name", R"(device.driver == "")", 2},
      {"real-driver-name", R"(device.driver == "dra.example.com")", 4},
      {"driver-name-qualifier", R"(device.attributes["dra.example.com"].name)", 4},
      {"driver-name-qualifier-map-lookup", R"(device.attributes["dra.example.com"]["name"])", 4},
      {"bind", R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", 15},
      {"qualified-attribute-name", R"(device.attributes["other.example.com"].name)", 4},
      {"bool", R"(device.attributes["dra.example.com"].name)", 4},
      {"int", R"(device.attributes["dra.example.com"].name > 0)", 5},
      {"string", R"(device.attributes["dra.example.com"].name == "fish")", 5},
      {"attribute-access-causes-match-error", R"(device.attributes["dra.example.com"].names)", 4},
      {"version",
       R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))", 6},
      {"version_v",
       R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && )"
       R"(isSemver("v1.0.0", true))",
       7},
      {"quantity",
       R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))", 6},
      {"check-positive",
       R"("name" in device.capacity["dra.example.com"] && )"
       R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       10},
      {"check-negative",
       R"(!("name" in device.capacity["dra.example.com"]) || )"
       R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       11},
      {"all", R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
       52},
      {"many",
       R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && )"
       R"(device.attributes["dra.example.com"].c)",
       12},
      {"check_attribute_domains", R"(device.attributes.exists_one(x, x == "dra.example.com"))",
       164},
      {"check_attribute_ids",
       R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))", 133},
      {"split_attribute",
       R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)", 19},
      {"regexp_attribute", R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
       18},
      {"check_capacity_domains", R"(device.capacity.exists_one(x, x == "dra.example.com"))", 164},
      {"check_capacity_ids", R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))",
       133},
      {"expensive",
       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
       85555551},
      {"allow_multiple_allocations", "device.allowMultipleAllocations == true", 3,
       ExpressionMode::kStoredExpression, true},
      {"allow_multiple_allocations_default", "device.allowMultipleAllocations == false", 3,
       ExpressionMode::kStoredExpression, true},
      {"allow_multiple_allocations_false", "device.allowMultipleAllocations == false", 3,
       ExpressionMode::kStoredExpression, true},
      {"allow_multiple_allocations_new", "device.allowMultipleAllocations == false", 3,
       ExpressionMode::kNewExpression, true},
      {"allow_multiple_allocations_enabled", "device.allowMultipleAllocations == false", 3,
       ExpressionMode::kNewExpression, true},
  };
  return *kCases;
}

class GoldenCostTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenCostTest, MatchesKubernetes) {
  const Golden& g = GetParam();
  absl::StatusOr<CostEstimate> cost =
      Estimate(g.expression, KubeVersion::Newest(), g.mode, g.consumable_capacity);
  ASSERT_OK(cost);
  EXPECT_EQ(cost->max, g.cost) << g.expression;
  EXPECT_LE(cost->min, cost->max);
}

INSTANTIATE_TEST_SUITE_P(DynamicResourceAllocation, GoldenCostTest,
                         ::testing::ValuesIn(GoldenCosts()),
                         [](const ::testing::TestParamInfo<Golden>& param_info) {
                           std::string name = param_info.param.name;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(CostTest, OverTheLimitIsRejectedAsTooComplex) {
  CompileOptions options;
  options.require_bool_result = true;
  const Golden* expensive = nullptr;
  for (const Golden& g : GoldenCosts()) {
    if (std::string(g.name) == "expensive") expensive = &g;
  }
  ASSERT_NE(expensive, nullptr);
  absl::StatusOr<std::shared_ptr<const Program>> program =
      Compile(expensive->expression,
              Environment::ForDeviceSelectors(KubeVersion::Newest(),
                                              ExpressionMode::kStoredExpression),
              options);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(program.status().message().find("too complex"), std::string::npos)
      << program.status();
}

// Kubernetes 1.32.0-1.32.2 had no DRA size estimator (kubernetes#129523, fixed in 1.32.3):
// attribute strings were of unknown length, so string functions on them looked unbounded.
const char* const kStringFunctionSelectors[] = {
    R"(device.attributes["gpu.nvidia.com"].productName.lowerAscii().matches("^.*a100.*$"))",
    R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
    R"(device.attributes.exists_one(x, x == "dra.example.com"))",
    R"(device.attributes["dra.example.com"].a == device.attributes["dra.example.com"].b)",
};

TEST(CostTest, StringFunctionsOnAttributesAreTooComplexOn1320To1322) {
  for (int patch : {0, 1, 2}) {
    for (const char* expression : kStringFunctionSelectors) {
      absl::StatusOr<CostEstimate> cost =
          Estimate(expression, KubeVersion{32, patch}, ExpressionMode::kNewExpression);
      ASSERT_OK(cost);
      EXPECT_GT(cost->max, kCostLimit) << "1.32." << patch << ": " << expression;
    }
  }
  CompileOptions options;
  options.require_bool_result = true;
  absl::StatusOr<std::shared_ptr<const Program>> program = Compile(
      kStringFunctionSelectors[0],
      Environment::ForDeviceSelectors(KubeVersion{32, 1}, ExpressionMode::kNewExpression),
      options);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(CostTest, StringFunctionsOnAttributesPassFrom1323) {
  for (KubeVersion v : {KubeVersion{32, 3}, KubeVersion{33, KubeVersion::kLatestPatch},
                        KubeVersion::Newest()}) {
    for (const char* expression : kStringFunctionSelectors) {
      absl::StatusOr<CostEstimate> cost =
          Estimate(expression, v, ExpressionMode::kNewExpression);
      ASSERT_OK(cost);
      EXPECT_LE(cost->max, kCostLimit) << v.ToString() << ": " << expression;
    }
  }
  // productName: 4, lowerAscii: ceil(64 * 0.1) = 7, matches: ceil(65 * 0.1) * ceil(10 * 0.25).
  absl::StatusOr<CostEstimate> cost = Estimate(kStringFunctionSelectors[0], KubeVersion{32, 3},
                                               ExpressionMode::kNewExpression);
  ASSERT_OK(cost);
  EXPECT_EQ(cost->max, 4u + 7u + 7u * 3u);
}

TEST(CostTest, TypicalProfileSelectorsAreCheapOnEveryVersion) {
  struct Case {
    const char* expression;
    uint64_t cost;
  };
  const Case cases[] = {
      {"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
       9},
      {"'memory' in device.capacity['gpu.nvidia.com'] && "
       "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
       11},
      {"'cudaComputeCapability' in device.attributes['gpu.nvidia.com'] && "
       "device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo(semver('8.0.0')) >= 0",
       11},
      {"device.attributes['gpu.nvidia.com'].productName in ['NVIDIA A100', 'NVIDIA H100']", 16},
      {"cel.bind(nv, device.attributes['gpu.nvidia.com'], "
       "nv.type == 'gpu' && nv.architecture == 'Ampere')",
       19},
  };
  std::vector<KubeVersion> versions = {KubeVersion{32, 0}, KubeVersion{32, 1}, KubeVersion{32, 2},
                                       KubeVersion{32, 3}};
  for (int minor = 33; minor <= KubeVersion::kNewestMinor; ++minor) {
    versions.push_back(KubeVersion{minor, KubeVersion::kLatestPatch});
  }
  for (const Case& c : cases) {
    for (const KubeVersion& v : versions) {
      for (ExpressionMode mode :
           {ExpressionMode::kNewExpression, ExpressionMode::kStoredExpression}) {
        absl::StatusOr<CostEstimate> cost = Estimate(c.expression, v, mode);
        ASSERT_OK(cost) << v.ToString() << ": " << c.expression;
        EXPECT_EQ(cost->max, c.cost) << v.ToString() << ": " << c.expression;
      }
    }
  }
}

// Derived from the ported rules, not from a Kubernetes golden value: quantities have no size
// estimate, so `==` on them is costed as a traversal of unknown length. compareTo() is cheap.
TEST(CostTest, QuantityEqualityIsUnboundedButCompareToIsCheap) {
  absl::StatusOr<CostEstimate> eq =
      Estimate("device.capacity['gpu.nvidia.com'].memory == quantity('40Gi')",
               KubeVersion::Newest(), ExpressionMode::kNewExpression);
  ASSERT_OK(eq);
  EXPECT_GT(eq->max, kCostLimit);
  absl::StatusOr<CostEstimate> cmp =
      Estimate("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) == 0",
               KubeVersion::Newest(), ExpressionMode::kNewExpression);
  ASSERT_OK(cmp);
  EXPECT_EQ(cmp->max, 7u);
}

TEST(CostTest, StringCostsFollowSizes) {
  struct Case {
    const char* expression;
    uint64_t cost;
  };
  const Case cases[] = {
      // Equality: ceil(0.1 * the shorter operand); the attribute is at most 64 characters.
      {"device.attributes['d'].s == 'x'", 5},
      {"device.attributes['d'].s == ''", 4},
      // startsWith: ceil(0.1 * size(prefix)); contains: ceil(0.1 * 64) * ceil(0.1 * 12).
      {"device.attributes['d'].s.startsWith('NVIDIA-A100-')", 4 + 2},
      {"device.attributes['d'].s.contains('NVIDIA-A100-')", 4 + 7 * 2},
      // Concatenation of two literals: ceil(0.1 * 6), then equality with 6 characters: 1.
      {"'abc' + 'def' == device.driver", 1 + 2 + 1},
      // List membership: the list's size.
      {"device.driver in ['a', 'b', 'c']", 2 + 10 + 3},
      // Map literal base cost 30.
      {"device.driver in {'a': 1}", 2 + 30 + 1},
      // has() costs 1 plus its operand.
      {"has(device.attributes.d)", 1 + 2},
      // dyn() costs 1 plus its argument.
      {"dyn(device.driver) == ''", 1 + 2},
      // Conditionals pay the condition and the dearer branch.
      {"device.driver == '' ? device.attributes['d'].s.startsWith('abcdefghijk') : true",
       2 + 4 + 2},
  };
  for (const Case& c : cases) {
    absl::StatusOr<CostEstimate> cost =
        Estimate(c.expression, KubeVersion::Newest(), ExpressionMode::kNewExpression);
    ASSERT_OK(cost) << c.expression;
    EXPECT_EQ(cost->max, c.cost) << c.expression;
  }
}

TEST(CostTest, ShortCircuitLowersTheMinimum) {
  absl::StatusOr<CostEstimate> cost =
      Estimate("device.driver == '' || device.attributes['d'].s.matches('a.*b')",
               KubeVersion::Newest(), ExpressionMode::kNewExpression);
  ASSERT_OK(cost);
  EXPECT_EQ(cost->min, 2u);
  // matches: ceil(65 * 0.1) * ceil(4 * 0.25) = 7, plus the receiver (4).
  EXPECT_EQ(cost->max, 2u + 4u + 7u);
}

}  // namespace
}  // namespace cost_test
}  // namespace gpuprofile::cel
