// File: test/dra/manifest_reader_test.cc
#include "controller/dra/manifest_reader.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/core/input_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir_test.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace manifest_reader_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

std::vector<std::string> Kinds(const std::vector<ManifestObject>& objects) {
  std::vector<std::string> kinds;
  for (const ManifestObject& o : objects) kinds.push_back(o.object["kind"].get<std::string>());
  return kinds;
}

TEST(ParseManifestsTest, YamlScalarsKeepKubernetesTypes) {
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(R"(apiVersion: v1
kind: ConfigMap
data:
  quantity: 40Gi
  int: 1
  negative: -5
  hex: 0x10
  octal: 010
  underscores: 1_000
  bool: true
  yaml11bool: yes
  norway: NO
  letter: Y
  off: off
  quoted: "1"
  single: 'true'
  null1: null
  null2: ~
  empty:
  float: 1.5
  exp: 1e3
  big: 12345678901234567890
  huge: 123456789012345678901234
  version: 8.0.0
  twopart: 12.4
  date: 2024-01-01
  literal: |
    42
  tagged: !!str 7
  ip: 0000:07:00.0
)",
                                                    "cm.yaml"));
  ASSERT_EQ(objects.size(), 1u);
  const json& data = objects[0].object["data"];
  EXPECT_EQ(data["quantity"], json("40Gi"));
  EXPECT_TRUE(data["int"].is_number_integer());
  EXPECT_EQ(data["int"].get<int64_t>(), 1);
  EXPECT_EQ(data["negative"].get<int64_t>(), -5);
  EXPECT_EQ(data["hex"].get<int64_t>(), 16);
  EXPECT_EQ(data["octal"].get<int64_t>(), 8);
  EXPECT_EQ(data["underscores"].get<int64_t>(), 1000);
  EXPECT_EQ(data["bool"], json(true));
  EXPECT_EQ(data["yaml11bool"], json(true));
  EXPECT_EQ(data["norway"], json(false));  // YAML 1.1, as kubectl reads it
  EXPECT_EQ(data["letter"], json(true));
  EXPECT_TRUE(data.contains("false")) << "YAML 1.1 `off` key becomes \"false\": " << data.dump();
  EXPECT_EQ(data["quoted"], json("1"));
  EXPECT_EQ(data["single"], json("true"));
  EXPECT_TRUE(data["null1"].is_null());
  EXPECT_TRUE(data["null2"].is_null());
  EXPECT_TRUE(data.contains("empty"));
  EXPECT_TRUE(data["empty"].is_null());
  EXPECT_TRUE(data["float"].is_number_float());
  EXPECT_DOUBLE_EQ(data["float"].get<double>(), 1.5);
  EXPECT_TRUE(data["exp"].is_number_float());
  EXPECT_DOUBLE_EQ(data["exp"].get<double>(), 1000.0);
  EXPECT_TRUE(data["big"].is_number_unsigned());
  EXPECT_EQ(data["big"].get<uint64_t>(), 12345678901234567890ull);
  EXPECT_TRUE(data["huge"].is_number_float());
  EXPECT_EQ(data["version"], json("8.0.0"));
  EXPECT_TRUE(data["twopart"].is_number_float());
  EXPECT_EQ(data["date"], json("2024-01-01"));
  EXPECT_EQ(data["literal"], json("42\n"));
  EXPECT_EQ(data["tagged"], json("7"));
  EXPECT_EQ(data["ip"], json("0000:07:00.0"));
}

TEST(ParseManifestsTest, MultiDocumentSkipsEmptyDocumentsAndCountsThem) {
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(R"(---
# Source: chart/templates/empty.yaml
---
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
---
~
---
apiVersion: v1
kind: Namespace
metadata: {name: b}
...
)",
                                                    "multi.yaml"));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].object["metadata"]["name"], "a");
  EXPECT_EQ(objects[0].document_index, 1);
  EXPECT_EQ(objects[1].object["metadata"]["name"], "b");
  EXPECT_EQ(objects[1].document_index, 4);
  EXPECT_EQ(objects[1].file, "multi.yaml");
  EXPECT_EQ(objects[1].item_index, -1);
  EXPECT_EQ(objects[1].Location(), "multi.yaml (document 5)");
  EXPECT_EQ(objects[1].Describe(), "Namespace \"b\"");
}

TEST(ParseManifestsTest, EmptyInputGivesNoObjects) {
  ASSERT_OK_AND_ASSIGN(auto yaml, ParseManifests("# nothing here\n", "empty.yaml"));
  EXPECT_TRUE(yaml.empty());
  ASSERT_OK_AND_ASSIGN(auto json_objects, ParseManifests("  \n", "empty.json"));
  EXPECT_TRUE(json_objects.empty());
}

TEST(ParseManifestsTest, ListsAreFlattened) {
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: s}
metadata: {resourceVersion: ""}
)",
                                                    "list.yaml"));
  EXPECT_THAT(Kinds(objects), ElementsAre("Namespace", "ResourceSlice"));
  EXPECT_EQ(objects[1].item_index, 1);
  EXPECT_EQ(objects[1].Location(), "list.yaml (document 1, items[1])");
}

TEST(ParseManifestsTest, TypedListItemsInheritKindAndApiVersion) {
  // What `kubectl get --raw /apis/resource.k8s.io/v1/resourceslices` returns.
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(R"({
  "kind": "ResourceSliceList",
  "apiVersion": "resource.k8s.io/v1",
  "metadata": {"resourceVersion": "12345"},
  "items": [
    {"metadata": {"name": "s1"}, "spec": {"driver": "gpu.nvidia.com"}},
    {"metadata": {"name": "s2"}, "spec": {"driver": "gpu.nvidia.com"}}
  ]
})",
                                                    "slices.json"));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].object["kind"], "ResourceSlice");
  EXPECT_EQ(objects[0].object["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(objects[1].object["metadata"]["name"], "s2");
  EXPECT_EQ(objects[1].document_index, 0);
}

TEST(ParseManifestsTest, EmptyListGivesNoObjects) {
  ASSERT_OK_AND_ASSIGN(auto objects,
                       ParseManifests("apiVersion: v1\nkind: List\nitems: []\n", "l.yaml"));
  EXPECT_TRUE(objects.empty());
}

TEST(ParseManifestsTest, JsonKeepsNumberTypes) {
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(
      R"({"apiVersion": "v1", "kind": "X", "a": 1, "b": "1", "c": 1.5, "d": null})", "x.json"));
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_TRUE(objects[0].object["a"].is_number_integer());
  EXPECT_TRUE(objects[0].object["b"].is_string());
  EXPECT_TRUE(objects[0].object["c"].is_number_float());
}

TEST(ParseManifestsTest, UnknownExtensionSniffsJson) {
  ASSERT_OK_AND_ASSIGN(auto json_objects,
                       ParseManifests(R"({"apiVersion": "v1", "kind": "X"})", "<stdin>"));
  ASSERT_EQ(json_objects.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto flow_yaml, ParseManifests("{apiVersion: v1, kind: Flow}", "<stdin>"));
  ASSERT_EQ(flow_yaml.size(), 1u);
  EXPECT_EQ(flow_yaml[0].object["kind"], "Flow");
}

TEST(ParseManifestsTest, AnchorsAliasesAndMergeKeys) {
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(R"(apiVersion: v1
kind: X
base: &base {a: 1, b: 2}
copy: *base
merged:
  <<: *base
  b: 3
)",
                                                    "anchors.yaml"));
  const json& o = objects.at(0).object;
  EXPECT_EQ(o["copy"], json({{"a", 1}, {"b", 2}}));
  EXPECT_EQ(o["merged"], json({{"a", 1}, {"b", 3}}));
}

TEST(ParseManifestsTest, MalformedYamlNamesFileDocumentAndLine) {
  auto result = ParseManifests(R"(apiVersion: v1
kind: A
---
apiVersion: v1
kind: B
metadata: {name: [unclosed
)",
                               "bad.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("bad.yaml: document 2: invalid YAML: line "));
}

TEST(ParseManifestsTest, DuplicateKeyIsAnError) {
  auto result = ParseManifests("apiVersion: v1\nkind: A\nkind: B\n", "dup.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("dup.yaml: document 1: invalid YAML: line 3, column 1: duplicate key "
                        "\"kind\""));
}

TEST(ParseManifestsTest, MalformedJsonNamesFileAndPosition) {
  auto result = ParseManifests("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \n}\n", "bad.json");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("bad.json: invalid JSON: "));
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("line 4"));
}

TEST(ParseManifestsTest, NonObjectsAndMissingKindAreErrorsAllReported) {
  auto result = ParseManifests(R"(- a
- b
---
apiVersion: v1
metadata: {name: x}
---
kind: Namespace
)",
                               "odd.yaml");
  ASSERT_FALSE(result.ok());
  const std::string message(result.status().message());
  EXPECT_THAT(message, HasSubstr("odd.yaml (document 1): expected a Kubernetes object (a "
                                 "mapping), got array"));
  EXPECT_THAT(message, HasSubstr("odd.yaml (document 2): object has no \"kind\""));
  EXPECT_THAT(message, HasSubstr("odd.yaml (document 3): object has no \"apiVersion\""));
}

TEST(ParseManifestsTest, NonFiniteFloatsAreRejected) {
  auto result = ParseManifests("apiVersion: v1\nkind: X\nv: .inf\n", "inf.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("cannot be represented in JSON"));
}

class ReadManifestsTest : public testing::TempDirTest {
 protected:
  static std::string Ns(const std::string& name) {
    return "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + name + "}\n";
  }
};

TEST_F(ReadManifestsTest, DirectoriesAreWalkedRecursivelyInSortedOrder) {
  Write("b.yaml", Ns("b"));
  Write("a/z.yml", Ns("az"));
  Write("a/c.json", R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ac"}})");
  Write("notes.txt", "not a manifest");
  Write("a/README.md", "# not a manifest");
  ASSERT_OK_AND_ASSIGN(auto objects, ReadManifests({root_.string()}));
  std::vector<std::string> names;
  for (const ManifestObject& o : objects) names.push_back(o.object["metadata"]["name"]);
  EXPECT_THAT(names, ElementsAre("ac", "az", "b"));
  EXPECT_EQ(objects[0].file, (root_ / "a/c.json").string());
}

TEST_F(ReadManifestsTest, ExplicitFilesAreReadWhateverTheirExtensionInGivenOrder) {
  const std::string second = Write("second.txt", Ns("second"));
  const std::string first = Write("first.yaml", Ns("first"));
  ASSERT_OK_AND_ASSIGN(auto objects, ReadManifests({second, first}));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].object["metadata"]["name"], "second");
  EXPECT_EQ(objects[1].file, first);
}

TEST_F(ReadManifestsTest, MissingPathIsNotFound) {
  auto result = ReadManifests({(root_ / "nope.yaml").string()});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("nope.yaml: no such file or directory"));
}

TEST_F(ReadManifestsTest, EveryBrokenFileIsReportedByName) {
  const std::string bad_yaml = Write("dir/one.yaml", "kind: [\n");
  const std::string bad_json = Write("dir/two.json", "{\"kind\": }");
  Write("dir/three.yaml", Ns("fine"));
  auto result = ReadManifests({(root_ / "dir").string()});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(result.status().message());
  EXPECT_THAT(message, HasSubstr(bad_yaml + ": document 1: invalid YAML"));
  EXPECT_THAT(message, HasSubstr(bad_json + ": invalid JSON"));
}

}  // namespace
}  // namespace manifest_reader_test
}  // namespace gpuprofile::dra

namespace gpuprofile::dra {
namespace manifest_reader_test {
namespace {

// yaml-cpp 0.7 returns the same empty document forever for some malformed streams; the reader
// must report them, not hang (found by fuzz/profile_fuzz).
TEST(ManifestReaderMalformedYamlTest, InputsThatLoopTheYamlParserAreErrors) {
  for (const char* text : {",\n", "\n,\n    ", "apiVersion: v1\n,\n",
                           "a: [b\n", "{:", "[:"}) {
    absl::StatusOr<std::vector<ManifestObject>> objects = ParseManifests(text, "bad.yaml");
    EXPECT_FALSE(objects.ok()) << text;
    EXPECT_THAT(objects.status().message(), ::testing::HasSubstr("bad.yaml")) << text;
  }
}

}  // namespace
}  // namespace manifest_reader_test
}  // namespace gpuprofile::dra

// Hostile input (controller/core/input_limits.h): every limit ends in an error naming the file,
// the document and the position, after bounded work.
namespace gpuprofile::dra {
namespace manifest_reader_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Repeat(absl::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out.append(s.data(), s.size());
  return out;
}

// A GpuProfile whose spec holds `levels` anchored lists of `fanout` aliases of the level below:
// fanout^levels strings once expanded.
std::string AliasBomb(int levels, int fanout) {
  std::string text =
      "apiVersion: gpuprofile.io/v1alpha1\nkind: GpuProfile\nmetadata: {name: lol}\nspec:\n"
      "  l0: &l0 [";
  for (int i = 0; i < fanout; ++i) absl::StrAppend(&text, i ? ", " : "", "\"lol\"");
  text += "]\n";
  for (int level = 1; level <= levels; ++level) {
    absl::StrAppend(&text, "  l", level, ": &l", level, " [");
    for (int i = 0; i < fanout; ++i) absl::StrAppend(&text, i ? ", " : "", "*l", level - 1);
    text += "]\n";
  }
  return text;
}

std::string Message(const absl::StatusOr<std::vector<ManifestObject>>& result) {
  return std::string(result.status().message());
}

std::string Deeper() { return absl::StrCat("deeper than ", limits::kMaxNestingDepth, " levels"); }

TEST(ManifestReaderLimitsTest, AliasBombFailsOnTheNodeBudgetNamingFileDocumentAndLine) {
  const std::string bomb = AliasBomb(9, 10);  // 10^9 strings from about 600 bytes
  auto result = ParseManifests(bomb, "bomb.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(result), HasSubstr("bomb.yaml: document 1: line "));
  EXPECT_THAT(Message(result),
              HasSubstr(absl::StrCat("anchors and aliases expand the file to more than ",
                                     limits::YamlNodeBudget(bomb.size()), " nodes")));
  EXPECT_THAT(Message(result), Not(HasSubstr("invalid YAML")));
}

TEST(ManifestReaderLimitsTest, TheCheckedInAliasBombFailsByName) {
  const std::string path =
      gpuprofile::testing::SourceDir() + "/test/testdata/hostile/alias-bomb.yaml";
  auto result = ReadManifests({path});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr(path + ": document 1: line "));
  EXPECT_THAT(Message(result), HasSubstr("anchors and aliases expand the file"));
}

TEST(ManifestReaderLimitsTest, AliasesWithinTheBudgetStillExpand) {
  // 3 levels of 10: 10^4 strings (about 25,000 nodes with the anchors' copies), inside the
  // budget of a small file.
  ASSERT_OK_AND_ASSIGN(auto objects, ParseManifests(AliasBomb(3, 10), "fine.yaml"));
  ASSERT_EQ(objects.size(), 1u);
  const nlohmann::json& l3 = objects[0].object["spec"]["l3"];
  ASSERT_EQ(l3.size(), 10u);
  EXPECT_EQ(l3[9][9][9][9], "lol");
}

TEST(ManifestReaderLimitsTest, TheBudgetIsSharedByTheDocumentsOfAFile) {
  // Each document alone is inside the budget (10^4 strings); together they are not.
  std::string one = AliasBomb(3, 10);
  auto result = ParseManifests(Repeat(one + "---\n", 20), "stream.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr("stream.yaml: document "));
  EXPECT_THAT(Message(result), HasSubstr("anchors and aliases expand the file"));
  EXPECT_THAT(Message(result), Not(HasSubstr("document 1:")));
}

TEST(ManifestReaderLimitsTest, AnchorCopiesAreChargedToo) {
  // Anchors on every level of a nested chain copy the subtree below each: quadratic work
  // without one alias.
  std::string text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: ";
  const int depth = 200;  // below the nesting limit: only the budget can stop this
  for (int i = 0; i < depth; ++i) {
    absl::StrAppend(&text, "&a", i, " [", Repeat("1, ", 20));
  }
  text += Repeat("]", depth) + "\n";
  auto result = ParseManifests(text, "anchors.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr("anchors.yaml: document 1: line 4, column "));
  EXPECT_THAT(Message(result), HasSubstr("nodes, the limit for"));
}

struct DeepCase {
  const char* name;
  std::string text;
};

TEST(ManifestReaderLimitsTest, DeepNestingIsRefusedWithoutExhaustingTheStack) {
  constexpr int kDeep = 100'000;
  const std::string object = R"({"apiVersion": "v1", "kind": "ConfigMap", "data": )";
  const std::vector<DeepCase> cases = {
      {"flow.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: " + Repeat("[", kDeep) +
                        Repeat("]", kDeep) + "\n"},
      {"flow-maps.yaml", "a: " + Repeat("{a: ", kDeep) + "1" + Repeat("}", kDeep) + "\n"},
      {"block.yaml", Repeat("- ", kDeep) + "x\n"},
      {"unclosed.yaml", Repeat("[", kDeep)},
      {"arrays.json", object + Repeat("[", kDeep) + Repeat("]", kDeep) + "}"},
      {"objects.json", object + Repeat(R"({"a": )", kDeep) + "1" + Repeat("}", kDeep) + "}"},
      {"unclosed.json", Repeat("[", kDeep)},
      {"stdin", object + Repeat("[", kDeep) + Repeat("]", kDeep) + "}"},  // sniffed as JSON
  };
  for (const DeepCase& c : cases) {
    auto result = ParseManifests(c.text, c.name);
    ASSERT_FALSE(result.ok()) << c.name;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(Message(result), HasSubstr(absl::StrCat(c.name, ": "))) << c.name;
    EXPECT_THAT(Message(result), HasSubstr(Deeper())) << c.name;
  }
}

TEST(ManifestReaderLimitsTest, NestingUpToTheLimitIsAccepted) {
  const int depth = limits::kMaxNestingDepth;
  // The document's top-level mapping is one level; `data` holds depth - 1 more.
  const std::string yaml = "apiVersion: v1\nkind: ConfigMap\ndata: " +
                           Repeat("[", depth - 1) + Repeat("]", depth - 1) + "\n";
  EXPECT_OK(ParseManifests(yaml, "ok.yaml"));
  const std::string too_deep = "apiVersion: v1\nkind: ConfigMap\ndata: " + Repeat("[", depth) +
                               Repeat("]", depth) + "\n";
  auto result = ParseManifests(too_deep, "deep.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result),
              HasSubstr(absl::StrCat("deep.yaml: document 1: line 3, column ", 6 + depth,
                                     ": mappings and sequences nest ", Deeper())));
  const std::string json = R"({"apiVersion": "v1", "kind": "ConfigMap", "data": )" +
                           Repeat("[", depth - 1) + Repeat("]", depth - 1) + "}";
  EXPECT_OK(ParseManifests(json, "ok.json"));
}

TEST(ManifestReaderLimitsTest, AliasesCannotNestDeeperThanTheLimit) {
  // The anchored value is 3/4 of the limit deep; an alias of it at that level makes 6/4.
  const int n = limits::kMaxNestingDepth * 3 / 4;
  const std::string deep = Repeat("[", n) + Repeat("]", n);
  const std::string text = "apiVersion: v1\nkind: ConfigMap\na: &deep " + deep + "\nb: " +
                           Repeat("[", n - 1) + "*deep" + Repeat("]", n - 1) + "\n";
  auto result = ParseManifests(text, "alias-depth.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr("alias-depth.yaml: document 1: line 4, column "));
  EXPECT_THAT(Message(result), HasSubstr(absl::StrCat(Deeper(), " (through an alias)")));
}

TEST(ManifestReaderLimitsTest, TooManyDocumentsStopTheFile) {
  const std::string text = Repeat("---\n", limits::kMaxYamlDocumentsPerFile + 10);
  auto result = ParseManifests(text, "separators.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result),
              HasSubstr("separators.yaml: document 100001: the file holds more than 100000 YAML "
                        "documents"));
  // Exactly the limit is fine.
  EXPECT_OK(ParseManifests(Repeat("---\n", limits::kMaxYamlDocumentsPerFile), "ok.yaml"));
}

TEST(ManifestReaderLimitsTest, WrongTypesAreErrorsNamingTheDocument) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"apiVersion: 1\nkind: Namespace\n", "object has no \"apiVersion\""},
      {"apiVersion: v1\nkind: [Namespace]\n", "object has no \"kind\""},
      {"- apiVersion: v1\n  kind: Namespace\n", "got array"},
      {"just a string\n", "got string"},
      {"apiVersion: v1\nkind: List\nitems: {a: 1}\n", "items must be a list, got object"},
      {"apiVersion: v1\nkind: List\nitems: [1]\n", "(document 1, items[0]): expected a "
                                                    "Kubernetes object (a mapping), got integer"},
      {"? [a, b]\n: c\n", "mapping keys must be scalars"},
      {"a: !!int x\n", "cannot decode \"x\" as !!int"},
  };
  for (const auto& [text, expected] : cases) {
    auto result = ParseManifests(text, "types.yaml");
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_THAT(Message(result), HasSubstr("types.yaml")) << text;
    EXPECT_THAT(Message(result), HasSubstr(expected)) << text;
  }
}

TEST_F(ReadManifestsTest, OversizedFilesAreRefusedBeforeTheyAreRead) {
  // A sparse file: no disk space, and the reader must not try to read (or allocate) it.
  const std::string path = Write("huge.yaml", "");
  std::filesystem::resize_file(path, limits::kMaxManifestFileBytes + 1);
  auto result = ReadManifests({path});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(result),
              HasSubstr(absl::StrCat(path, ": the file is ", limits::kMaxManifestFileBytes + 1,
                                     " bytes, over the limit of ",
                                     limits::kMaxManifestFileBytes, " bytes")));
  auto text = ReadManifestFile(path);
  EXPECT_FALSE(text.ok());
}

}  // namespace
}  // namespace manifest_reader_test
}  // namespace gpuprofile::dra
