// File: test/profile/selector_paths_test.cc
#include "controller/profile/selector_paths.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/core/kube_version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {

// Readable failures: kind/domain/id, "?" for a presence test.
void PrintTo(const DevicePath& path, std::ostream* os) {
  *os << static_cast<int>(path.kind) << "/" << path.domain << "/" << path.id
      << (path.presence_only ? "?" : "");
}

namespace selector_paths_test {
namespace {

using Kind = DevicePath::Kind;
using ::testing::ElementsAre;
using ::testing::Optional;

DevicePath Attr(const std::string& domain, const std::string& id) {
  return {Kind::kAttribute, domain, id};
}
DevicePath Cap(const std::string& domain, const std::string& id) {
  return {Kind::kCapacity, domain, id};
}
// Presence tests of an attribute / a capacity.
DevicePath HasAttr(const std::string& domain, const std::string& id) {
  return {Kind::kAttribute, domain, id, /*presence_only=*/true};
}
DevicePath HasCap(const std::string& domain, const std::string& id) {
  return {Kind::kCapacity, domain, id, /*presence_only=*/true};
}

// The projection key of `device` at `paths`.
std::string KeyOf(const dra::Device& device, const std::vector<DevicePath>& paths) {
  std::string key;
  AppendProjectionKey(device, paths, &key);
  return key;
}

// Compiles `expression` as a device selector and asks which device paths it reads.
std::optional<std::vector<DevicePath>> Reads(const std::string& expression) {
  auto program = cel::Compile(
      expression, cel::Environment::ForDeviceSelectors(*KubeVersion::Parse("1.34"),
                                                       cel::ExpressionMode::kStoredExpression));
  EXPECT_TRUE(program.ok()) << expression << ": " << program.status();
  if (!program.ok()) return std::nullopt;
  return profile::ReadPaths(**program);
}

TEST(SelectorPathsTest, NamedReadsReduceToPaths) {
  EXPECT_THAT(
      Reads("device.driver == 'gpu.nvidia.com' && 'type' in "
            "device.attributes['gpu.nvidia.com'] && "
            "device.attributes['gpu.nvidia.com'].type == 'gpu'"),
      Optional(ElementsAre(DevicePath{Kind::kDriver, "", ""}, Attr("gpu.nvidia.com", "type"))));
  EXPECT_THAT(Reads("device.capacity['gpu.nvidia.com']['memory'].compareTo(quantity('1')) "
                    "> 0 || has(device.attributes['x.io'].a) || "
                    "device.attributes['x.io'].?b.orValue('') == ''"),
              Optional(ElementsAre(HasAttr("x.io", "a"), Attr("x.io", "b"),
                                   Cap("gpu.nvidia.com", "memory"))));
  EXPECT_THAT(Reads("true"), Optional(ElementsAre()));
  EXPECT_THAT(Reads("[1, 2].all(x, x > 0 && device.attributes['d'].n > x)"),
              Optional(ElementsAre(Attr("d", "n"))));
  // A comprehension variable named `device` is not the device.
  EXPECT_THAT(Reads("[1].all(device, device > 0)"), Optional(ElementsAre()));
}

// `'id' in ...` and has() read only whether the entry is there; a value read of the same entry
// covers it, within one selector and across the paths of several (NormalizePaths).
TEST(SelectorPathsTest, PresenceTestsAreReadAsPresence) {
  EXPECT_THAT(
      Reads("'uuid' in device.attributes['gpu.nvidia.com'] && "
            "'memory' in device.capacity['gpu.nvidia.com']"),
      Optional(ElementsAre(HasAttr("gpu.nvidia.com", "uuid"), HasCap("gpu.nvidia.com", "memory"))));
  EXPECT_THAT(Reads("has(device.attributes['gpu.nvidia.com'].uuid) && "
                    "device.attributes['gpu.nvidia.com'].uuid.endsWith('1')"),
              Optional(ElementsAre(Attr("gpu.nvidia.com", "uuid"))));
  std::vector<DevicePath> union_paths = {HasAttr("d", "uuid"), Attr("d", "index"),
                                         Attr("d", "uuid"), HasAttr("d", "uuid"),
                                         HasAttr("d", "pcieRoot")};
  NormalizePaths(&union_paths);
  EXPECT_THAT(union_paths,
              ElementsAre(Attr("d", "index"), HasAttr("d", "pcieRoot"), Attr("d", "uuid")));
}

// Devices that differ only in the value of an entry a selector tests for presence (a UUID each)
// read the same there, so they share one projection class; a device without it does not.
TEST(SelectorPathsTest, PresenceKeysTellOnlyPresence) {
  dra::DeviceBuilder builder("");
  builder.Driver("gpu.nvidia.com")
      .Attribute("uuid", dra::AttributeValue::String("GPU-1"))
      .Capacity("memory", *Quantity::Parse("40Gi"));
  const dra::Device a = builder.Build();
  const dra::Device b = dra::DeviceBuilder(builder)
                            .Attribute("uuid", dra::AttributeValue::String("GPU-2"))
                            .Capacity("memory", *Quantity::Parse("80Gi"))
                            .Build();
  const dra::Device c = dra::DeviceBuilder(builder).RemoveAttribute("uuid").Build();
  const std::vector<DevicePath> paths = {HasAttr("gpu.nvidia.com", "uuid"),
                                         HasCap("gpu.nvidia.com", "memory")};
  auto key = [&](const dra::Device& device) { return KeyOf(device, paths); };
  EXPECT_EQ(key(a), key(b));
  EXPECT_NE(key(a), key(c));
  std::vector<PathValue> va, vb, vc;
  ReadPathValues(a, paths, &va);
  ReadPathValues(b, paths, &vb);
  ReadPathValues(c, paths, &vc);
  EXPECT_TRUE(va == vb);
  EXPECT_FALSE(va == vc);
  // Read for its value, the UUID tells them apart.
  const std::vector<DevicePath> value_paths = {Attr("gpu.nvidia.com", "uuid")};
  EXPECT_NE(KeyOf(a, value_paths), KeyOf(b, value_paths));
}

TEST(SelectorPathsTest, WholeMapsComputedKeysAndShadowingAreNotReducible) {
  for (const char* expression : {
           "device.attributes['gpu.nvidia.com'].size() > 3",
           "device.attributes['gpu.nvidia.com'].exists(k, k == 'uuid')",
           "device.attributes[device.driver].type == 'gpu'",
           "'gpu.nvidia.com' in device.attributes",
           "cel.bind(nv, device.attributes['gpu.nvidia.com'], nv.type == 'gpu')",
           "[device].exists(device, device.driver == 'x')",
           "device == device",
       }) {
    EXPECT_EQ(Reads(expression), std::nullopt) << expression;
  }
}

TEST(SelectorPathsTest, ProjectionKeysDistinguishValuesAndAbsence) {
  dra::DeviceBuilder builder("");
  builder.Driver("gpu.nvidia.com")
      .Attribute("productName", dra::AttributeValue::String("A"))
      .Capacity("memory", *Quantity::Parse("40Gi"));
  const dra::Device a = builder.Build();
  const dra::Device b = dra::DeviceBuilder(builder).Name("other").Build();  // not read: same key
  dra::DeviceBuilder without_product = builder;
  without_product.RemoveAttribute("productName");
  const dra::Device c = without_product.Build();
  const dra::Device d =  // same text, other type
      dra::DeviceBuilder(builder)
          .Attribute("productName", dra::AttributeValue::Version("A"))
          .Build();
  const std::vector<DevicePath> paths = {{Kind::kDriver, "", ""},
                                         Attr("gpu.nvidia.com", "productName"),
                                         Cap("gpu.nvidia.com", "memory")};
  auto key = [&](const dra::Device& device) { return KeyOf(device, paths); };
  EXPECT_EQ(key(a), key(b));
  EXPECT_NE(key(a), key(c));
  EXPECT_NE(key(a), key(d));
  // A qualified name in the driver's own domain is the same attribute.
  const dra::Device e =
      without_product.Attribute("gpu.nvidia.com/productName", dra::AttributeValue::String("A"))
          .Build();
  EXPECT_EQ(key(a), key(e));
}

// ProjectionIds compares PathValues before it builds a key: equal values must mean equal keys
// (what correctness needs) and, with no zero quantity about, unequal values unequal keys, for
// every pair of a fleet that varies each kind of path.
TEST(SelectorPathsTest, PathValuesAreEqualExactlyWhenKeysAre) {
  dra::DeviceBuilder builder("");
  builder.Driver("gpu.nvidia.com")
      .Attribute("productName", dra::AttributeValue::String("A"))
      .Attribute("index", dra::AttributeValue::Int(0))
      .Capacity("memory", *Quantity::Parse("40Gi"));
  std::vector<dra::Device> devices = {builder.Build(),
                                      dra::DeviceBuilder(builder).Name("b").Build()};
  dra::DeviceBuilder without_product = builder;
  without_product.RemoveAttribute("productName");
  devices.push_back(without_product.Build());
  devices.push_back(dra::DeviceBuilder(builder)
                        .Attribute("productName", dra::AttributeValue::Version("A"))
                        .Build());
  devices.push_back(
      dra::DeviceBuilder(builder).Attribute("index", dra::AttributeValue::Int(1)).Build());
  devices.push_back(  // the same memory, printed otherwise
      dra::DeviceBuilder(builder).Capacity("memory", *Quantity::Parse("42949672960")).Build());
  devices.push_back(
      dra::DeviceBuilder(builder).Capacity("memory", *Quantity::Parse("80Gi")).Build());
  devices.push_back(dra::DeviceBuilder(builder).Driver("dra.example.com").Build());
  devices.push_back(builder.Build());  // equal to the first, in storage of its own
  const std::vector<DevicePath> paths = {{Kind::kDriver, "", ""},
                                         Attr("gpu.nvidia.com", "index"),
                                         Attr("gpu.nvidia.com", "productName"),
                                         HasAttr("gpu.nvidia.com", "index"),
                                         Cap("gpu.nvidia.com", "memory"),
                                         HasCap("gpu.nvidia.com", "memory"),
                                         {Kind::kOtherField, "", "allowMultipleAllocations"}};
  int equal_pairs = 0;
  for (const dra::Device& x : devices) {
    for (const dra::Device& y : devices) {
      std::vector<PathValue> vx, vy;
      ReadPathValues(x, paths, &vx);
      ReadPathValues(y, paths, &vy);
      const std::string kx = KeyOf(x, paths), ky = KeyOf(y, paths);
      EXPECT_EQ(vx == vy, kx == ky) << kx << " / " << ky;
      std::string from_values;
      AppendProjectionKey(vx, &from_values);
      EXPECT_EQ(from_values, kx);
      if (vx == vy) ++equal_pairs;
    }
  }
  // Each with itself, and (first, second, last) with each other.
  EXPECT_EQ(equal_pairs, static_cast<int>(devices.size()) + 6);
}

// ProjectionIds reads a fleet through one PathReader and gives a device the class of another
// of its storage when their tokens are equal. So: through a reader that has seen other devices
// and storages (its hints), every device reads what a fresh read gives, and two devices of one
// storage with equal tokens read equal values.
TEST(SelectorPathsTest, APathReaderReadsWhatAFreshReadDoesAndEqualTokensMeanEqualValues) {
  const std::vector<DevicePath> paths = {{Kind::kDriver, "", ""},
                                         Attr("gpu.nvidia.com", "index"),
                                         Attr("gpu.nvidia.com", "productName"),
                                         Attr("resource.kubernetes.io", "pcieRoot"),
                                         Attr("gpu.nvidia.com", "missing"),
                                         HasAttr("gpu.nvidia.com", "missing"),
                                         HasAttr("gpu.nvidia.com", "productName"),
                                         HasAttr("resource.kubernetes.io", "pcieRoot"),
                                         Cap("gpu.nvidia.com", "memory"),
                                         HasCap("gpu.nvidia.com", "memory"),
                                         {Kind::kOtherField, "", "allowMultipleAllocations"}};
  std::vector<std::vector<dra::Device>> storages = {testing::VariedStorage("gpu.nvidia.com", 1),
                                                    testing::VariedStorage("gpu.nvidia.com", 2),
                                                    testing::VariedStorage("dra.example.com", 3)};
  PathReader reader(paths);
  int equal_token_pairs = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::vector<dra::Device>& devices : storages) {
      std::vector<std::vector<uint64_t>> tokens(devices.size());
      std::vector<std::vector<PathValue>> values(devices.size());
      for (size_t i = 0; i < devices.size(); ++i) {
        reader.Tokens(devices[i], &tokens[i]);
        reader.Values(devices[i], tokens[i], &values[i]);
        std::vector<PathValue> fresh;
        ReadPathValues(devices[i], paths, &fresh);
        std::string key, fresh_key;
        AppendProjectionKey(values[i], &key);
        AppendProjectionKey(fresh, &fresh_key);
        ASSERT_EQ(key, fresh_key) << devices[i].DebugString();
      }
      for (size_t i = 0; i < devices.size(); ++i) {
        for (size_t j = 0; j < devices.size(); ++j) {
          if (tokens[i] != tokens[j]) continue;
          ++equal_token_pairs;
          EXPECT_TRUE(values[i] == values[j])
              << devices[i].DebugString() << " / " << devices[j].DebugString();
        }
      }
    }
  }
  // More pairs than each device with itself: the shortcut is exercised.
  EXPECT_GT(equal_token_pairs, 2 * (80 + 80 + 80));
}

}  // namespace
}  // namespace selector_paths_test
}  // namespace gpuprofile::profile
