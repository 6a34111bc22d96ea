// File: test/dra/device_test.cc
// The compact device model (controller/dra/device.h): what the builders keep, in which order,
// how values read back, and how long the views live.
#include "controller/dra/device.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::dra {
namespace device_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Quantity Q(absl::string_view text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? *q : Quantity();
}

std::vector<std::string> AttributeNames(const Device& d) {
  std::vector<std::string> out;
  for (const NamedAttribute& a : d.attributes()) out.emplace_back(a.name);
  return out;
}

std::vector<std::string> CapacityNames(const Device& d) {
  std::vector<std::string> out;
  for (const NamedCapacity& c : d.capacity()) out.emplace_back(c.name);
  return out;
}

// "name=value" of every capacity, in order, with the quantity as printed.
std::vector<std::string> Capacities(const Device& d) {
  std::vector<std::string> out;
  for (const NamedCapacity& c : d.capacity()) {
    EXPECT_NE(c.value, nullptr);
    out.push_back(absl::StrCat(c.name, "=", c.value->ToString()));
  }
  return out;
}

// The attribute `name`, or a failure (not a crash) when it is missing.
AttributeValue Attr(const Device& d, absl::string_view name) {
  std::optional<AttributeValue> v = d.FindAttribute(name);
  if (!v.has_value()) {
    ADD_FAILURE() << "no attribute " << name << " in " << d.DebugString();
    return AttributeValue::String("<missing>");
  }
  return *v;
}

TEST(AttributeValueTest, FactoriesAndAccessors) {
  const AttributeValue i = AttributeValue::Int(-7);
  EXPECT_EQ(i.kind(), AttributeValue::Kind::kInt);
  EXPECT_EQ(i.int_value(), -7);
  EXPECT_FALSE(i.bool_value());
  EXPECT_EQ(i.string_value(), "");
  EXPECT_EQ(i.ParseVersion(), std::nullopt);

  const AttributeValue b = AttributeValue::Bool(true);
  EXPECT_EQ(b.kind(), AttributeValue::Kind::kBool);
  EXPECT_TRUE(b.bool_value());
  EXPECT_EQ(b.int_value(), 0);
  EXPECT_EQ(b.string_value(), "");
  EXPECT_FALSE(AttributeValue::Bool(false).bool_value());

  const AttributeValue s = AttributeValue::String("1.2.3");
  EXPECT_EQ(s.kind(), AttributeValue::Kind::kString);
  EXPECT_EQ(s.string_value(), "1.2.3");
  EXPECT_EQ(s.int_value(), 0);
  EXPECT_FALSE(s.bool_value());
  EXPECT_EQ(s.ParseVersion(),
            std::nullopt);  // a string is not a version, even if it looks like one

  const AttributeValue v = AttributeValue::Version("1.2.3");
  EXPECT_EQ(v.kind(), AttributeValue::Kind::kVersion);
  EXPECT_EQ(v.string_value(), "1.2.3");
  ASSERT_TRUE(v.ParseVersion().has_value());
  EXPECT_EQ(v.ParseVersion()->ToString(), "1.2.3");

  const AttributeValue empty;
  EXPECT_EQ(empty.kind(), AttributeValue::Kind::kString);
  EXPECT_EQ(empty.string_value(), "");

  EXPECT_EQ(AttributeValue::Int(1), AttributeValue::Int(1));
  EXPECT_NE(AttributeValue::Int(1), AttributeValue::Int(2));
  EXPECT_NE(AttributeValue::Int(1), AttributeValue::Bool(true));
  EXPECT_NE(AttributeValue::String("1.2.3"), AttributeValue::Version("1.2.3"));
  EXPECT_EQ(AttributeValue::String("x"), AttributeValue::String(std::string("x")));
}

TEST(DeviceSetBuilderTest, KeepsDevicesInOrderAndSortsEntriesByNameInByteOrder) {
  DeviceSetBuilder builder("gpu.example.com", "pool-1", 7, "slice-1");
  builder.AddDevice("gpu-z", "node-a");
  builder.AddAttribute("b", AttributeValue::Int(2));
  builder.AddAttribute("a", AttributeValue::Int(1));
  builder.AddAttribute("Z", AttributeValue::Int(0));
  builder.AddAttribute("resource.kubernetes.io/pcieRoot", AttributeValue::String("pci0"));
  builder.AddAttribute("_x", AttributeValue::Int(3));
  builder.AddCapacity("memory", Q("1Gi"));
  builder.AddCapacity("Cores", Q("8"));
  builder.AddCapacity("bandwidth", Q("10"));
  builder.AddDevice("gpu-a", "node-a");
  builder.AddAttribute("y", AttributeValue::Bool(true));
  builder.AddAttribute("x", AttributeValue::Bool(false));
  builder.AddDevice("gpu-m", "node-a");
  EXPECT_EQ(builder.device_count(), 3u);
  const std::vector<Device> devices = std::move(builder).Build();

  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].name(), "gpu-z");
  EXPECT_EQ(devices[1].name(), "gpu-a");
  EXPECT_EQ(devices[2].name(), "gpu-m");
  for (uint32_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].storage_id(), devices[0].storage_id());
    EXPECT_EQ(devices[i].storage_index(), i);
    EXPECT_EQ(devices[i].storage_size(), 3u);
  }
  for (const Device& d : devices) {
    EXPECT_EQ(d.driver(), "gpu.example.com");
    EXPECT_EQ(d.pool(), "pool-1");
    EXPECT_EQ(d.pool_generation(), 7);
    EXPECT_EQ(d.slice_name(), "slice-1");
    EXPECT_EQ(d.node(), "node-a");
  }
  // Byte order: upper case before "_" before lower case; "." sorts before letters.
  EXPECT_THAT(AttributeNames(devices[0]),
              ElementsAre("Z", "_x", "a", "b", "resource.kubernetes.io/pcieRoot"));
  EXPECT_THAT(CapacityNames(devices[0]), ElementsAre("Cores", "bandwidth", "memory"));
  EXPECT_THAT(Capacities(devices[0]), ElementsAre("Cores=8", "bandwidth=10", "memory=1Gi"));
  EXPECT_EQ(devices[0].attributes()[0].value, AttributeValue::Int(0));
  EXPECT_EQ(devices[0].attributes()[1].value, AttributeValue::Int(3));
  EXPECT_EQ(devices[0].attributes()[2].value, AttributeValue::Int(1));
  EXPECT_EQ(devices[0].attributes()[3].value, AttributeValue::Int(2));
  EXPECT_EQ(devices[0].attributes()[4].value.string_value(), "pci0");
  EXPECT_THAT(AttributeNames(devices[1]), ElementsAre("x", "y"));
  EXPECT_FALSE(Attr(devices[1], "x").bool_value());
  EXPECT_TRUE(Attr(devices[1], "y").bool_value());
  EXPECT_TRUE(devices[1].capacity().empty());
  EXPECT_TRUE(devices[2].attributes().empty());
  EXPECT_TRUE(devices[2].capacity().empty());
}

TEST(DeviceBuilderTest, SortsEntriesByNameInByteOrder) {
  const Device d = DeviceBuilder("gpu-0")
                       .Attribute("b", AttributeValue::Int(2))
                       .Attribute("a", AttributeValue::Int(1))
                       .Attribute("Z", AttributeValue::Int(0))
                       .Capacity("m", Q("1"))
                       .Capacity("M", Q("2"))
                       .Build();
  EXPECT_THAT(AttributeNames(d), ElementsAre("Z", "a", "b"));
  EXPECT_THAT(Capacities(d), ElementsAre("M=2", "m=1"));
}

// ExpectDevices is a hint: devices with more or fewer entries than the first, and more or fewer
// devices than announced, come out as they went in.
TEST(DeviceSetBuilderTest, ExpectDevicesIsOnlyAHint) {
  for (size_t announced : {size_t{0}, size_t{1}, size_t{2}, size_t{50}}) {
    DeviceSetBuilder builder("d", "p", 1, "s");
    builder.ExpectDevices(announced);
    for (int i = 0; i < 3; ++i) {
      builder.AddDevice(absl::StrCat("gpu-", i), "node-a");
      for (int a = 0; a <= i * 2; ++a) {
        builder.AddAttribute(absl::StrCat("a", a), AttributeValue::Int(i * 10 + a));
      }
      if (i != 1) builder.AddCapacity("memory", Q(absl::StrCat(i + 1, "Gi")));
    }
    const std::vector<Device> devices = std::move(builder).Build();
    ASSERT_EQ(devices.size(), 3u) << announced;
    EXPECT_THAT(AttributeNames(devices[0]), ElementsAre("a0"));
    EXPECT_THAT(AttributeNames(devices[2]), ElementsAre("a0", "a1", "a2", "a3", "a4"));
    EXPECT_EQ(Attr(devices[2], "a4"), AttributeValue::Int(24));
    EXPECT_THAT(Capacities(devices[1]), ElementsAre());
    EXPECT_THAT(Capacities(devices[2]), ElementsAre("memory=3Gi"));
  }
}

// Devices of a block keep equal attribute entries once (device.cc); each device still reads
// exactly its own: the same text as another kind, the same value under another name, the same
// number as a bool, and list values are never taken for one another.
// ExpectDevices' count comes from the input. A list that promises two million devices after one
// with 50,000 attributes must not get room for their product (400 GB of entries, which no
// allocator gives): the builder builds what it is given.
TEST(DeviceSetBuilderTest, ALargePromiseAfterALargeFirstDeviceReservesNoMoreThanABound) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.ExpectDevices(2'000'000);
  builder.AddDevice("gpu-0", "n");
  for (int i = 0; i < 50'000; ++i) {
    builder.AddAttribute(absl::StrCat("a", i), AttributeValue::Int(i));
  }
  builder.AddDevice("gpu-1", "n");
  builder.AddAttribute("a1", AttributeValue::Int(1));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].attributes().size(), 50'000u);
  EXPECT_EQ(Attr(devices[0], "a49999"), AttributeValue::Int(49'999));
  EXPECT_THAT(AttributeNames(devices[1]), ElementsAre("a1"));
}

TEST(DeviceSetBuilderTest, SharedAttributeEntriesKeepEachDevicesOwnValues) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.ExpectDevices(3);
  builder.AddDevice("gpu-0", "n");
  builder.AddAttribute("product", AttributeValue::String("A100"));
  builder.AddAttribute("uuid", AttributeValue::String("GPU-0"));
  builder.AddAttribute("index", AttributeValue::Int(1));
  builder.AddDevice("gpu-1", "n");
  builder.AddAttribute("uuid", AttributeValue::String("GPU-1"));
  builder.AddAttribute("product", AttributeValue::String("A100"));
  builder.AddAttribute("index", AttributeValue::Bool(true));
  builder.AddAttribute("alias", AttributeValue::String("A100"));
  builder.AddDevice("gpu-2", "n");
  builder.AddAttribute("product", AttributeValue::Version("1.0.0"));
  builder.AddAttribute("uuid", AttributeValue::String("1.0.0"));
  builder.AddAttribute("index", AttributeValue::Int(1));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_THAT(AttributeNames(devices[0]), ElementsAre("index", "product", "uuid"));
  EXPECT_THAT(AttributeNames(devices[1]), ElementsAre("alias", "index", "product", "uuid"));
  EXPECT_EQ(Attr(devices[0], "uuid").string_value(), "GPU-0");
  EXPECT_EQ(Attr(devices[1], "uuid").string_value(), "GPU-1");
  EXPECT_EQ(Attr(devices[1], "product"), AttributeValue::String("A100"));
  EXPECT_EQ(Attr(devices[1], "alias"), AttributeValue::String("A100"));
  EXPECT_EQ(Attr(devices[0], "index"), AttributeValue::Int(1));
  EXPECT_EQ(Attr(devices[1], "index"), AttributeValue::Bool(true));
  EXPECT_EQ(Attr(devices[2], "index"), AttributeValue::Int(1));
  EXPECT_EQ(Attr(devices[2], "product"), AttributeValue::Version("1.0.0"));
  EXPECT_EQ(Attr(devices[2], "uuid"), AttributeValue::String("1.0.0"));
  EXPECT_FALSE(devices[0].FindAttribute("alias").has_value());
  EXPECT_FALSE(devices[2].FindAttribute("zzz").has_value());
  EXPECT_FALSE(devices[2].FindAttribute("").has_value());
}

TEST(DeviceSetBuilderTest, ANameAddedTwiceKeepsTheLastValue) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.AddDevice("gpu-0", "");
  builder.AddAttribute("x", AttributeValue::Int(1));
  builder.AddAttribute("y", AttributeValue::String("first"));
  builder.AddAttribute("x", AttributeValue::String("second"));  // another kind, too
  builder.AddAttribute("y", AttributeValue::String("last"));
  builder.AddAttribute("x", AttributeValue::Version("1.0.0"));
  builder.AddCapacity("memory", Q("1Gi"));
  builder.AddCapacity("memory", Q("2Gi"));
  builder.AddDevice("gpu-1", "");
  builder.AddAttribute("x", AttributeValue::Bool(true));
  builder.AddAttribute("x", AttributeValue::Bool(false));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);

  EXPECT_THAT(AttributeNames(devices[0]), ElementsAre("x", "y"));
  EXPECT_EQ(Attr(devices[0], "x"), AttributeValue::Version("1.0.0"));
  EXPECT_EQ(Attr(devices[0], "y").string_value(), "last");
  EXPECT_THAT(Capacities(devices[0]), ElementsAre("memory=2Gi"));
  EXPECT_THAT(AttributeNames(devices[1]), ElementsAre("x"));
  EXPECT_EQ(Attr(devices[1], "x"), AttributeValue::Bool(false));
}

// The builder takes shortcuts when a device repeats the previous one call by call (the name
// and value at each position, the order of its names, its entries): every device must still
// read exactly what it was given, last value winning, in name order. Devices here mostly repeat
// their predecessor with a few calls changed (a value, a kind, a name, a call added, dropped or
// given twice), as the devices of a real slice do, and are checked against a plain map.
TEST(DeviceSetBuilderTest, DevicesThatRepeatTheirPredecessorReadWhatTheyWereGiven) {
  struct Call {
    std::string name;
    AttributeValue value;
  };
  const std::vector<std::string> names = {"a", "productName", "uuid", "b", "index", "z"};
  // A list value views its items: they live as long as the test.
  const std::vector<AttributeValue> list_items = {AttributeValue::String("A100")};
  const std::vector<AttributeValue> values = {
      AttributeValue::String("A100"),
      AttributeValue::Version("1.0.0"),
      AttributeValue::String("1.0.0"),
      AttributeValue::Int(7),
      AttributeValue::Int(8),
      AttributeValue::Bool(true),
      AttributeValue::Opaque("{\"k\":1}"),
      AttributeValue::String(""),
      AttributeValue::String("A1000"),
      AttributeValue::List(AttributeValue::Kind::kString, list_items)};
  std::mt19937 random(20261207);
  const auto pick = [&random](size_t n) { return static_cast<size_t>(random() % n); };
  std::vector<std::vector<Call>> calls;
  std::vector<Call> device;
  // Capacities, changed the same way: names at a position kept, swapped or replaced.
  const std::vector<std::string> capacity_names = {"memory", "cores", "a", "memory2"};
  const std::vector<Quantity> quantities = {*Quantity::Parse("40Gi"), *Quantity::Parse("1"),
                                            *Quantity::Parse("42949672960")};
  std::vector<std::vector<std::pair<std::string, Quantity>>> capacity_calls;
  std::vector<std::pair<std::string, Quantity>> capacities;
  for (int i = 0; i < 400; ++i) {
    if (pick(3) == 0) {
      capacities.clear();
      for (size_t n = pick(4); n > 0; --n) {
        capacities.emplace_back(capacity_names[pick(capacity_names.size())],
                                quantities[pick(quantities.size())]);
      }
    }
    capacity_calls.push_back(capacities);
    if (device.empty() || pick(4) == 0) {
      device.clear();
      for (size_t n = pick(7); n > 0; --n)
        device.push_back({names[pick(names.size())], values[pick(values.size())]});
    }
    switch (pick(6)) {
      case 0:
        if (!device.empty()) device[pick(device.size())].value = values[pick(values.size())];
        break;
      case 1:
        if (!device.empty()) device[pick(device.size())].name = names[pick(names.size())];
        break;
      case 2:
        device.insert(device.begin() + static_cast<std::ptrdiff_t>(pick(device.size() + 1)),
                      {names[pick(names.size())], values[pick(values.size())]});
        break;
      case 3:
        if (!device.empty())
          device.erase(device.begin() + static_cast<std::ptrdiff_t>(pick(device.size())));
        break;
      default:
        break;  // the same calls again
    }
    calls.push_back(device);
  }

  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.ExpectDevices(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    builder.AddDevice(absl::StrCat("gpu-", i), "n");
    for (const Call& call : calls[i]) builder.AddAttribute(call.name, call.value);
    for (const auto& [name, quantity] : capacity_calls[i]) builder.AddCapacity(name, quantity);
  }
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    std::map<std::string, AttributeValue> want;
    for (const Call& call : calls[i]) want.insert_or_assign(call.name, call.value);
    std::vector<std::string> want_names;
    for (const auto& [name, value] : want) want_names.push_back(name);
    ASSERT_EQ(AttributeNames(devices[i]), want_names) << "device " << i;
    for (const auto& [name, value] : want) {
      EXPECT_EQ(Attr(devices[i], name), value) << "device " << i << ", attribute " << name;
    }
    std::map<std::string, Quantity> want_capacity;
    for (const auto& [name, quantity] : capacity_calls[i]) {
      want_capacity.insert_or_assign(name, quantity);
    }
    std::vector<std::string> want_capacity_names, capacity_names_read;
    for (const auto& [name, quantity] : want_capacity) {
      want_capacity_names.push_back(name);
      const Quantity* read = devices[i].FindCapacity(name);
      ASSERT_NE(read, nullptr) << "device " << i << ", capacity " << name;
      EXPECT_TRUE(read->PrintsSameAs(quantity)) << "device " << i << ", capacity " << name;
    }
    for (const NamedCapacity& c : devices[i].capacity()) {
      capacity_names_read.push_back(std::string(c.name));
    }
    EXPECT_EQ(capacity_names_read, want_capacity_names) << "device " << i;
  }
}

// Builders on one thread hand their working tables on to the next (DeviceSetBuilder's spare
// state): slices built in a row, a large one among them (tables and buffers past what is kept),
// and builders alive side by side must each read exactly what they were given. The texts of
// each slice are laid out differently, so a table still naming the previous block's texts
// would read the wrong bytes.
TEST(DeviceSetBuilderTest, BuildersInARowAndSideBySideReadWhatTheyWereGiven) {
  struct Slice {
    std::string name;
    int devices;
    int attributes;  // per device
  };
  // Every third attribute an int, the others texts: one shared by the slice's devices, one
  // each device's own.
  const auto text_of = [](const Slice& slice, int device, int attribute) {
    return attribute % 3 == 1 ? absl::StrCat("shared-", attribute)
                              : absl::StrCat(slice.name, "-", attribute, "-", device);
  };
  const auto start = [&](const Slice& slice) {
    auto builder =
        std::make_unique<DeviceSetBuilder>("gpu.example.com", slice.name + "-pool", 1, slice.name);
    builder->ExpectDevices(static_cast<size_t>(slice.devices));
    for (int d = 0; d < slice.devices; ++d) {
      builder->AddDevice(absl::StrCat(slice.name, "-gpu-", d), slice.name + "-node");
      for (int a = 0; a < slice.attributes; ++a) {
        const std::string text = text_of(slice, d, a);  // the builder copies it
        builder->AddAttribute(absl::StrCat("attr-", a), a % 3 == 0
                                                            ? AttributeValue::Int(d * 1000 + a)
                                                            : AttributeValue::String(text));
      }
      builder->AddCapacity("memory", Q(absl::StrCat(slice.devices + d, "Gi")));
    }
    return builder;
  };
  const auto check = [&](const Slice& slice, const std::vector<Device>& devices) {
    ASSERT_EQ(devices.size(), static_cast<size_t>(slice.devices)) << slice.name;
    for (int d = 0; d < slice.devices; ++d) {
      const Device& device = devices[static_cast<size_t>(d)];
      ASSERT_EQ(device.name(), absl::StrCat(slice.name, "-gpu-", d));
      EXPECT_EQ(device.slice_name(), slice.name);
      EXPECT_EQ(device.pool(), slice.name + "-pool");
      EXPECT_EQ(device.node(), slice.name + "-node");
      ASSERT_EQ(device.attributes().size(), static_cast<size_t>(slice.attributes));
      for (int a = 0; a < slice.attributes; ++a) {
        const AttributeValue got = Attr(device, absl::StrCat("attr-", a));
        if (a % 3 == 0) {
          ASSERT_EQ(got, AttributeValue::Int(d * 1000 + a)) << slice.name << " " << d << " " << a;
        } else {
          ASSERT_EQ(got.string_value(), text_of(slice, d, a)) << slice.name << " " << d << " " << a;
        }
      }
      EXPECT_THAT(Capacities(device),
                  ElementsAre(absl::StrCat("memory=", slice.devices + d, "Gi")));
    }
  };
  const std::vector<Slice> in_a_row = {{"first", 3, 4}, {"large", 300, 40}, {"wide", 2, 3000},
                                       {"short", 1, 1}, {"again", 8, 10},   {"empty", 0, 0},
                                       {"after", 4, 7}};
  for (const Slice& slice : in_a_row) check(slice, std::move(*start(slice)).Build());

  // Side by side: the second builder cannot have the spare the first took.
  const Slice outer{"outer", 5, 6}, inner{"inner", 6, 5};
  std::unique_ptr<DeviceSetBuilder> outer_builder = start(outer);
  check(inner, std::move(*start(inner)).Build());
  check(outer, std::move(*outer_builder).Build());
  outer_builder.reset();
  check(in_a_row[0], std::move(*start(in_a_row[0])).Build());
}

// FindAttributeEntry with one hint carried across devices of two storages whose layouts
// differ (an attribute more ahead, one missing): the entry's value is FindAttribute's, for
// names present and absent, and equal entries of one storage have equal values.
TEST(DeviceTest, FindAttributeEntryAgreesWithFindAttributeWhateverTheHintSaw) {
  std::vector<Device> devices;
  for (int storage = 0; storage < 2; ++storage) {
    DeviceSetBuilder builder("d", "p", 1, absl::StrCat("s", storage));
    for (int i = 0; i < 12; ++i) {
      builder.AddDevice(absl::StrCat("gpu-", i), "n");
      if (i % 3 == 0) builder.AddAttribute("aaa", AttributeValue::Int(i));
      if (i % 4 != 1) builder.AddAttribute("product", AttributeValue::String(i % 2 ? "A" : "B"));
      builder.AddAttribute("zzz", AttributeValue::Int(storage));
    }
    for (Device& d : std::move(builder).Build()) devices.push_back(std::move(d));
  }
  for (const char* name : {"product", "aaa", "zzz", "absent", ""}) {
    Device::EntryHint hint;
    for (int pass = 0; pass < 2; ++pass) {
      for (const Device& d : devices) {
        const std::optional<uint32_t> entry = d.FindAttributeEntry(name, &hint);
        const std::optional<AttributeValue> want = d.FindAttribute(name);
        ASSERT_EQ(entry.has_value(), want.has_value()) << name << " in " << d.DebugString();
        if (entry) {
          EXPECT_EQ(d.AttributeEntryValue(*entry), *want) << name;
        }
      }
    }
  }
}

TEST(DeviceBuilderTest, ANameSetTwiceKeepsTheLastValue) {
  const Device d = DeviceBuilder()
                       .Attribute("x", AttributeValue::Int(1))
                       .Attribute("x", AttributeValue::String("s"))
                       .Capacity("memory", Q("1Gi"))
                       .Capacity("memory", Q("3Gi"))
                       .Build();
  EXPECT_THAT(AttributeNames(d), ElementsAre("x"));
  EXPECT_EQ(Attr(d, "x"), AttributeValue::String("s"));
  EXPECT_THAT(Capacities(d), ElementsAre("memory=3Gi"));
}

// The values of every kind, as both builders keep them.
std::vector<std::pair<std::string, AttributeValue>> EveryKind(const std::string& non_utf8,
                                                              const std::string& with_nul) {
  return {
      {"int-zero", AttributeValue::Int(0)},
      {"int-negative", AttributeValue::Int(-42)},
      {"int-min", AttributeValue::Int(std::numeric_limits<int64_t>::min())},
      {"int-max", AttributeValue::Int(std::numeric_limits<int64_t>::max())},
      {"bool-true", AttributeValue::Bool(true)},
      {"bool-false", AttributeValue::Bool(false)},
      {"string", AttributeValue::String("NVIDIA A100-SXM4-40GB")},
      {"string-empty", AttributeValue::String("")},
      {"string-non-utf8", AttributeValue::String(non_utf8)},
      {"string-nul", AttributeValue::String(with_nul)},
      {"version", AttributeValue::Version("1.2.3-rc.1+build.5")},
      {"version-leading-zero", AttributeValue::Version("550.127.08")},
      {"version-two-parts", AttributeValue::Version("8.0")},
      {"version-empty", AttributeValue::Version("")},
  };
}

void ExpectEveryKind(const Device& d) {
  SCOPED_TRACE(d.DebugString());
  ASSERT_EQ(d.attributes().size(), 14u);
  for (const char* name : {"int-zero", "int-negative", "int-min", "int-max"}) {
    EXPECT_EQ(Attr(d, name).kind(), AttributeValue::Kind::kInt) << name;
  }
  EXPECT_EQ(Attr(d, "int-zero").int_value(), 0);
  EXPECT_EQ(Attr(d, "int-negative").int_value(), -42);
  EXPECT_EQ(Attr(d, "int-min").int_value(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Attr(d, "int-max").int_value(), std::numeric_limits<int64_t>::max());

  EXPECT_EQ(Attr(d, "bool-true").kind(), AttributeValue::Kind::kBool);
  EXPECT_TRUE(Attr(d, "bool-true").bool_value());
  EXPECT_EQ(Attr(d, "bool-false").kind(), AttributeValue::Kind::kBool);
  EXPECT_FALSE(Attr(d, "bool-false").bool_value());

  EXPECT_EQ(Attr(d, "string").kind(), AttributeValue::Kind::kString);
  EXPECT_EQ(Attr(d, "string").string_value(), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(Attr(d, "string-empty").kind(), AttributeValue::Kind::kString);
  EXPECT_EQ(Attr(d, "string-empty").string_value(), "");
  EXPECT_EQ(Attr(d, "string-non-utf8").string_value(), absl::string_view("\xff\xfe\x80 gpu"));
  EXPECT_EQ(Attr(d, "string-nul").string_value(), absl::string_view("a\0b", 3));
  EXPECT_EQ(Attr(d, "string-nul").string_value().size(), 3u);

  const AttributeValue version = Attr(d, "version");
  EXPECT_EQ(version.kind(), AttributeValue::Kind::kVersion);
  EXPECT_EQ(version.string_value(), "1.2.3-rc.1+build.5");
  const std::optional<Semver> parsed = version.ParseVersion();
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->major(), 1u);
  EXPECT_EQ(parsed->minor(), 2u);
  EXPECT_EQ(parsed->patch(), 3u);
  // Not strict semver: the text is kept, ParseVersion() says it is not a version.
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"version-leading-zero", "550.127.08"},
                                                        {"version-two-parts", "8.0"},
                                                        {"version-empty", ""}}) {
    const AttributeValue v = Attr(d, name);
    EXPECT_EQ(v.kind(), AttributeValue::Kind::kVersion) << name;
    EXPECT_EQ(v.string_value(), text) << name;
    EXPECT_EQ(v.ParseVersion(), std::nullopt) << name;
  }
}

TEST(DeviceSetBuilderTest, EveryKindRoundTrips) {
  const std::string non_utf8 = "\xff\xfe\x80 gpu";
  const std::string with_nul("a\0b", 3);
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.AddDevice("gpu-0", "n");
  for (const auto& [name, value] : EveryKind(non_utf8, with_nul)) builder.AddAttribute(name, value);
  // The same values on a second device of the block (the texts are kept once).
  builder.AddDevice("gpu-1", "n");
  for (const auto& [name, value] : EveryKind(non_utf8, with_nul)) builder.AddAttribute(name, value);
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);
  ExpectEveryKind(devices[0]);
  ExpectEveryKind(devices[1]);
}

TEST(DeviceBuilderTest, EveryKindRoundTrips) {
  const std::string non_utf8 = "\xff\xfe\x80 gpu";
  const std::string with_nul("a\0b", 3);
  DeviceBuilder builder;
  for (const auto& [name, value] : EveryKind(non_utf8, with_nul)) builder.Attribute(name, value);
  ExpectEveryKind(builder.Build());
}

TEST(DeviceSetBuilderTest, TextsThatCoincideAreReadBackIntact) {
  // Equal texts are kept once per block (but device names, appended each); each use must still
  // read its own value.
  DeviceSetBuilder builder("gpu", "gpu", 1, "gpu-0");
  builder.AddDevice("gpu-0", "gpu");
  builder.AddAttribute("gpu", AttributeValue::String("gpu"));
  builder.AddAttribute("type", AttributeValue::Version("gpu-0"));
  builder.AddAttribute("empty", AttributeValue::String(""));
  builder.AddCapacity("gpu", Q("1"));
  builder.AddDevice("gpu", "");
  builder.AddAttribute("gpu-0", AttributeValue::String("gp"));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].driver(), "gpu");
  EXPECT_EQ(devices[0].pool(), "gpu");
  EXPECT_EQ(devices[0].slice_name(), "gpu-0");
  EXPECT_EQ(devices[0].name(), "gpu-0");
  EXPECT_EQ(devices[0].node(), "gpu");
  EXPECT_EQ(Attr(devices[0], "gpu"), AttributeValue::String("gpu"));
  EXPECT_EQ(Attr(devices[0], "type"), AttributeValue::Version("gpu-0"));
  EXPECT_EQ(Attr(devices[0], "empty"), AttributeValue::String(""));
  EXPECT_THAT(Capacities(devices[0]), ElementsAre("gpu=1"));
  EXPECT_EQ(devices[1].name(), "gpu");
  EXPECT_EQ(devices[1].node(), "");
  EXPECT_THAT(AttributeNames(devices[1]), ElementsAre("gpu-0"));
  EXPECT_EQ(Attr(devices[1], "gpu-0"), AttributeValue::String("gp"));
}

TEST(DeviceTest, FindAttributeAndFindCapacityHitAndMiss) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.AddDevice("gpu-0", "n");
  builder.AddAttribute("productName", AttributeValue::String("L40S"));
  builder.AddAttribute("resource.kubernetes.io/pcieRoot", AttributeValue::String("pci0"));
  builder.AddAttribute("index", AttributeValue::Int(3));
  builder.AddCapacity("memory", Q("46068Mi"));
  builder.AddCapacity("cores", Q("142"));
  builder.AddDevice("gpu-1", "n");
  builder.AddAttribute("only-on-1", AttributeValue::Bool(true));
  builder.AddCapacity("only-on-1", Q("1"));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);
  const Device& d = devices[0];

  ASSERT_TRUE(d.FindAttribute("productName").has_value());
  EXPECT_EQ(d.FindAttribute("productName")->string_value(), "L40S");
  EXPECT_EQ(d.FindAttribute("resource.kubernetes.io/pcieRoot")->string_value(), "pci0");
  EXPECT_EQ(d.FindAttribute("index")->int_value(), 3);
  for (absl::string_view miss : {"", "productname", "product", "productNameX", "pcieRoot",
                                 "resource.kubernetes.io/", "zzz", "AAA", "only-on-1"}) {
    EXPECT_FALSE(d.FindAttribute(miss).has_value()) << miss;
    EXPECT_EQ(d.FindCapacity(miss), nullptr) << miss;
  }

  const Quantity* memory = d.FindCapacity("memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->ToString(), "46068Mi");
  ASSERT_NE(d.FindCapacity("cores"), nullptr);
  EXPECT_EQ(d.FindCapacity("cores")->ToString(), "142");
  EXPECT_EQ(d.FindCapacity("index"), nullptr);          // an attribute, not a capacity
  EXPECT_FALSE(d.FindAttribute("memory").has_value());  // a capacity, not an attribute

  // The other device of the block sees only its own entries.
  EXPECT_TRUE(devices[1].FindAttribute("only-on-1").has_value());
  ASSERT_NE(devices[1].FindCapacity("only-on-1"), nullptr);
  EXPECT_FALSE(devices[1].FindAttribute("productName").has_value());
  EXPECT_EQ(devices[1].FindCapacity("memory"), nullptr);
}

// FindAttribute scans a device's few attributes and binary-searches many: both find every name
// with its own value, and miss names that share a length and a first byte with one present.
TEST(DeviceTest, FindAttributeScansFewAndSearchesMany) {
  for (int count : {1, 10, 24, 25, 60}) {
    DeviceSetBuilder builder("d", "p", 1, "s");
    builder.AddDevice("gpu-0", "n");
    for (int i = 0; i < count; ++i) {
      builder.AddAttribute(absl::StrCat("attr", 100 + i), AttributeValue::Int(i));
    }
    const std::vector<Device> devices = std::move(builder).Build();
    ASSERT_EQ(devices.size(), 1u);
    for (int i = 0; i < count; ++i) {
      const std::string name = absl::StrCat("attr", 100 + i);
      std::optional<AttributeValue> v = devices[0].FindAttribute(name);
      ASSERT_TRUE(v.has_value()) << count << " " << name;
      EXPECT_EQ(v->int_value(), i) << count << " " << name;
    }
    for (absl::string_view miss :
         {"", "attr099", "attr", "attr1000", "bttr100", "attr9999", "zzz"}) {
      EXPECT_FALSE(devices[0].FindAttribute(miss).has_value()) << count << " " << miss;
    }
    EXPECT_FALSE(devices[0].FindAttribute(absl::StrCat("attr", 100 + count)).has_value()) << count;
  }
}

TEST(DeviceTest, SharesEntriesWithTheDevicesThatReadTheSameEverywhere) {
  CapacityRequestPolicy policy;
  policy.default_value = Q("1Gi");
  const auto add = [&](DeviceSetBuilder& b, const std::string& name, const std::string& value,
                       const std::string& memory, bool with_policy, bool extra) {
    b.AddDevice(name, "n");
    b.AddAttribute("a", AttributeValue::Int(1));
    b.AddAttribute("b", AttributeValue::String(value));
    if (extra) b.AddAttribute("c", AttributeValue::Bool(true));
    b.AddCapacity("memory", Q(memory), with_policy ? &policy : nullptr);
  };
  DeviceSetBuilder builder("d", "p", 1, "s");
  add(builder, "gpu-0", "x", "40Gi", false, false);
  add(builder, "gpu-1", "x", "40Gi", false, false);  // the same but for its name
  add(builder, "gpu-2", "y", "40Gi", false, false);  // another value
  add(builder, "gpu-3", "x", "80Gi", false, false);  // another capacity
  add(builder, "gpu-4", "x", "40Gi", true, false);   // a request policy
  add(builder, "gpu-5", "x", "40Gi", false, true);   // one attribute more
  const std::vector<Device> d = std::move(builder).Build();
  DeviceSetBuilder other_builder("d", "p", 1, "s");
  add(other_builder, "gpu-0", "x", "40Gi", false, false);
  const std::vector<Device> other = std::move(other_builder).Build();

  EXPECT_TRUE(d[0].SharesEntriesWith(d[0]));
  EXPECT_TRUE(d[1].SharesEntriesWith(d[0]));
  EXPECT_TRUE(d[0].SharesEntriesWith(d[1]));
  for (int i : {2, 3, 4, 5}) {
    EXPECT_FALSE(d[i].SharesEntriesWith(d[0])) << i;
    EXPECT_FALSE(d[0].SharesEntriesWith(d[i])) << i;
  }
  EXPECT_EQ(other[0], d[0]);  // equal, but another storage's entries
  EXPECT_FALSE(other[0].SharesEntriesWith(d[0]));
  EXPECT_TRUE(Device().SharesEntriesWith(Device()));  // both read as empty
}

TEST(DeviceTest, FindCapacityScansFewAndSearchesMany) {
  for (int count : {1, 4, 5, 12}) {
    DeviceSetBuilder builder("d", "p", 1, "s");
    builder.AddDevice("gpu-0", "n");
    // Added in reverse: the device keeps them sorted by name.
    for (int i = count - 1; i >= 0; --i) {
      builder.AddCapacity(absl::StrCat("cap", 100 + i), *Quantity::Parse(absl::StrCat(i)));
    }
    const std::vector<Device> devices = std::move(builder).Build();
    ASSERT_EQ(devices.size(), 1u);
    for (int i = 0; i < count; ++i) {
      const std::string name = absl::StrCat("cap", 100 + i);
      const Quantity* q = devices[0].FindCapacity(name);
      ASSERT_NE(q, nullptr) << count << " " << name;
      EXPECT_EQ(q->ToString(), absl::StrCat(i)) << count << " " << name;
    }
    for (absl::string_view miss : {"", "cap099", "cap", "cap1000", "dap100", "zzz"}) {
      EXPECT_EQ(devices[0].FindCapacity(miss), nullptr) << count << " " << miss;
    }
  }
}

TEST(DeviceTest, EqualQuantitiesWithDifferentFormatsStayDistinct) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.AddDevice("binary", "");
  builder.AddCapacity("a", Q("1Gi"));
  builder.AddCapacity("b", Q("1073741824"));
  builder.AddDevice("decimal", "");
  builder.AddCapacity("a", Q("1073741824"));
  builder.AddCapacity("b", Q("1Gi"));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 2u);

  EXPECT_THAT(Capacities(devices[0]), ElementsAre("a=1Gi", "b=1073741824"));
  EXPECT_THAT(Capacities(devices[1]), ElementsAre("a=1073741824", "b=1Gi"));
  const Quantity* a = devices[0].FindCapacity("a");
  const Quantity* b = devices[0].FindCapacity("b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(*a, *b);  // equal amounts
  EXPECT_NE(a->format(), b->format());
  EXPECT_THAT(devices[0].DebugString(), HasSubstr("a=1Gi"));
  EXPECT_THAT(devices[0].DebugString(), HasSubstr("b=1073741824"));

  // The format is part of a device's value.
  EXPECT_NE(DeviceBuilder().Capacity("m", Q("1Gi")).Build(),
            DeviceBuilder().Capacity("m", Q("1073741824")).Build());
  EXPECT_EQ(DeviceBuilder().Capacity("m", Q("1Gi")).Build(),
            DeviceBuilder().Capacity("m", Q("1Gi")).Build());
  const Device from_builder = DeviceBuilder().Capacity("m", Q("1073741824")).Build();
  EXPECT_EQ(from_builder.FindCapacity("m")->ToString(), "1073741824");
}

TEST(DeviceTest, DefaultConstructedDeviceIsEmpty) {
  const Device d;
  EXPECT_EQ(d.driver(), "");
  EXPECT_EQ(d.pool(), "");
  EXPECT_EQ(d.pool_generation(), 0);
  EXPECT_EQ(d.slice_name(), "");
  EXPECT_EQ(d.node(), "");
  EXPECT_EQ(d.name(), "");
  EXPECT_TRUE(d.attributes().empty());
  EXPECT_EQ(d.attributes().size(), 0u);
  EXPECT_EQ(d.attributes().begin(), d.attributes().end());
  EXPECT_TRUE(d.capacity().empty());
  EXPECT_FALSE(d.FindAttribute("x").has_value());
  EXPECT_FALSE(d.FindAttribute("").has_value());
  EXPECT_EQ(d.FindCapacity("memory"), nullptr);
  EXPECT_EQ(d, Device());
  EXPECT_EQ(d, DeviceBuilder("").Pool("", 0).Build());
  EXPECT_NE(d, DeviceBuilder("").Pool("", 0).Attribute("x", AttributeValue::Int(0)).Build());
  std::vector<Device> resized(3);  // default devices fill containers
  for (const Device& r : resized) EXPECT_EQ(r, d);
}

TEST(DeviceTest, DevicesAndViewsOutliveTheBuilderAndTheCallersStrings) {
  std::vector<Device> devices;
  absl::string_view name_view;
  std::optional<AttributeValue> kept_value;
  {
    auto driver = std::make_unique<std::string>("gpu.example.com");
    auto pool = std::make_unique<std::string>("pool-with-a-long-name-to-avoid-sso");
    auto slice = std::make_unique<std::string>("slice-with-a-long-name-to-avoid-sso");
    auto node = std::make_unique<std::string>("node-with-a-long-name-to-avoid-sso");
    auto builder = std::make_unique<DeviceSetBuilder>(*driver, *pool, 3, *slice);
    for (int i = 0; i < 3; ++i) {
      std::string device_name = absl::StrCat("device-with-a-long-name-", i);
      std::string attribute_name = "attribute-with-a-long-name-to-avoid-sso";
      std::string text = absl::StrCat("value-with-a-long-text-to-avoid-sso-", i);
      builder->AddDevice(device_name, *node);
      builder->AddAttribute(attribute_name, AttributeValue::String(text));
      builder->AddAttribute("version", AttributeValue::Version(absl::StrCat(i, ".0.0")));
      // The caller's text may change right after the call: the builder copied it.
      text.assign(text.size(), 'X');
      attribute_name.assign(attribute_name.size(), 'X');
      device_name.assign(device_name.size(), 'X');
    }
    builder->AddCapacity("memory", Q("40Gi"));
    devices = std::move(*builder).Build();
    builder.reset();
    driver->assign(driver->size(), 'X');
    pool->assign(pool->size(), 'X');
    node->assign(node->size(), 'X');
    slice->assign(slice->size(), 'X');
  }
  ASSERT_EQ(devices.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Device& d = devices[i];
    EXPECT_EQ(d.driver(), "gpu.example.com");
    EXPECT_EQ(d.pool(), "pool-with-a-long-name-to-avoid-sso");
    EXPECT_EQ(d.pool_generation(), 3);
    EXPECT_EQ(d.slice_name(), "slice-with-a-long-name-to-avoid-sso");
    EXPECT_EQ(d.node(), "node-with-a-long-name-to-avoid-sso");
    EXPECT_EQ(d.name(), absl::StrCat("device-with-a-long-name-", i));
    EXPECT_EQ(Attr(d, "attribute-with-a-long-name-to-avoid-sso").string_value(),
              absl::StrCat("value-with-a-long-text-to-avoid-sso-", i));
    EXPECT_EQ(Attr(d, "version").string_value(), absl::StrCat(i, ".0.0"));
  }
  EXPECT_THAT(Capacities(devices[2]), ElementsAre("memory=40Gi"));

  // Views read from one device stay valid while any device of its block lives.
  const Device last = devices[2];
  name_view = devices[0].name();
  kept_value = devices[0].FindAttribute("attribute-with-a-long-name-to-avoid-sso");
  const Quantity* memory = devices[2].FindCapacity("memory");
  devices.clear();
  devices.shrink_to_fit();
  EXPECT_EQ(name_view, "device-with-a-long-name-0");
  ASSERT_TRUE(kept_value.has_value());
  EXPECT_EQ(kept_value->string_value(), "value-with-a-long-text-to-avoid-sso-0");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->ToString(), "40Gi");
  EXPECT_EQ(last.name(), "device-with-a-long-name-2");

  // DeviceBuilder: the device outlives the builder and the strings it was given.
  Device single;
  {
    std::string text = "a-string-long-enough-to-live-on-the-heap";
    DeviceBuilder builder("gpu-heap-name-long-enough-to-live-on-the-heap");
    builder.Driver("driver.example.com").Attribute("x", AttributeValue::String(text));
    text.assign(text.size(), 'X');
    single = builder.Build();
  }
  EXPECT_EQ(single.name(), "gpu-heap-name-long-enough-to-live-on-the-heap");
  EXPECT_EQ(single.driver(), "driver.example.com");
  EXPECT_EQ(Attr(single, "x").string_value(), "a-string-long-enough-to-live-on-the-heap");
}

TEST(DeviceTest, CopiesAndIndependentlyBuiltEqualDevicesCompareEqual) {
  auto base = [] {
    return DeviceBuilder("gpu-0")
        .Driver("gpu.example.com")
        .Pool("pool", 2)
        .Slice("slice")
        .Node("node-a")
        .Attribute("productName", AttributeValue::String("L40S"))
        .Attribute("index", AttributeValue::Int(0))
        .Attribute("driverVersion", AttributeValue::Version("570.133.20"))
        .Attribute("sriov", AttributeValue::Bool(false))
        .Capacity("memory", Q("46068Mi"));
  };
  auto build = [&base] { return base().Build(); };
  const Device a = build();
  const Device copy = a;  // NOLINT(performance-unnecessary-copy-initialization)
  Device assigned;
  assigned = a;
  EXPECT_EQ(copy, a);
  EXPECT_EQ(assigned, a);
  EXPECT_EQ(build(), a);

  // The same device from a DeviceSetBuilder (other storage, other neighbours) is equal too.
  DeviceSetBuilder set("gpu.example.com", "pool", 2, "slice");
  set.AddDevice("other", "node-b");
  set.AddAttribute("productName", AttributeValue::String("A100"));
  set.AddDevice("gpu-0", "node-a");
  set.AddCapacity("memory", Q("46068Mi"));
  set.AddAttribute("sriov", AttributeValue::Bool(false));
  set.AddAttribute("driverVersion", AttributeValue::Version("570.133.20"));
  set.AddAttribute("index", AttributeValue::Int(0));
  set.AddAttribute("productName", AttributeValue::String("L40S"));
  const std::vector<Device> devices = std::move(set).Build();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1], a);
  EXPECT_NE(devices[0], a);

  // Any one difference makes them unequal.
  ASSERT_EQ(base().Build(), a);
  const std::vector<std::pair<std::string, Device>> different = {
      {"name", base().Name("gpu-1").Build()},
      {"driver", base().Driver("other.example.com").Build()},
      {"pool", base().Pool("pool-2", 2).Build()},
      {"generation", base().Pool("pool", 3).Build()},
      {"slice", base().Slice("slice-2").Build()},
      {"node", base().Node("node-b").Build()},
      {"string value", base().Attribute("productName", AttributeValue::String("A100")).Build()},
      {"int value", base().Attribute("index", AttributeValue::Int(1)).Build()},
      {"bool value", base().Attribute("sriov", AttributeValue::Bool(true)).Build()},
      {"version value",
       base().Attribute("driverVersion", AttributeValue::Version("570.133.21")).Build()},
      {"kind", base().Attribute("driverVersion", AttributeValue::String("570.133.20")).Build()},
      {"extra attribute", base().Attribute("extra", AttributeValue::Int(0)).Build()},
      {"missing attribute", base().RemoveAttribute("sriov").Build()},
      {"capacity value", base().Capacity("memory", Q("46069Mi")).Build()},
      {"capacity format", base().Capacity("memory", Q("48305799168")).Build()},
      {"extra capacity", base().Capacity("cores", Q("1")).Build()},
  };
  ASSERT_EQ(Q("46068Mi"), Q("48305799168"));
  for (const auto& [what, d] : different) {
    EXPECT_NE(d, a) << what;
    EXPECT_FALSE(d == a) << what;
    EXPECT_NE(a, d) << what;
  }
}

TEST(DeviceBuilderTest, VariantsDoNotAffectDevicesBuiltBefore) {
  DeviceBuilder builder("gpu-0");
  builder.Driver("gpu.example.com")
      .Node("node-a")
      .Attribute("productName", AttributeValue::String("L40S"))
      .Attribute("index", AttributeValue::Int(0))
      .Capacity("memory", Q("40Gi"));
  const Device first = builder.Build();
  const Device first_again = builder.Build();

  builder.Attribute("productName", AttributeValue::String("A100"))
      .Capacity("memory", Q("80Gi"))
      .RemoveAttribute("index")
      .Name("gpu-1")
      .Node("node-b");
  const Device second = builder.Build();

  EXPECT_EQ(first.name(), "gpu-0");
  EXPECT_EQ(first.node(), "node-a");
  EXPECT_EQ(Attr(first, "productName").string_value(), "L40S");
  EXPECT_EQ(Attr(first, "index").int_value(), 0);
  EXPECT_THAT(Capacities(first), ElementsAre("memory=40Gi"));
  EXPECT_EQ(first, first_again);

  EXPECT_EQ(second.name(), "gpu-1");
  EXPECT_EQ(second.node(), "node-b");
  EXPECT_EQ(second.driver(), "gpu.example.com");
  EXPECT_EQ(Attr(second, "productName").string_value(), "A100");
  EXPECT_FALSE(second.FindAttribute("index").has_value());
  EXPECT_THAT(Capacities(second), ElementsAre("memory=80Gi"));
  EXPECT_NE(first, second);
}

TEST(DeviceBuilderTest, Defaults) {
  const Device d = DeviceBuilder().Build();
  EXPECT_EQ(d.name(), "gpu-0");
  EXPECT_EQ(d.pool_generation(), 1);
  EXPECT_EQ(d.driver(), "");
  EXPECT_EQ(d.node(), "");
  EXPECT_TRUE(d.attributes().empty());
  EXPECT_TRUE(d.capacity().empty());
  EXPECT_EQ(DeviceBuilder().Pool("p").Build().pool_generation(), 1);
}

TEST(DeviceSetBuilderTest, EachDeviceMayHaveItsOwnNode) {
  DeviceSetBuilder builder("d", "rack-1", 1, "shared");
  builder.AddDevice("gpu-0", "node-b");
  builder.AddDevice("gpu-1", "");
  builder.AddDevice("gpu-2", "node-c");
  builder.AddDevice("gpu-3", "node-b");
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[0].node(), "node-b");
  EXPECT_EQ(devices[1].node(), "");
  EXPECT_EQ(devices[2].node(), "node-c");
  EXPECT_EQ(devices[3].node(), "node-b");
  EXPECT_NE(devices[0], devices[3]);  // same node, other name
  for (const Device& d : devices) EXPECT_EQ(d.pool(), "rack-1");
}

TEST(DeviceSetBuilderTest, DeviceWithoutAttributesBetweenTwoWithAttributes) {
  DeviceSetBuilder builder("d", "p", 1, "s");
  builder.AddDevice("first", "n");
  builder.AddAttribute("b", AttributeValue::Int(1));
  builder.AddAttribute("a", AttributeValue::String("first-a"));
  builder.AddCapacity("memory", Q("1Gi"));
  builder.AddDevice("empty", "n");
  builder.AddDevice("last", "n");
  builder.AddAttribute("c", AttributeValue::Bool(true));
  builder.AddAttribute("a", AttributeValue::String("last-a"));
  builder.AddCapacity("memory", Q("2Gi"));
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), 3u);

  EXPECT_THAT(AttributeNames(devices[0]), ElementsAre("a", "b"));
  EXPECT_EQ(Attr(devices[0], "a").string_value(), "first-a");
  EXPECT_EQ(Attr(devices[0], "b").int_value(), 1);
  EXPECT_THAT(Capacities(devices[0]), ElementsAre("memory=1Gi"));

  EXPECT_EQ(devices[1].name(), "empty");
  EXPECT_TRUE(devices[1].attributes().empty());
  EXPECT_TRUE(devices[1].capacity().empty());
  for (absl::string_view name : {"a", "b", "c", "memory"}) {
    EXPECT_FALSE(devices[1].FindAttribute(name).has_value()) << name;
    EXPECT_EQ(devices[1].FindCapacity(name), nullptr) << name;
  }

  EXPECT_THAT(AttributeNames(devices[2]), ElementsAre("a", "c"));
  EXPECT_EQ(Attr(devices[2], "a").string_value(), "last-a");
  EXPECT_TRUE(Attr(devices[2], "c").bool_value());
  EXPECT_FALSE(devices[2].FindAttribute("b").has_value());
  EXPECT_THAT(Capacities(devices[2]), ElementsAre("memory=2Gi"));
}

TEST(DeviceSetBuilderTest, EmptySetAndManyDevices) {
  EXPECT_TRUE(DeviceSetBuilder("d", "p", 1, "s").Build().empty());

  DeviceSetBuilder builder("d", "p", 1, "s");
  constexpr int kDevices = 2000;
  for (int i = 0; i < kDevices; ++i) {
    builder.AddDevice(absl::StrCat("gpu-", i), absl::StrCat("node-", i % 10));
    for (int j = 9; j >= 0; --j) {
      builder.AddAttribute(absl::StrCat("attr-", j),
                           AttributeValue::String(absl::StrCat(i, "/", j)));
    }
    builder.AddCapacity("memory", Quantity::FromInt(i % 3));
  }
  const std::vector<Device> devices = std::move(builder).Build();
  ASSERT_EQ(devices.size(), static_cast<size_t>(kDevices));
  for (int i = 0; i < kDevices; i += 97) {
    const Device& d = devices[i];
    EXPECT_EQ(d.name(), absl::StrCat("gpu-", i));
    EXPECT_EQ(d.node(), absl::StrCat("node-", i % 10));
    ASSERT_EQ(d.attributes().size(), 10u);
    for (int j = 0; j < 10; ++j) {
      EXPECT_EQ(d.attributes()[j].name, absl::StrCat("attr-", j));
      EXPECT_EQ(d.attributes()[j].value.string_value(), absl::StrCat(i, "/", j));
    }
    ASSERT_NE(d.FindCapacity("memory"), nullptr);
    EXPECT_EQ(*d.FindCapacity("memory"), Quantity::FromInt(i % 3));
  }
}

TEST(DeviceTest, DebugStringAndPrintTo) {
  const Device d = DeviceBuilder("gpu-0")
                       .Driver("gpu.example.com")
                       .Pool("pool", 4)
                       .Slice("slice-1")
                       .Node("node-a")
                       .Attribute("index", AttributeValue::Int(-3))
                       .Attribute("sriov", AttributeValue::Bool(true))
                       .Attribute("productName", AttributeValue::String("L40S"))
                       .Attribute("driverVersion", AttributeValue::Version("550.127.08"))
                       .Capacity("memory", Q("1Gi"))
                       .Build();
  const std::string s = d.DebugString();
  EXPECT_THAT(s, HasSubstr("gpu.example.com/pool"));
  EXPECT_THAT(s, HasSubstr("gpu-0"));
  EXPECT_THAT(s, HasSubstr("slice-1"));
  EXPECT_THAT(s, HasSubstr("node-a"));
  EXPECT_THAT(s, HasSubstr("index=-3"));
  EXPECT_THAT(s, HasSubstr("sriov=true"));
  EXPECT_THAT(s, HasSubstr("productName=\"L40S\""));
  EXPECT_THAT(s, HasSubstr("550.127.08"));
  EXPECT_THAT(s, HasSubstr("memory=1Gi"));
  std::ostringstream os;
  PrintTo(d, &os);
  EXPECT_EQ(os.str(), s);
  EXPECT_EQ(::testing::PrintToString(d), s);
}

// --- capacity.<name>.requestPolicy --------------------------------------------------------

CapacityRequestPolicy Range(const char* min, std::optional<const char*> max,
                            std::optional<const char*> step) {
  CapacityRequestPolicy p;
  p.valid_range = CapacityRequestPolicy::Range{Q(min), std::nullopt, std::nullopt};
  if (max) p.valid_range->max = Q(*max);
  if (step) p.valid_range->step = Q(*step);
  return p;
}

std::string Rounded(const CapacityRequestPolicy& p, const char* amount) {
  std::optional<Quantity> q = p.Round(Q(amount));
  return q ? q->ToString() : "none";
}

TEST(CapacityRequestPolicyTest, ValidValuesRoundUpToTheSmallestNotBelow) {
  CapacityRequestPolicy p;
  p.valid_values = {Q("10Gi"), Q("20Gi"), Q("40Gi")};
  EXPECT_EQ(Rounded(p, "1Gi"), "10Gi");
  EXPECT_EQ(Rounded(p, "10Gi"), "10Gi");
  EXPECT_EQ(Rounded(p, "11Gi"), "20Gi");
  EXPECT_EQ(Rounded(p, "40Gi"), "40Gi");
  EXPECT_EQ(Rounded(p, "41Gi"), "none");  // above every valid value
}

TEST(CapacityRequestPolicyTest, ValidRangeRoundsToMinAndSteps) {
  const CapacityRequestPolicy stepped = Range("8Gi", std::nullopt, "8Gi");
  EXPECT_EQ(Rounded(stepped, "1Gi"), "8Gi");  // below min: min
  EXPECT_EQ(Rounded(stepped, "8Gi"), "8Gi");
  EXPECT_EQ(Rounded(stepped, "9Gi"), "16Gi");  // min + 1 step
  EXPECT_EQ(Rounded(stepped, "16Gi"), "16Gi");
  EXPECT_EQ(Rounded(stepped, "17Gi"), "24Gi");
  const CapacityRequestPolicy offset = Range("1", std::nullopt, "4");
  EXPECT_EQ(Rounded(offset, "2"), "5");  // min + n*step, not a multiple of step
  const CapacityRequestPolicy bounded = Range("8Gi", "16Gi", "8Gi");
  EXPECT_EQ(Rounded(bounded, "16Gi"), "16Gi");
  EXPECT_EQ(Rounded(bounded, "17Gi"), "none");                          // rounds to 24Gi, above max
  EXPECT_EQ(Rounded(Range("1Gi", "4Gi", std::nullopt), "3Gi"), "3Gi");  // no step: as requested
  EXPECT_EQ(Rounded(Range("1Gi", "4Gi", std::nullopt), "5Gi"), "none");
  EXPECT_EQ(Rounded(Range("0", std::nullopt, "1Mi"), "1500Ki"), "2Mi");
}

TEST(CapacityRequestPolicyTest, NoValuesOrRangeTakesTheRequest) {
  CapacityRequestPolicy p;
  p.default_value = Q("1Gi");
  EXPECT_EQ(Rounded(p, "3Gi"), "3Gi");
}

TEST(CapacityRequestPolicyTest, BuildersKeepPoliciesAndDevicesCompareThem) {
  const CapacityRequestPolicy policy = Range("8Gi", "48Gi", "8Gi");
  const Device with = DeviceBuilder().Capacity("memory", Q("48Gi"), policy).Build();
  ASSERT_NE(with.FindRequestPolicy("memory"), nullptr);
  EXPECT_EQ(*with.FindRequestPolicy("memory"), policy);
  EXPECT_EQ(with.capacity()[0].request_policy, with.FindRequestPolicy("memory"));
  EXPECT_EQ(with.FindRequestPolicy("shares"), nullptr);
  const Device without = DeviceBuilder().Capacity("memory", Q("48Gi")).Build();
  EXPECT_EQ(without.FindRequestPolicy("memory"), nullptr);
  EXPECT_EQ(without.capacity()[0].request_policy, nullptr);
  EXPECT_NE(with, without);
  EXPECT_EQ(with, DeviceBuilder().Capacity("memory", Q("48Gi"), policy).Build());
  EXPECT_NE(with,
            DeviceBuilder().Capacity("memory", Q("48Gi"), Range("8Gi", "48Gi", "4Gi")).Build());

  // One slice's devices share equal policies.
  DeviceSetBuilder b("d", "p", 1, "s");
  for (const char* name : {"a", "b"}) {
    b.AddDevice(name, "n");
    b.AddCapacity("memory", Q("48Gi"), &policy);
    b.AddCapacity("cores", Q("4"));
  }
  const std::vector<Device> devices = std::move(b).Build();
  EXPECT_EQ(devices[0].FindRequestPolicy("memory"), devices[1].FindRequestPolicy("memory"));
  EXPECT_EQ(devices[1].FindRequestPolicy("cores"), nullptr);
}

}  // namespace
}  // namespace device_test
}  // namespace gpuprofile::dra
