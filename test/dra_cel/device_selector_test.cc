// File: test/dra_cel/device_selector_test.cc
// DRA device selectors against realistic NVIDIA devices: Kubernetes' runtime semantics
// (no such key, unknown domain = empty map), version gates per Kubernetes minor, the bool
// result rule, admission limits, and Kubernetes' own DRA CEL test expectations.
#include <string>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/dra_cel/device_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel {
namespace device_selector_test {
namespace {

using ::testing::HasSubstr;

dra::AttributeValue Str(absl::string_view s) { return dra::AttributeValue::String(s); }

// A version attribute; its text need not be strict semver (ParseVersion then yields nullopt).
dra::AttributeValue Ver(absl::string_view s) { return dra::AttributeValue::Version(s); }

dra::AttributeValue Int(int64_t i) { return dra::AttributeValue::Int(i); }

dra::DeviceBuilder A100Builder() {
  dra::DeviceBuilder b("gpu-0");
  b.Driver("gpu.nvidia.com").Pool("a100-node-1", 0).Node("a100-node-1");
  b.Attribute("type", Str("gpu"));
  b.Attribute("productName", Str("NVIDIA A100-SXM4-40GB"));
  b.Attribute("architecture", Str("Ampere"));
  b.Attribute("cudaComputeCapability", Ver("8.0.0"));
  b.Attribute("driverVersion", Ver("550.127.8"));
  b.Attribute("resource.kubernetes.io/pcieRoot", Str("pci0000:00"));
  b.Attribute("index", Int(0));
  b.Capacity("memory", *Quantity::Parse("40Gi"));
  return b;
}

dra::Device A100() { return A100Builder().Build(); }

dra::Device L40S() {
  dra::DeviceBuilder b = A100Builder();
  b.Node("l40s-node-1").Pool("l40s-node-1", 0);
  b.Attribute("productName", Str("NVIDIA L40S"));
  b.Attribute("architecture", Str("Ada Lovelace"));
  b.Attribute("cudaComputeCapability", Ver("8.9.0"));
  b.Attribute("driverVersion", Ver("570.133.20"));
  b.RemoveAttribute("index");
  b.Capacity("memory", *Quantity::Parse("46068Mi"));
  return b.Build();
}

Value Select(const std::string& expr, const dra::Device& device,
             const std::string& version = "1.34") {
  CompileOptions options;
  options.require_bool_result = true;
  auto program =
      Compile(expr, Environment::ForDeviceSelectors(*KubeVersion::Parse(version)), options);
  if (!program.ok()) return Value::Error("COMPILE: " + std::string(program.status().message()));
  return (*program)->Evaluate({MakeDeviceValue(device)});
}

absl::Status CheckOn(const std::string& expr, const std::string& version) {
  CompileOptions options;
  options.require_bool_result = true;
  return Compile(expr, Environment::ForDeviceSelectors(*KubeVersion::Parse(version)), options)
      .status();
}

constexpr char kNv[] = "device.attributes['gpu.nvidia.com']";

TEST(DeviceSelectorTest, TypicalProfileSelectors) {
  std::string guard = std::string("device.driver == 'gpu.nvidia.com' && ") + kNv + ".type == 'gpu'";
  EXPECT_TRUE(Select(guard, A100()).IsTrue());
  std::string mem40 = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0";
  EXPECT_TRUE(Select(mem40, A100()).IsTrue());  // exactly 40Gi
  EXPECT_TRUE(Select(mem40, L40S()).IsTrue());
  std::string mem48 = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('48Gi')) >= 0";
  EXPECT_TRUE(Select(mem48, L40S()).IsFalse());  // 46068Mi < 48Gi
  std::string cc = std::string(kNv) + ".cudaComputeCapability.compareTo(semver('8.9.0')) >= 0";
  EXPECT_TRUE(Select(cc, A100()).IsFalse());
  EXPECT_TRUE(Select(cc, L40S()).IsTrue());
  std::string in = std::string(kNv) + ".productName in ['NVIDIA L40S', 'NVIDIA L4']";
  EXPECT_TRUE(Select(in, L40S()).IsTrue());
  EXPECT_TRUE(Select(in, A100()).IsFalse());
  EXPECT_TRUE(Select(std::string(kNv) + ".driverVersion.isGreaterThan(semver('550.0.0'))", A100())
                  .IsTrue());
}

TEST(DeviceSelectorTest, MissingAttributeIsARuntimeErrorNotFalse) {
  Value v = Select(std::string(kNv) + ".index == 0", L40S());
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "no such key: index");
  // A presence check first makes it safe.
  EXPECT_TRUE(
      Select(std::string("'index' in ") + kNv + " && " + kNv + ".index == 0", L40S()).IsFalse());
  EXPECT_TRUE(Select(std::string("has(") + kNv + ".index)", L40S()).IsFalse());
}

// A presence check and the read it guards share one lookup (MapValue::FindMemberRef); the
// results must stay those of separate lookups, whichever comes first and whichever is absent.
TEST(DeviceSelectorTest, PresenceCheckAndReadOfTheSameKey) {
  const std::string nv = kNv;
  EXPECT_TRUE(Select("'index' in " + nv + " && " + nv + ".index == 0", A100()).IsTrue());
  EXPECT_TRUE(Select(nv + ".index == 0 && 'index' in " + nv, A100()).IsTrue());
  EXPECT_TRUE(Select(nv + ".index == 0 && 'index' in " + nv, L40S()).IsFalse());
  Value v = Select("'index' in " + nv + " || " + nv + ".index == 0", L40S());
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_EQ(v.error_message(), "no such key: index");
  // An unknown domain is not a member, yet reads as an empty map.
  const std::string other = "device.attributes['other.example.com']";
  EXPECT_TRUE(Select("!('other.example.com' in device.attributes) && size(" + other + ") == 0",
                     A100())
                  .IsTrue());
  v = Select("'other.example.com' in device.attributes || " + other + ".type == 'gpu'", A100());
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_EQ(v.error_message(), "no such key: type");
  EXPECT_TRUE(Select("'gpu.nvidia.com' in device.attributes && device.attributes['gpu.nvidia.com']"
                     ".type == 'gpu'",
                     A100())
                  .IsTrue());
  // A value of the wrong type behind a present key.
  v = Select("'productName' in " + nv + " && " + nv + ".productName.compareTo(semver('1.0.0')) >= 0",
             A100());
  EXPECT_TRUE(v.is_error()) << v.DebugString();
}

// A compiled program remembers, per lookup site, where its key sat in the last device's layout
// (KeyCache). Evaluated over devices whose layouts differ (a key at another place, a key absent,
// another driver, the same keys from another builder) in every order, it must answer as a program
// that never saw another device does.
TEST(DeviceSelectorTest, LookupCachesAnswerForEveryLayout) {
  dra::DeviceBuilder mig("gpu-0-mig-1g");
  mig.Driver("gpu.nvidia.com").Pool("a100-node-1", 0).Node("a100-node-1");
  mig.Attribute("type", Str("mig"));
  mig.Attribute("profile", Str("1g.5gb"));
  mig.Attribute("productName", Str("NVIDIA A100-SXM4-40GB"));
  mig.Capacity("memory", *Quantity::Parse("4864Mi"));
  dra::DeviceBuilder amd("gpu-1");
  amd.Driver("gpu.amd.com").Pool("mi300-node-1", 0).Node("mi300-node-1");
  amd.Attribute("type", Str("amdgpu"));
  amd.Attribute("productName", Str("AMD Instinct MI300X"));
  amd.Capacity("memory", *Quantity::Parse("192Gi"));
  const std::vector<dra::Device> devices = {A100(), L40S(), mig.Build(), amd.Build()};
  // Each device from its own builder, and all from one builder (shared layouts).
  std::vector<Value> values;
  DeviceValueBuilder shared;
  for (const dra::Device& d : devices) {
    values.push_back(MakeDeviceValue(d));
    values.push_back(shared.Build(d));
  }
  const std::string nv = kNv;
  const std::vector<std::string> selectors = {
      "device.driver == 'gpu.nvidia.com' && " + nv + ".type == 'gpu'",
      "'index' in " + nv + " && " + nv + ".index == 0",
      nv + ".index == 0",
      "'profile' in " + nv + " ? " + nv + ".profile == '1g.5gb' : " + nv + ".productName != ''",
      "device.capacity[device.driver].memory.compareTo(quantity('40Gi')) >= 0",
      "'memory' in device.capacity['gpu.nvidia.com'] && "
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
      "device.attributes['gpu.amd.com'].productName.startsWith('AMD')",
      "has(" + nv + ".architecture) && " + nv + ".architecture == 'Ampere'",
  };
  CompileOptions options;
  options.require_bool_result = true;
  const auto env = Environment::ForDeviceSelectors(*KubeVersion::Parse("1.34"));
  for (const std::string& expr : selectors) {
    auto program = Compile(expr, env, options);
    ASSERT_TRUE(program.ok()) << expr << ": " << program.status();
    // Forwards, backwards, then each value twice in a row.
    std::vector<size_t> order;
    for (size_t i = 0; i < values.size(); ++i) order.push_back(i);
    for (size_t i = values.size(); i-- > 0;) order.push_back(i);
    for (size_t i = 0; i < values.size(); ++i) order.insert(order.end(), {i, i});
    for (size_t i : order) {
      auto fresh = Compile(expr, env, options);
      ASSERT_TRUE(fresh.ok());
      EXPECT_EQ((*program)->Evaluate({values[i]}).DebugString(),
                (*fresh)->Evaluate({values[i]}).DebugString())
          << expr << " on value " << i;
    }
  }
}

TEST(DeviceSelectorTest, UnknownDomainIsAnEmptyMap) {
  EXPECT_TRUE(Select("'no-such-domain' in device.attributes", A100()).IsFalse());
  EXPECT_TRUE(Select("size(device.attributes['no-such-domain']) == 0", A100()).IsTrue());
  Value v =
      Select("device.attributes['no-such-domain'].noSuchAttr.isGreaterThan(quantity('0'))", A100());
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "no such key: noSuchAttr");
}

TEST(DeviceSelectorTest, QualifiedAttributesLiveInTheirOwnDomain) {
  EXPECT_TRUE(Select("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'", A100())
                  .IsTrue());
  EXPECT_TRUE(Select("'resource.kubernetes.io' in device.attributes", A100()).IsTrue());
}

TEST(DeviceSelectorTest, ResultMustBeBool) {
  absl::Status s = CheckOn("1", "1.34");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("must evaluate to bool or the unknown type, not int"));
  EXPECT_OK(CheckOn(std::string(kNv) + ".productName", "1.34"));  // dyn is allowed
}

TEST(DeviceSelectorTest, SyntaxErrorsCarryPositionAndCaret) {
  absl::Status s = CheckOn("?!", "1.34");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Syntax error"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("<input>:1:"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("^"));
}

TEST(DeviceSelectorTest, NoOrderingOperatorsOnQuantityOrSemver) {
  absl::Status s = CheckOn("device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')", "1.34");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("found no matching overload for '_>=_'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("kubernetes.Quantity"));
}

TEST(DeviceSelectorTest, NormalisingSemverAcceptedFrom134) {
  std::string expr = std::string(kNv) + ".driverVersion.compareTo(semver('550.0', true)) >= 0";
  for (const char* v : {"1.32", "1.33"}) {
    absl::Status s = CheckOn(expr, v);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << v;
    EXPECT_THAT(std::string(s.message()), HasSubstr("1.34")) << v;
  }
  for (const char* v : {"1.34", "1.35", "1.36"}) EXPECT_OK(CheckOn(expr, v)) << v;
  EXPECT_TRUE(Select(expr, A100(), "1.34").IsTrue());
}

TEST(DeviceSelectorTest, StrictSemverLiteralIsARuntimeError) {
  Value v = Select(std::string(kNv) + ".driverVersion.compareTo(semver('8.0')) >= 0", A100());
  EXPECT_TRUE(v.is_error()) << v.DebugString();
}

TEST(DeviceSelectorTest, TwoVariableMacrosFrom133) {
  std::string expr = std::string(kNv) + ".all(k, v, k != '')";
  EXPECT_FALSE(CheckOn(expr, "1.32").ok());
  EXPECT_OK(CheckOn(expr, "1.33"));
}

TEST(DeviceSelectorTest, UndefinedDeviceField) {
  absl::Status s = CheckOn("device.allowMultipleAllocations", "1.34");
  EXPECT_THAT(std::string(s.message()), HasSubstr("undefined field 'allowMultipleAllocations'"));
}

TEST(DeviceSelectorTest, LengthLimit) {
  std::string expr = "device.driver == '" + std::string(10300, 'a') + "'";
  absl::Status s = CheckOn(expr, "1.34");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
}

TEST(DeviceSelectorTest, StringFunctionsTooComplexOnEarly132Patches) {
  std::string expr = std::string(kNv) + ".productName.lowerAscii().matches('^.*a100.*$')";
  absl::Status early = CheckOn(expr, "1.32.1");
  EXPECT_EQ(early.code(), absl::StatusCode::kResourceExhausted) << early;
  EXPECT_THAT(std::string(early.message()), HasSubstr("too complex"));
  EXPECT_OK(CheckOn(expr, "1.32.3"));
  EXPECT_OK(CheckOn(expr, "1.32"));  // a bare minor means its latest patch
  EXPECT_TRUE(Select(expr, A100()).IsTrue());
}

TEST(DeviceSelectorTest, TypicalSelectorsAcceptedOnEveryVersion) {
  const std::string selectors[] = {
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
      "'memory' in device.capacity['gpu.nvidia.com'] && "
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
      "'cudaComputeCapability' in device.attributes['gpu.nvidia.com'] && "
      "device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo(semver('8.0.0')) >= 0",
      "device.attributes['gpu.nvidia.com'].productName in ['NVIDIA L40S', 'NVIDIA L4']",
      "cel.bind(nv, device.attributes['gpu.nvidia.com'], nv.type == 'gpu' && "
      "nv.architecture == 'Ampere')",
  };
  for (const char* v : {"1.32.0", "1.32", "1.33", "1.34", "1.35", "1.36"}) {
    for (const std::string& s : selectors) EXPECT_OK(CheckOn(s, v)) << v << ": " << s;
  }
}

}  // namespace
}  // namespace device_selector_test
}  // namespace gpuprofile::cel
