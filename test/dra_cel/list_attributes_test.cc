// File: test/dra_cel/list_attributes_test.cc
// List-typed attributes (DRAListTypeAttributes) and values of unknown kinds in the CEL `device`
// variable, against the scheduler's behaviour (dynamic-resource-allocation cel/compile.go):
// lists are CEL lists that `includes()`, `in` and the macros read; a device the scheduler cannot
// turn into a value (an opaque attribute, or a list on a release whose scheduler reads none)
// fails every selector with "attribute <name>: unsupported attribute value";
// device.allowMultipleAllocations reads the device's field.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/core/feature_gates.h"
#include "controller/dra/device.h"
#include "controller/dra_cel/device_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel {
namespace list_attributes_test {
namespace {

using dra::AttributeValue;
using Kind = dra::AttributeValue::Kind;

constexpr char kNuma[] = "device.attributes['resource.kubernetes.io'].numaNode";
constexpr char kNv[] = "device.attributes['gpu.nvidia.com']";

FeatureGates Gates(const std::string& version, const std::string& overrides = "") {
  KubeVersion v = *KubeVersion::Parse(version);
  absl::StatusOr<FeatureGates> g = FeatureGates::Parse(v, overrides);
  EXPECT_OK(g);
  return g.ok() ? *g : FeatureGates(v);
}

// Builds a list attribute (DeviceBuilder copies the items).
AttributeValue ListOf(Kind element, const std::vector<AttributeValue>& items) {
  return AttributeValue::List(element, items);
}

dra::DeviceBuilder Gpu() {
  dra::DeviceBuilder b("gpu-0");
  b.Driver("gpu.nvidia.com").Pool("node-1", 0).Node("node-1");
  b.Attribute("type", AttributeValue::String("gpu"));
  return b;
}

dra::Device GpuWithNumaList(std::vector<int64_t> nodes) {
  std::vector<AttributeValue> items;
  for (int64_t n : nodes) items.push_back(AttributeValue::Int(n));
  dra::DeviceBuilder b = Gpu();
  b.Attribute("resource.kubernetes.io/numaNode", ListOf(Kind::kIntList, items));
  return b.Build();
}

// Compiles as a new expression with `gates` and evaluates on `device` as that release's
// scheduler would.
Value Eval(const std::string& expr, const dra::Device& device, const FeatureGates& gates) {
  CompileOptions options;
  options.require_bool_result = true;
  auto program = Compile(
      expr,
      Environment::ForDeviceSelectors(gates.version(), ExpressionMode::kNewExpression, gates),
      options);
  if (!program.ok()) return Value::Error("COMPILE: " + std::string(program.status().message()));
  return (*program)->Evaluate({MakeDeviceValue(device, DeviceValueOptions::For(gates))});
}

TEST(ListAttributesTest, NumaNodeListWithTheGateOn) {
  const dra::Device d = GpuWithNumaList({0});
  for (const char* version : {"1.36", "1.37"}) {
    FeatureGates on = Gates(version, "DRAListTypeAttributes=true");
    EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".includes(0)"), d, on).IsTrue()) << version;
    EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".includes(1)"), d, on).IsFalse()) << version;
    EXPECT_TRUE(Eval(absl::StrCat("0 in ", kNuma), d, on).IsTrue()) << version;
    EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".exists(n, n == 0)"), d, on).IsTrue()) << version;
    EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".size() == 1"), d, on).IsTrue()) << version;
    EXPECT_TRUE(Eval(absl::StrCat(kNuma, " == [0]"), d, on).IsTrue()) << version;
  }
}

TEST(ListAttributesTest, IncludesAlsoReadsScalarAttributes) {
  // Drivers that publish numaNode as an int keep working with includes().
  dra::DeviceBuilder b = Gpu();
  b.Attribute("resource.kubernetes.io/numaNode", AttributeValue::Int(1));
  FeatureGates on = Gates("1.36", "DRAListTypeAttributes=true");
  EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".includes(1)"), b.Build(), on).IsTrue());
  EXPECT_TRUE(Eval(absl::StrCat(kNuma, ".includes(0)"), b.Build(), on).IsFalse());
}

TEST(ListAttributesTest, IncludesLimitOnADeviceList) {
  auto device = [](int n) {
    std::vector<std::string> texts;
    for (int i = 0; i < n; ++i) texts.push_back(absl::StrCat("value-", i));
    std::vector<AttributeValue> items;
    for (const std::string& t : texts) items.push_back(AttributeValue::String(t));
    dra::DeviceBuilder b = Gpu();
    b.Attribute("name", ListOf(Kind::kStringList, items));  // copied before texts go
    return b.Build();
  };
  FeatureGates on = Gates("1.37", "DRAListTypeAttributes=true");
  const std::string find48 = absl::StrCat(kNv, ".name.includes('value-48')");
  EXPECT_TRUE(Eval(find48, device(48), on).IsFalse());
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".name.includes('value-47')"), device(48), on).IsTrue());
  Value over = Eval(absl::StrCat(kNv, ".name.includes('value-49')"), device(49), on);
  ASSERT_TRUE(over.is_error()) << over.DebugString();
  EXPECT_EQ(over.error_message(),
            "'includes' function cannot be applied to lists longer than 48 values");
}

TEST(ListAttributesTest, VersionListsAreSemverLists) {
  std::vector<AttributeValue> items = {AttributeValue::Version("1.0.0"),
                                       AttributeValue::Version("2.1.0")};
  dra::DeviceBuilder b = Gpu();
  b.Attribute("cudaVersions", ListOf(Kind::kVersionList, items));
  FeatureGates on = Gates("1.36", "DRAListTypeAttributes=true");
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".cudaVersions.exists(v, v.isGreaterThan(semver('2.0.0')))"),
                   b.Build(), on)
                  .IsTrue());
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".cudaVersions.includes(semver('1.0.0'))"), b.Build(), on)
                  .IsTrue());
  // A text that is not semver fails the attribute, naming it, as for a scalar version.
  std::vector<AttributeValue> bad = {AttributeValue::Version("1.0")};
  dra::DeviceBuilder c = Gpu();
  c.Attribute("cudaVersions", ListOf(Kind::kVersionList, bad));
  Value v = Eval(absl::StrCat(kNv, ".cudaVersions.size() == 1"), c.Build(), on);
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "attribute cudaVersions: invalid semantic version \"1.0\"");
}

TEST(ListAttributesTest, OtherListKinds) {
  std::vector<AttributeValue> bools = {AttributeValue::Bool(false), AttributeValue::Bool(true)};
  dra::DeviceBuilder b = Gpu();
  b.Attribute("flags", ListOf(Kind::kBoolList, bools));
  FeatureGates on = Gates("1.36", "DRAListTypeAttributes=true");
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".flags.includes(true)"), b.Build(), on).IsTrue());
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".flags.all(f, f)"), b.Build(), on).IsFalse());
}

TEST(ListAttributesTest, ListOn136WithoutTheGateFailsTheWholeDevice) {
  // 1.36's scheduler reads list values only with DRAListTypeAttributes; it fails every
  // selector on such a device, also those that do not read the attribute.
  const dra::Device d = GpuWithNumaList({0});
  const char* kError = "attribute resource.kubernetes.io/numaNode: unsupported attribute value";
  for (const char* version : {"1.35", "1.36"}) {
    FeatureGates defaults = Gates(version);
    Value v = Eval(absl::StrCat(kNv, ".type == 'gpu'"), d, defaults);
    ASSERT_TRUE(v.is_error()) << version << ": " << v.DebugString();
    EXPECT_EQ(v.error_message(), kError) << version;
    EXPECT_EQ(UnsupportedAttributeError(d, DeviceValueOptions::For(defaults)), kError);
  }
  // 1.37 reads lists whatever the gate; a new expression there may still not iterate them.
  FeatureGates v137 = Gates("1.37");
  EXPECT_TRUE(Eval(absl::StrCat(kNv, ".type == 'gpu'"), d, v137).IsTrue());
  EXPECT_TRUE(Eval(absl::StrCat("0 in ", kNuma), d, v137).IsTrue());
  EXPECT_EQ(UnsupportedAttributeError(d, DeviceValueOptions::For(v137)), std::nullopt);
}

TEST(ListAttributesTest, OpaqueAttributeFailsEverySelectorNamingIt) {
  dra::DeviceBuilder b = Gpu();
  b.Attribute("resource.kubernetes.io/future", AttributeValue::Opaque("{\"floats\":[0.5]}"));
  const dra::Device d = b.Build();
  const char* kError = "attribute resource.kubernetes.io/future: unsupported attribute value";
  for (const char* version : {"1.34", "1.36", "1.37"}) {
    Value v = Eval(absl::StrCat(kNv, ".type == 'gpu'"), d, Gates(version));
    ASSERT_TRUE(v.is_error()) << version;
    EXPECT_EQ(v.error_message(), kError) << version;
    Value reads = Eval("device.attributes['resource.kubernetes.io'].future == 1", d,
                       Gates(version));
    ASSERT_TRUE(reads.is_error()) << version;
    EXPECT_EQ(reads.error_message(), kError) << version;
  }
  EXPECT_EQ(UnsupportedAttributeError(d), kError);
  EXPECT_EQ(UnsupportedAttributeError(Gpu().Build()), std::nullopt);
}

TEST(ListAttributesTest, AllowMultipleAllocationsReadsTheDevice) {
  dra::DeviceBuilder shared = Gpu();
  shared.AllowMultipleAllocations();
  const char* expr = "device.allowMultipleAllocations";
  EXPECT_TRUE(Eval(expr, shared.Build(), Gates("1.36")).IsTrue());
  EXPECT_TRUE(Eval(expr, Gpu().Build(), Gates("1.36")).IsFalse());  // unset reads false
  EXPECT_TRUE(
      Eval(expr, shared.Build(), Gates("1.34", "DRAConsumableCapacity=true")).IsTrue());
  Value rejected = Eval(expr, shared.Build(), Gates("1.35"));
  ASSERT_TRUE(rejected.is_error());
  EXPECT_THAT(std::string(rejected.error_message()),
              ::testing::HasSubstr("COMPILE: ERROR: <input>:1:7: undefined field"));
}

TEST(ListAttributesTest, BuilderSharesListsAcrossDevicesWithoutMixingThem) {
  DeviceValueBuilder builder(DeviceValueOptions::For(Gates("1.37")));
  const dra::Device zero = GpuWithNumaList({0});
  const dra::Device one = GpuWithNumaList({1});
  auto program = Compile(absl::StrCat("0 in ", kNuma),
                         Environment::ForDeviceSelectors(*KubeVersion::Parse("1.37")));
  ASSERT_OK(program);
  EXPECT_TRUE((*program)->Evaluate({builder.Build(zero)}).IsTrue());
  EXPECT_TRUE((*program)->Evaluate({builder.Build(one)}).IsFalse());
  EXPECT_TRUE((*program)->Evaluate({builder.Build(zero)}).IsTrue());
}

}  // namespace
}  // namespace list_attributes_test
}  // namespace gpuprofile::cel
