// File: test/cmd/manifest_writer_test.cc
#include "controller/cmd/manifest_writer.h"

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

}  // namespace
}  // namespace manifest_writer_test
}  // namespace gpuprofile::cmd
