// File: test/profile/selector_compiler_test.cc
#include "controller/profile/selector_compiler.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra_cel/device_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::profile {
namespace selector_compiler_test {
namespace {

using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::LoadInventory;
using ::gpuprofile::profile::testing::Q;
using ::gpuprofile::profile::testing::V;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGuard[] =
    "device.driver == 'gpu.nvidia.com' && 'type' in device.attributes['gpu.nvidia.com'] && "
    "device.attributes['gpu.nvidia.com'].type == 'gpu'";

KubeVersion Version(const std::string& text) { return *KubeVersion::Parse(text); }

// The story's fine-tuning profile with every structured term.
api::GpuProfileSpec StorySpec() {
  api::GpuProfileSpec spec = DefaultSpec("large-memory");
  spec.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  spec.selector.product_names = {"NVIDIA A100-SXM4-40GB", "NVIDIA L40S"};
  spec.selector.architectures = {"Ampere", "Ada Lovelace", "Hopper"};
  spec.selector.compute_capability = api::VersionRange{V("8.0"), std::nullopt};
  spec.selector.driver_version = api::VersionRange{V("550.0"), V("580.95.05")};
  spec.selector.cuda_driver_version = api::VersionRange{V("12.4"), std::nullopt};
  return spec;
}

TEST(SelectorCompilerTest, DefaultProfileIsTheGuardOnly) {
  ASSERT_OK_AND_ASSIGN(CompiledSelectors compiled,
                       CompileSelectors(DefaultSpec(), Version("1.34")));
  EXPECT_THAT(compiled.Expressions(), ElementsAre(kGuard));
  EXPECT_EQ(compiled.terms[0].field, "spec.driver");
}

TEST(SelectorCompilerTest, StructuredTermsCompileToGuardedTypedCel) {
  ASSERT_OK_AND_ASSIGN(CompiledSelectors compiled, CompileSelectors(StorySpec(), Version("1.32")));
  EXPECT_THAT(
      compiled.Expressions(),
      ElementsAre(
          kGuard,
          "'memory' in device.capacity['gpu.nvidia.com'] && "
          "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
          "'productName' in device.attributes['gpu.nvidia.com'] && "
          "device.attributes['gpu.nvidia.com'].productName in ['NVIDIA A100-SXM4-40GB', "
          "'NVIDIA L40S']",
          "'architecture' in device.attributes['gpu.nvidia.com'] && "
          "device.attributes['gpu.nvidia.com'].architecture in ['Ampere', 'Ada Lovelace', "
          "'Hopper']",
          "'cudaComputeCapability' in device.attributes['gpu.nvidia.com'] && "
          "device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo("
          "semver('8.0.0')) >= 0",
          "'driverVersion' in device.attributes['gpu.nvidia.com'] && "
          "device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.0.0')) >= 0 "
          "&& device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('580.95.5')) "
          "<= 0",
          "'cudaDriverVersion' in device.attributes['gpu.nvidia.com'] && "
          "device.attributes['gpu.nvidia.com'].cudaDriverVersion.compareTo(semver('12.4.0')) "
          ">= 0"));
  EXPECT_EQ(compiled.terms[1].field, "spec.selector.memory");
  EXPECT_EQ(compiled.terms[6].field, "spec.selector.cudaDriverVersion");
}

TEST(SelectorCompilerTest, AttributeTermsPerOperatorAndType) {
  api::GpuProfileSpec spec = DefaultSpec();
  using Op = api::AttributeTerm::Operator;
  using T = api::AttributeTerm::ValueType;
  spec.selector.attributes = {
      {"resource.kubernetes.io/pcieRoot", Op::kExists, T::kString, {}},
      {"brand", Op::kIn, T::kString, {"Nvidia", "Tesla"}},
      {"brand", Op::kNotIn, T::kString, {"GeForce"}},
      {"index", Op::kDoesNotExist, T::kString, {}},
      {"numa", Op::kIn, T::kInt, {"0", "1"}},
      {"numa", Op::kGe, T::kInt, {"1"}},
      {"iommuFDEnabled", Op::kIn, T::kBool, {"true"}},
      {"cudaDriverVersion", Op::kLt, T::kVersion, {"13.0.0"}},
      {"driverVersion", Op::kIn, T::kVersion, {"550.127.8", "570.133.20"}},
      {"in", Op::kIn, T::kString, {"x"}},
  };
  ASSERT_OK_AND_ASSIGN(CompiledSelectors compiled, CompileSelectors(spec, Version("1.32.0")));
  const std::string a = "device.attributes['gpu.nvidia.com']";
  const std::vector<std::string> expressions = compiled.Expressions();
  EXPECT_THAT(
      std::vector<std::string>(expressions.begin() + 1, expressions.end()),
      ElementsAre("'pcieRoot' in device.attributes['resource.kubernetes.io']",
                  absl::StrCat("'brand' in ", a, " && ", a, ".brand in ['Nvidia', 'Tesla']"),
                  absl::StrCat("'brand' in ", a, " && !(", a, ".brand in ['GeForce'])"),
                  absl::StrCat("!('index' in ", a, ")"),
                  absl::StrCat("'numa' in ", a, " && (", a, ".numa == 0 || ", a, ".numa == 1)"),
                  absl::StrCat("'numa' in ", a, " && ", a, ".numa >= 1"),
                  absl::StrCat("'iommuFDEnabled' in ", a, " && ", a, ".iommuFDEnabled == true"),
                  absl::StrCat("'cudaDriverVersion' in ", a, " && ", a,
                               ".cudaDriverVersion.compareTo(semver('13.0.0')) < 0"),
                  absl::StrCat("'driverVersion' in ", a, " && (", a,
                               ".driverVersion.compareTo(semver('550.127.8')) == 0 || ", a,
                               ".driverVersion.compareTo(semver('570.133.20')) == 0)"),
                  absl::StrCat("'in' in ", a, " && ", a, "['in'] in ['x']")));
}

TEST(SelectorCompilerTest, CapacityTermsAndQuotedLiterals) {
  api::GpuProfileSpec spec = DefaultSpec();
  spec.device_type = "mig";
  spec.selector.capacity = {{"multiprocessors", {Q("14"), Q("28")}}};
  spec.selector.product_names = {"it's \\ odd"};
  ASSERT_OK_AND_ASSIGN(CompiledSelectors compiled, CompileSelectors(spec, Version("1.33")));
  EXPECT_THAT(compiled.Expressions(),
              ElementsAre(HasSubstr(".type == 'mig'"), HasSubstr("in ['it\\'s \\\\ odd']"),
                          "'multiprocessors' in device.capacity['gpu.nvidia.com'] && "
                          "device.capacity['gpu.nvidia.com'].multiprocessors.compareTo("
                          "quantity('14')) >= 0 && device.capacity['gpu.nvidia.com']."
                          "multiprocessors.compareTo(quantity('28')) <= 0"));
}

TEST(SelectorCompilerTest, OtherDriversUseTheirOwnAttributes) {
  api::GpuProfileSpec amd = DefaultSpec();
  amd.driver = "gpu.amd.com";
  amd.selector.product_names = {"AMD Instinct MI300X"};
  amd.selector.driver_version = api::VersionRange{V("6.8"), std::nullopt};
  ASSERT_OK_AND_ASSIGN(CompiledSelectors compiled, CompileSelectors(amd, Version("1.34")));
  EXPECT_THAT(compiled.Expressions(),
              ElementsAre(HasSubstr("device.attributes['gpu.amd.com'].type == 'amdgpu'"),
                          HasSubstr("device.attributes['gpu.amd.com'].productName in"),
                          HasSubstr("driverVersion.compareTo(semver('6.8.0')) >= 0")));

  api::GpuProfileSpec example = DefaultSpec();
  example.driver = "gpu.example.com";
  example.selector.product_names = {"LATEST-GPU-MODEL"};
  ASSERT_OK_AND_ASSIGN(compiled, CompileSelectors(example, Version("1.34")));
  EXPECT_THAT(compiled.Expressions(),
              ElementsAre("device.driver == 'gpu.example.com'",
                          HasSubstr("device.attributes['gpu.example.com'].model in")));
}

TEST(SelectorCompilerTest, TermsADriverCannotExpressAreRejectedNamingTermAndDriver) {
  api::GpuProfileSpec amd = DefaultSpec();
  amd.driver = "gpu.amd.com";
  amd.selector.compute_capability = api::VersionRange{V("8.0"), std::nullopt};
  amd.selector.architectures = {"CDNA3"};
  absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(amd, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.selector.computeCapability: driver gpu.amd.com publishes no "
                        "attribute for computeCapability"));
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.selector.architectures: driver gpu.amd.com"));

  api::GpuProfileSpec unknown = DefaultSpec();
  unknown.driver = "tpu.example.org";
  unknown.selector.product_names = {"x"};
  compiled = CompileSelectors(unknown, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.selector.productNames: driver tpu.example.org (not one the "
                        "operator knows"));
}

TEST(SelectorCompilerTest, DeviceTypeIsCheckedAgainstTheDriver) {
  api::GpuProfileSpec spec = DefaultSpec();
  spec.device_type = "tpu";
  absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(spec, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.deviceType: driver gpu.nvidia.com has no device type \"tpu\" "
                        "(it publishes gpu, mig, vfio)"));

  spec = DefaultSpec();
  spec.driver = "gpu.example.com";
  spec.device_type = "gpu";
  compiled = CompileSelectors(spec, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.deviceType: driver gpu.example.com publishes no device-type "
                        "attribute"));
}

TEST(SelectorCompilerTest, RawCelIsCheckedForTheTargetVersion) {
  api::GpuProfileSpec spec = DefaultSpec();
  spec.selector.cel = {
      "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$')"};
  // Rejected as too complex on 1.32.0-1.32.2 (kubernetes#129523), accepted from 1.32.3.
  absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(spec, Version("1.32.0"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.selector.cel[0]: Kubernetes 1.32.0 would reject this expression: too "
                        "complex"));
  EXPECT_OK(CompileSelectors(spec, Version("1.32.3")));

  // The normalising semver form is accepted for new expressions only from 1.34.
  spec.selector.cel = {
      "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan("
      "semver('550.0', true))"};
  EXPECT_FALSE(CompileSelectors(spec, Version("1.33")).ok());
  EXPECT_OK(CompileSelectors(spec, Version("1.34")));

  spec.selector.cel = {"device.attributes['gpu.nvidia.com'].memory +", "1"};
  compiled = CompileSelectors(spec, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("spec.selector.cel[0]: "));
  EXPECT_THAT(compiled.status().message(), HasSubstr("spec.selector.cel[1]: "));
}

TEST(SelectorCompilerTest, TooManySelectorsForOneClass) {
  api::GpuProfileSpec spec = DefaultSpec();
  for (int i = 0; i < 32; ++i) spec.selector.cel.push_back("true");
  absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(spec, Version("1.34"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("spec.selector: the profile compiles to 33 selectors; a DeviceClass "
                        "holds at most 32"));
}

// Every generated selector is accepted by every supported version and, evaluated on its own
// (no guard before it), raises no runtime error on any device of any driver.
TEST(SelectorCompilerTest, GeneratedSelectorsAreAcceptedAndNeverRaiseErrors) {
  std::vector<dra::Device> all;
  for (const char* path :
       {testing::kMixedFleet, testing::kSampleFleet, "config/samples/fleet-v1beta1"}) {
    dra::Inventory inventory = LoadInventory({path});
    all.insert(all.end(), inventory.devices().begin(), inventory.devices().end());
  }
  ASSERT_GT(all.size(), 20u);
  using Op = api::AttributeTerm::Operator;
  using T = api::AttributeTerm::ValueType;
  std::vector<api::GpuProfileSpec> specs = {DefaultSpec(), StorySpec()};
  api::GpuProfileSpec attrs = DefaultSpec();
  attrs.selector.attributes = {
      {"resource.kubernetes.io/pcieRoot", Op::kExists, T::kString, {}},
      {"brand", Op::kNotIn, T::kString, {"GeForce"}},
      {"cudaDriverVersion", Op::kGe, T::kVersion, {"12.4.0"}},
      {"driverVersion", Op::kIn, T::kVersion, {"550.127.8"}},
  };
  attrs.selector.capacity = {{"multiprocessors", {Q("1"), std::nullopt}}};
  specs.push_back(attrs);
  api::GpuProfileSpec mig = DefaultSpec();
  mig.device_type = "mig";
  mig.selector.memory = api::QuantityRange{std::nullopt, Q("10Gi")};
  specs.push_back(mig);
  api::GpuProfileSpec amd = DefaultSpec();
  amd.driver = "gpu.amd.com";
  amd.selector.memory = api::QuantityRange{Q("100Gi"), std::nullopt};
  amd.selector.driver_version = api::VersionRange{V("6"), std::nullopt};
  amd.selector.attributes = {{"cardIndex", Op::kLe, T::kInt, {"4"}}};
  specs.push_back(amd);
  api::GpuProfileSpec intel = DefaultSpec();
  intel.driver = "gpu.intel.com";
  intel.selector.product_names = {"Flex 170"};
  intel.selector.attributes = {{"sriov", Op::kIn, T::kBool, {"true"}}};
  specs.push_back(intel);
  api::GpuProfileSpec example = DefaultSpec();
  example.driver = "gpu.example.com";
  example.selector.driver_version = api::VersionRange{V("1.0"), std::nullopt};
  specs.push_back(example);

  cel::DeviceValueBuilder builder;
  std::vector<cel::Value> devices;
  for (const dra::Device& d : all) devices.push_back(builder.Build(d));
  for (const std::string version : {"1.32.0", "1.32.3", "1.33", "1.34", "1.35", "1.36"}) {
    for (size_t s = 0; s < specs.size(); ++s) {
      absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(specs[s], Version(version));
      ASSERT_OK(compiled) << "spec " << s << " on " << version;
      for (const SelectorTerm& term : compiled->terms) {
        for (size_t d = 0; d < devices.size(); ++d) {
          const cel::Value result = term.program->Evaluate({devices[d]});
          EXPECT_TRUE(result.is_bool()) << version << " " << term.expression << " on "
                                        << all[d].name() << ": " << result.DebugString();
        }
      }
    }
  }
}

// Profiles compiled with one SelectorPrograms (as PlanProfiles does) get exactly what each
// compiled alone gets, errors included, and an expression two profiles share is compiled once.
TEST(SelectorCompilerTest, SharedProgramsCompileWhatEachProfileAloneDoes) {
  std::vector<api::GpuProfileSpec> specs = testing::VariedSpecs();
  api::GpuProfileSpec bad = DefaultSpec();
  bad.selector.cel = {"device.attributes['gpu.nvidia.com'].memory +", "1"};
  specs.push_back(bad);
  specs.push_back(bad);
  specs.push_back(specs.front());
  const FeatureGates gates(*KubeVersion::Parse("1.34"));
  SelectorPrograms shared(gates);
  std::map<std::string, const cel::Program*> program_of;
  int shared_expressions = 0;
  for (const api::GpuProfileSpec& spec : specs) {
    const absl::StatusOr<CompiledSelectors> alone = CompileSelectors(spec, gates);
    const absl::StatusOr<CompiledSelectors> with_shared = CompileSelectors(spec, &shared);
    ASSERT_EQ(alone.status(), with_shared.status());
    if (!alone.ok()) continue;
    ASSERT_EQ(alone->Expressions(), with_shared->Expressions());
    for (size_t i = 0; i < alone->terms.size(); ++i) {
      EXPECT_EQ(alone->terms[i].field, with_shared->terms[i].field);
      const SelectorTerm& term = with_shared->terms[i];
      auto [it, inserted] = program_of.emplace(term.expression, term.program.get());
      if (!inserted) {
        ++shared_expressions;
        EXPECT_EQ(it->second, term.program.get()) << term.expression;
      }
    }
  }
  EXPECT_GT(shared_expressions, 0);
}

}  // namespace
}  // namespace selector_compiler_test
}  // namespace gpuprofile::profile
