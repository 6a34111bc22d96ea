// File: test/cmd/manifest_writer_test.cc
#include "controller/cmd/manifest_writer.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cmd {
namespace manifest_writer_test {
namespace {

using Json = nlohmann::ordered_json;

TEST(ManifestWriterTest, KubectlLikeBlockStyle) {
  Json obj;
  obj["apiVersion"] = "v1";
  obj["kind"] = "Thing";
  obj["metadata"]["name"] = "x";
  obj["spec"]["list"] = Json::array({Json{{"a", 1}, {"b", Json{{"c", true}}}}, "s"});
  obj["spec"]["empty"] = Json::object();
  obj["spec"]["none"] = Json::array();
  EXPECT_EQ(ToYamlStream({obj, obj}),
            "apiVersion: v1\nkind: Thing\nmetadata:\n  name: x\nspec:\n  list:\n  - a: 1\n"
            "    b:\n      c: true\n  - s\n  empty: {}\n  none: []\n---\n"
            "apiVersion: v1\nkind: Thing\nmetadata:\n  name: x\nspec:\n  list:\n  - a: 1\n"
            "    b:\n      c: true\n  - s\n  empty: {}\n  none: []\n");
}

TEST(ManifestWriterTest, AmbiguousStringsAreQuoted) {
  for (const char* text :
       {"",          "yes",      "No",        "true",      "null", "~",    "1",  "1.0",
        "40Gi",      "8.0.0",    "-1",        ".5",        "a: b", "x #y", "#x", "- x",
        "trailing ", " leading", "tab\there", "new\nline", "é",    "[x",   "{x", "*x",
        "&x",        "!x",       "|x",        ">x",        "'x",   "\"x",  "%x", "@x",
        "`x",        "on",       "Off",       "y",         "=",    "<<"}) {
    EXPECT_FALSE(IsPlainYamlSafe(text)) << text;
  }
  for (const char* text : {"gpu", "Ada Lovelace", "NVIDIA A100-SXM4-40GB", "gpu.nvidia.com",
                           "device.driver == 'gpu.nvidia.com' && x[0]", "a:b", "x#y"}) {
    EXPECT_TRUE(IsPlainYamlSafe(text)) << text;
  }
}

// Whatever the strings, reading the YAML back (as kubectl's YAML 1.1 rules do) gives the same
// JSON.
TEST(ManifestWriterTest, RoundTripsThroughTheReader) {
  Json obj;
  obj["apiVersion"] = "v1";
  obj["kind"] = "Thing";
  const std::vector<std::string> strings = {
      "",
      "yes",
      "1",
      "1.0",
      "40Gi",
      "8.0.0",
      "a: b",
      "x #y",
      "#x",
      "- x",
      "trailing ",
      "new\nline",
      "quote\"s and 'single'",
      "back\\slash",
      "é ü",
      "0x1F",
      "1e3",
      "1_000",
      "12:30",
      "2026-11-29",
      "device.attributes['gpu.nvidia.com'].type == 'gpu' && 'memory' in x"};
  for (size_t i = 0; i < strings.size(); ++i) obj["s" + std::to_string(i)] = strings[i];
  obj["n"] = 42;
  obj["f"] = 1.5;
  obj["b"] = false;
  obj["z"] = nullptr;
  absl::StatusOr<std::vector<dra::ManifestObject>> back =
      dra::ParseManifests(ToYamlStream({obj}), "out.yaml");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << ToYamlStream({obj});
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].object, nlohmann::json::parse(obj.dump())) << ToYamlStream({obj});
}

TEST(ManifestWriterTest, JsonList) {
  Json a;
  a["kind"] = "A";
  EXPECT_EQ(ToJsonList({a}),
            "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\n"
            "      \"kind\": \"A\"\n    }\n  ]\n}\n");
}

// ToJsonList's own printer against nlohmann's dump of the same list, to the byte.
std::string NlohmannList(const std::vector<Json>& objects) {
  Json list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = objects;
  return list.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

TEST(ManifestWriterTest, JsonListPrintsAsNlohmannDoes) {
  Json obj;
  obj["plain"] = "nvidia.com/gpu";
  obj["quote\"key"] = "a \"quoted\" \\ text";
  obj["controls"] = std::string("tab\tnew\nline\x01\x1f\x7f end", 25);
  obj["utf8"] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80";
  obj["invalid utf8"] = "bad \xff\xfe and cut \xe2\x82";
  obj["numbers"] =
      Json::array({0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(),
                   1.5, -0.0, 1e300, 3.0, std::numeric_limits<double>::quiet_NaN()});
  obj["flags"] = Json::array({true, false, nullptr});
  obj["empties"] = Json{{"o", Json::object()}, {"a", Json::array()}, {"s", ""}};
  obj["nested"] = Json::array({Json::array({Json::array({1}), Json::object()}), Json{{"k", {1}}}});
  for (const std::vector<Json>& objects :
       {std::vector<Json>{}, std::vector<Json>{obj}, std::vector<Json>{obj, Json::object(), 7}}) {
    EXPECT_EQ(ToJsonList(objects), NlohmannList(objects));
  }
}

Json RandomValue(std::mt19937* rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  const char kBytes[] = "aZ09 -_./\"\\\t\n\x01\x7f\xc3\xa9\xff";
  auto text = [&] {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 6)(*rng);
    for (int i = 0; i < n; ++i) {
      s.push_back(kBytes[std::uniform_int_distribution<size_t>(0, sizeof(kBytes) - 2)(*rng)]);
    }
    return s;
  };
  switch (kind(*rng)) {
    case 0:
      return nullptr;
    case 1:
      return (*rng)() % 2 == 0;
    case 2:
      return static_cast<int64_t>((*rng)()) - (int64_t{1} << 31);
    case 3:
      return static_cast<double>((*rng)()) / 7.0;
    case 4:
    case 5:
      return text();
    case 6: {
      Json a = Json::array();
      const int n = std::uniform_int_distribution<int>(0, 3)(*rng);
      for (int i = 0; i < n; ++i) a.push_back(RandomValue(rng, depth + 1));
      return a;
    }
    default: {
      Json o = Json::object();
      const int n = std::uniform_int_distribution<int>(0, 3)(*rng);
      for (int i = 0; i < n; ++i) o[text()] = RandomValue(rng, depth + 1);
      return o;
    }
  }
}

TEST(ManifestWriterTest, JsonListPrintsRandomDocumentsAsNlohmannDoes) {
  std::mt19937 rng(28);
  for (int round = 0; round < 2000; ++round) {
    std::vector<Json> objects;
    const int n = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int i = 0; i < n; ++i) objects.push_back(RandomValue(&rng, 0));
    ASSERT_EQ(ToJsonList(objects), NlohmannList(objects)) << "round " << round;
  }
}

TEST(ManifestWriterTest, JsonListWithABinaryValueIsDumpedWhole) {
  Json obj;
  obj["bytes"] = Json::binary({1, 2, 3});
  EXPECT_EQ(ToJsonList({obj}), NlohmannList({obj}));
}

}  // namespace
}  // namespace manifest_writer_test
}  // namespace gpuprofile::cmd
