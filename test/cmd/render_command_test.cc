// File: test/cmd/render_command_test.cc
// `render` as GitOps users run it: golden output of the story's profiles on the example fleet
// for Kubernetes 1.32 (v1beta1) and 1.34 (v1), determinism, JSON and YAML agreement, schema
// validity of every generated DRA object in every version, exit codes and error messages.
// Set GPO_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change.
#include "controller/cmd/render_command.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cmd/left_to_exit.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/temp_dir_test.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::cmd {
namespace render_command_test {
namespace {

using ::gpuprofile::testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

struct Result {
  int code;
  std::string out, err;
};

Result Render(std::vector<std::string> args) {
  std::ostringstream out, err;
  std::vector<std::string> full = {};
  const int code = RunRender(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Src(const std::string& relative) { return SourceDir() + "/" + relative; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<std::string> StoryArgs(const std::string& fleet) {
  return {"-f", Src("config/samples/profiles"),
          "-f", Src("config/samples/namespaces.yaml"),
          "-f", Src(fleet)};
}

void ExpectGolden(const std::string& golden, const std::string& actual) {
  const std::string path = Src(golden);
  if (std::getenv("GPO_UPDATE_GOLDEN") != nullptr) {
    WriteFile(path, actual);
    GTEST_SKIP() << "rewrote " << golden;
  }
  EXPECT_EQ(ReadFile(path), actual)
      << "render output differs from " << golden << " (GPO_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(RenderGoldenTest, StoryOnKubernetes132) {
  std::vector<std::string> args = StoryArgs("config/samples/fleet-v1beta1");
  args.insert(args.end(), {"--kube-version", "1.32"});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("apiVersion: resource.k8s.io/v1beta1"));
  ExpectGolden("test/testdata/render/story-1.32.yaml", r.out);
}

TEST(RenderGoldenTest, StoryOnKubernetes134) {
  std::vector<std::string> args = StoryArgs("config/samples/fleet");
  args.insert(args.end(), {"--kube-version", "1.34"});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("apiVersion: resource.k8s.io/v1\n"));
  ExpectGolden("test/testdata/render/story-1.34.yaml", r.out);
}

// Kubernetes 1.37 with the NVIDIA driver's 1.36 publication: a counters-only slice, MIG
// placements that draw from it, list-typed numaNode and a health taint.
TEST(RenderGoldenTest, PartitionedTaintedFleetOnKubernetes137) {
  std::vector<std::string> args = StoryArgs(
      "test/testdata/dra/nvidia-1.35/dynamicmig-a100x2-numalist-taint.k8s-1.36.v1.yaml");
  args.insert(args.end(), {"--kube-version", "1.37"});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("apiVersion: resource.k8s.io/v1\n"));
  ExpectGolden("test/testdata/render/partitioned-1.37.yaml", r.out);
}

// The advanced profiles (MIG, sharing, capacity requests, fallback, extended resource name,
// tolerations, quota) over the sample fleet plus static MIG, dynamic MIG and multi-allocatable
// GPUs, per release: what each release can express is generated, the rest is Stalled with
// FeatureNotServed (printed, with a warning, exit 0).
std::vector<std::string> AdvancedArgs() {
  return {"-f", Src("config/samples/profiles"),
          "-f", Src("config/samples/advanced"),
          "-f", Src("config/samples/namespaces.yaml"),
          "-f", Src("config/samples/fleet"),
          "-f", Src("config/samples/fleet-h100/resourceslice-h100-node-1.v1.yaml"),
          "-f", Src("test/testdata/e2e/advanced-fleet"),
          "-f", Src("test/testdata/dra/nvidia-1.35/dynamicmig-a100x2.k8s-1.35.v1.yaml"),
          "-f", Src("test/testdata/dra/nvidia-1.35/consumable-shares-a100x2.k8s-1.36.v1.yaml")};
}

struct AdvancedRelease {
  std::string kube;
  std::string gates;
  std::string golden;
  // Profiles the release cannot realise with those gates.
  std::vector<std::string> stalled;
};

class AdvancedRenderTest : public ::testing::TestWithParam<AdvancedRelease> {};

TEST_P(AdvancedRenderTest, GeneratesWhatTheReleaseCanExpressAndStallsTheRest) {
  const AdvancedRelease& release = GetParam();
  std::vector<std::string> args = AdvancedArgs();
  args.insert(args.end(), {"--kube-version", release.kube});
  if (!release.gates.empty()) args.insert(args.end(), {"--feature-gates", release.gates});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string& name : release.stalled) {
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("GpuProfile \"", name, "\"")))
        << name << " should be reported Stalled";
    EXPECT_THAT(r.out, Not(HasSubstr(absl::StrCat("kind: DeviceClass\nmetadata:\n  name: ", name,
                                                  "\n"))))
        << name << " is Stalled and must generate nothing";
  }
  if (release.stalled.empty()) {
    EXPECT_THAT(r.err, Not(HasSubstr("Stalled"))) << r.err;
  } else {
    EXPECT_THAT(r.err, HasSubstr("Stalled (FeatureNotServed), nothing generated for it"));
  }
  ExpectGolden(release.golden, r.out);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, AdvancedRenderTest,
    ::testing::Values(
        // No gate of these fields is on by default: fallback, tolerations, capacity requests
        // and extended resource names are all FeatureNotServed.
        AdvancedRelease{"1.33", "", "test/testdata/render/advanced-1.33.yaml",
                        {"h100-else-a100", "legacy-gpu", "memory-slice", "shared-inference"}},
        // Prioritized lists are on by default; the rest is alpha.
        AdvancedRelease{"1.34", "", "test/testdata/render/advanced-1.34.yaml",
                        {"legacy-gpu", "memory-slice", "shared-inference"}},
        // The same cluster with the alpha gates on expresses everything.
        AdvancedRelease{"1.35", "DRADeviceTaints=true,DRAConsumableCapacity=true,"
                                "DRAExtendedResource=true",
                        "test/testdata/render/advanced-1.35-gates.yaml", {}},
        AdvancedRelease{"1.37", "", "test/testdata/render/advanced-1.37.yaml", {}}),
    [](const ::testing::TestParamInfo<AdvancedRelease>& param) {
      std::string name = "Kube" + param.param.kube + (param.param.gates.empty() ? "" : "Gates");
      name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
      return name;
    });

// render reads JSON files of ResourceSlices after the profiles and keeps of their devices only
// the attributes the profiles and node groups read (profile/device_reads.h). The output must be
// what the same slices give in YAML, which is read whole. A JSON list that also holds other
// kinds is read whole (render starts over), with the same output.
class RenderSliceFilesTest : public testing::TempDirTest {};

TEST_F(RenderSliceFilesTest, SliceFilesReadLastRenderAsTheSameSlicesInYaml) {
  std::vector<std::string> fleet;  // the -f values of AdvancedArgs that hold slices
  std::vector<std::string> args = AdvancedArgs();
  for (size_t i = 1; i < args.size(); i += 2) {
    if (args[i].find("fleet") != std::string::npos || args[i].find("/dra/") != std::string::npos) {
      fleet.push_back(args[i]);
    }
  }
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests(fleet);
  ASSERT_TRUE(objects.ok()) << objects.status();
  nlohmann::json slices = nlohmann::json::array(), others = nlohmann::json::array();
  for (const dra::ManifestObject& o : *objects) {
    (dra::IsResourceSlice(o.object) ? slices : others).push_back(o.object);
  }
  ASSERT_GT(slices.size(), 8u);
  const auto list = [](nlohmann::json items) {
    return nlohmann::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}}.dump(
        2);
  };
  const std::string slice_file = Write("slices.json", list(slices));
  const std::string other_file = Write("others.json", list(others));
  nlohmann::json all = slices;
  all.insert(all.end(), others.begin(), others.end());
  const std::string mixed_file = Write("mixed.json", list(all));
  const std::vector<std::string> profiles = {"-f", Src("config/samples/profiles"),
                                             "-f", Src("config/samples/advanced"),
                                             "-f", Src("config/samples/namespaces.yaml")};
  for (const char* kube : {"1.34", "1.35", "1.37"}) {
    std::vector<std::string> yaml_args = AdvancedArgs();
    yaml_args.insert(yaml_args.end(), {"--kube-version", kube});
    std::vector<std::string> json_args = profiles;
    json_args.insert(json_args.end(), {"-f", slice_file, "-f", other_file, "--kube-version", kube});
    std::vector<std::string> mixed_args = profiles;
    mixed_args.insert(mixed_args.end(), {"-f", mixed_file, "--kube-version", kube});
    const Result yaml = Render(yaml_args);
    ASSERT_EQ(yaml.code, 0) << yaml.err;
    const Result json = Render(json_args);
    EXPECT_EQ(json.code, 0) << json.err;
    EXPECT_EQ(json.out, yaml.out) << "release " << kube;
    const Result mixed = Render(mixed_args);
    EXPECT_EQ(mixed.code, 0) << mixed.err;
    EXPECT_EQ(mixed.out, yaml.out) << "release " << kube;
  }
}

TEST(RenderTest, OutputIsTheSameWhateverTheInputOrder) {
  Result forward = Render(StoryArgs("config/samples/fleet"));
  Result backward = Render(
      {"-f", Src("config/samples/fleet"), "-f", Src("config/samples/namespaces.yaml"), "-f",
       Src("config/samples/profiles/recent-driver.yaml"), "-f", Src("config/samples/profiles")});
  ASSERT_EQ(forward.code, 0) << forward.err;
  ASSERT_EQ(backward.code, 0) << backward.err;
  EXPECT_EQ(forward.out, backward.out);
}

// As main runs it (what it built left to the process's exit), render prints the same, in JSON
// and YAML.
TEST(RenderTest, LeavingItsObjectsToExitChangesNothing) {
  for (const char* output : {"json", "yaml"}) {
    std::vector<std::string> args = StoryArgs("config/samples/fleet");
    args.insert(args.end(), {"-o", output});
    const Result destroyed = Render(args);
    AllowLeavingToExit();
    const Result left = Render(args);
    AllowLeavingToExit(false);
    ASSERT_EQ(destroyed.code, 0) << destroyed.err;
    EXPECT_EQ(left.code, 0);
    EXPECT_EQ(left.out, destroyed.out) << output;
    EXPECT_EQ(left.err, destroyed.err) << output;
  }
}

TEST(RenderTest, JsonAndYamlCarryTheSameObjectsInTheSameOrder) {
  std::vector<std::string> args = StoryArgs("config/samples/fleet");
  Result yaml = Render(args);
  args.insert(args.end(), {"-o", "json"});
  Result json = Render(args);
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json list = nlohmann::json::parse(json.out);
  EXPECT_EQ(list["kind"], "List");
  absl::StatusOr<std::vector<dra::ManifestObject>> docs =
      dra::ParseManifests(yaml.out, "render.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), list["items"].size());
  for (size_t i = 0; i < docs->size(); ++i) {
    EXPECT_EQ((*docs)[i].object, list["items"][i]) << "object " << i;
  }
  // Kinds in the stated order.
  std::vector<std::string> kinds;
  for (const auto& item : list["items"]) {
    if (kinds.empty() || kinds.back() != item["kind"]) kinds.push_back(item["kind"]);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"GpuNodeGroup", "DeviceClass", "ResourceClaimTemplate",
                                             "GpuProfile"}));
}

// Every generated DeviceClass and ResourceClaimTemplate validates against the official schema
// of its release and version (1.35+ use 1.34's v1), for a profile set using every term.
TEST(RenderSchemaTest, EveryGeneratedObjectValidatesForEveryReleaseAndVersion) {
  if (std::system("python3 -c 'import jsonschema, yaml' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-jsonschema / python3-yaml not installed (scripts/install-deps.sh)";
  }
  const std::vector<std::string> inputs = {"-f", Src("config/samples/profiles"),
                                           "-f", Src("config/samples/namespaces.yaml"),
                                           "-f", Src("test/testdata/api/any-gpu.yaml"),
                                                                                "-f", Src("test/testdata/api/mig-small.yaml"),
                                           "-f", Src("test/testdata/api/whole-node.yaml"),
                                           "-f", Src("test/testdata/profile/mixed-fleet.yaml")};
  const std::vector<std::pair<std::string, std::vector<std::string>>> matrix = {
      {"1.32", {"v1beta1"}},
      {"1.33", {"v1beta1", "v1beta2"}},
      {"1.34", {"v1beta1", "v1beta2", "v1"}},
      {"1.35", {"v1"}},
      {"1.36", {"v1"}}};
  int validated_runs = 0;
  for (const auto& [kube, versions] : matrix) {
    for (const std::string& version : versions) {
      std::vector<std::string> args = inputs;
      args.insert(args.end(), {"--kube-version", kube, "--api-version", version});
      Result r = Render(args);
      ASSERT_EQ(r.code, 0) << kube << " " << version << ": " << r.err;
      ASSERT_THAT(r.out, HasSubstr("kind: ResourceClaimTemplate"));
      const std::string file =
          absl::StrCat(::testing::TempDir(), "/render-", kube, "-", version, ".yaml");
      WriteFile(file, r.out);
      const std::string command =
          absl::StrCat("python3 ", Src("tools/schema/validate.py"), " --kube-version ", kube, " ",
                       file, " > ", file, ".log 2>&1");
      EXPECT_EQ(std::system(command.c_str()), 0) << kube << " " << version << ":\n"
                                                 << ReadFile(file + ".log");
      ++validated_runs;
    }
  }
  EXPECT_EQ(validated_runs, 8);
}

// The advanced profiles' objects (firstAvailable, tolerations, capacity requests,
// extendedResourceName, sharing configuration, ResourceQuotas) validate against the official
// schema of every release and version that can express them, with the gates that release needs.
TEST(RenderSchemaTest, AdvancedObjectsValidateWhereverTheyAreExpressible) {
  if (std::system("python3 -c 'import jsonschema, yaml' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-jsonschema / python3-yaml not installed (scripts/install-deps.sh)";
  }
  const std::string alpha_133 = "DRAPrioritizedList=true,DRADeviceTaints=true";
  const std::string alpha_134 =
      "DRADeviceTaints=true,DRAConsumableCapacity=true,DRAExtendedResource=true";
  struct Run {
    std::string kube, version, gates;
    std::vector<std::string> must_have;
  };
  const std::vector<std::string> all = {"firstAvailable:", "tolerations:", "requests:\n",
                                        "extendedResourceName: example.com/gpu",
                                        "kind: GpuConfig", "kind: ResourceQuota"};
  const std::vector<Run> runs = {
      {"1.33", "v1beta1", alpha_133, {"firstAvailable:", "tolerations:", "kind: ResourceQuota"}},
      {"1.33", "v1beta2", alpha_133, {"firstAvailable:", "tolerations:", "kind: ResourceQuota"}},
      {"1.34", "v1beta1", alpha_134, all},
      {"1.34", "v1beta2", alpha_134, all},
      {"1.34", "v1", alpha_134, all},
      {"1.35", "v1", alpha_134, all},
      {"1.36", "v1", "", all},
      {"1.37", "v1", "", all}};
  for (const Run& run : runs) {
    std::vector<std::string> args = AdvancedArgs();
    args.insert(args.end(), {"--kube-version", run.kube, "--api-version", run.version,
                             "--feature-gates", run.gates});
    Result r = Render(args);
    ASSERT_EQ(r.code, 0) << run.kube << " " << run.version << ": " << r.err;
    for (const std::string& text : run.must_have) {
      EXPECT_THAT(r.out, HasSubstr(text)) << run.kube << " " << run.version;
    }
    const std::string file =
        absl::StrCat(::testing::TempDir(), "/advanced-", run.kube, "-", run.version, ".yaml");
    WriteFile(file, r.out);
    const std::string command =
        absl::StrCat("python3 ", Src("tools/schema/validate.py"), " --kube-version ", run.kube,
                     " ", file, " > ", file, ".log 2>&1");
    EXPECT_EQ(std::system(command.c_str()), 0) << run.kube << " " << run.version << ":\n"
                                               << ReadFile(file + ".log");
  }
}

TEST(RenderSchemaTest, TheValidatorRejectsAWrongVersionShape) {
  if (std::system("python3 -c 'import jsonschema, yaml' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-jsonschema / python3-yaml not installed";
  }
  // v1 templates (`exactly` wrapper) relabelled as v1beta1 must fail the v1beta1 schema, so the
  // test above can fail.
  Result r = Render({"-f", Src("config/samples/profiles"), "-f",
                     Src("config/samples/namespaces.yaml"), "--kube-version", "1.34"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string text = r.out;
  for (size_t at = text.find("resource.k8s.io/v1\n"); at != std::string::npos;
       at = text.find("resource.k8s.io/v1\n", at)) {
    text.replace(at, 19, "resource.k8s.io/v1beta1\n");
  }
  const std::string file = ::testing::TempDir() + "/render-wrong-shape.yaml";
  WriteFile(file, text);
  const std::string command = absl::StrCat("python3 ", Src("tools/schema/validate.py"),
                                           " --kube-version 1.34 ", file, " > /dev/null 2>&1");
  EXPECT_NE(std::system(command.c_str()), 0);
}

// The CRDs in crds/ accept the samples and everything render prints for profiles and node
// groups (status included; the schema test above validates render's output with them), and
// reject what their schema can reject.
TEST(RenderSchemaTest, CrdSchemasAcceptTheSamplesAndRejectAnInvalidProfile) {
  if (std::system("python3 -c 'import jsonschema, yaml' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3-jsonschema / python3-yaml not installed";
  }
  const std::string validate = absl::StrCat("python3 ", Src("tools/schema/validate.py"),
                                            " --kube-version 1.34 ");
  const std::string log = ::testing::TempDir() + "/crd-validate.log";
  EXPECT_EQ(std::system(absl::StrCat(validate, Src("config/samples/profiles"), " ",
                                     Src("test/testdata/api/mig-small.yaml"), " ",
                                     Src("test/testdata/render"), " > ", log, " 2>&1")
                            .c_str()),
            0)
      << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("skipped 0"));
  EXPECT_NE(std::system(absl::StrCat(validate, Src("test/testdata/api/invalid.yaml"), " > ", log,
                                     " 2>&1")
                            .c_str()),
            0);
  EXPECT_THAT(ReadFile(log), HasSubstr("'colour' was unexpected"));
}

// ResourceClaims among the inputs are the cluster's claims: status.allocation and the node
// groups' free devices follow them, as the operator's would; a claim that does not decode is an
// error naming the file and the field.
TEST(RenderTest, ClaimsInTheInputsGiveTheAllocationStatus) {
  const std::string file = ::testing::TempDir() + "/claims.yaml";
  WriteFile(file, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: trainer-0-gpu, namespace: ml-train, creationTimestamp: "2026-11-30T10:00:00Z"}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: large-memory}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.nvidia.com, pool: a100-node-1, device: gpu-0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: trainer-1-gpu, namespace: ml-train, creationTimestamp: "2026-11-30T11:00:00Z"}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: large-memory}
)");
  std::vector<std::string> args = StoryArgs("config/samples/fleet");
  args.insert(args.end(), {"-f", file, "--kube-version", "1.34", "-o", "json"});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json list = nlohmann::json::parse(r.out);
  nlohmann::json profile;
  for (const nlohmann::json& item : list["items"]) {
    if (item["kind"] == "GpuProfile" && item["metadata"]["name"] == "large-memory") profile = item;
  }
  ASSERT_TRUE(profile.is_object()) << r.out;
  const nlohmann::json& allocation = profile["status"]["allocation"];
  EXPECT_EQ(allocation["allocatedDevices"], 1);
  EXPECT_EQ(allocation["allocatedClaims"], 1);
  EXPECT_EQ(allocation["freeDevices"],
            profile["status"]["schedulableDevices"].get<int64_t>() - 1);
  EXPECT_EQ(allocation["pendingClaims"], 1);
  EXPECT_EQ(allocation["oldestPendingClaimTime"], "2026-11-30T11:00:00Z");

  WriteFile(file, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: broken, namespace: ml-train}
spec: {devices: {requests: [{name: gpu, exactly: {count: 1}}]}}
)");
  Result bad = Render(args);
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("claims.yaml (document 1): ResourceClaim \"ml-train/broken\": "
                                 "spec.devices.requests[0].exactly.deviceClassName: required"));
}

TEST(RenderErrorsTest, InvalidProfileExitsOneListingEveryProblemAndPrintsNothing) {
  Result r = Render({"-f", Src("test/testdata/api/invalid.yaml"), "-f",
                     Src("config/samples/profiles"), "-f", Src("config/samples/fleet")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("invalid.yaml (document 1): GpuProfile \"broken\": "
                               "spec.selector.memory.min"));
  EXPECT_THAT(r.err, HasSubstr("GpuProfile \"broken\": spec.count"));
}

TEST(RenderErrorsTest, ATermTheDriverCannotExpressIsAnError) {
  const std::string file = ::testing::TempDir() + "/amd.yaml";
  WriteFile(file, R"(apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: amd-cc}
spec:
  driver: gpu.amd.com
  selector:
    computeCapability: {min: "8.0"}
)");
  Result r = Render({"-f", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("amd.yaml (document 1): GpuProfile \"amd-cc\": "
                               "spec.selector.computeCapability: driver gpu.amd.com publishes no "
                               "attribute for computeCapability"));
}

TEST(RenderErrorsTest, UnreadableInputsExitOne) {
  const std::string bad = ::testing::TempDir() + "/bad.yaml";
  WriteFile(bad, "apiVersion: v1\nkind: [unclosed\n");
  Result r = Render({"-f", bad});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("bad.yaml"));

  r = Render({"-f", ::testing::TempDir() + "/does-not-exist"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("does-not-exist: no such file or directory"));

  const std::string slice = ::testing::TempDir() + "/slice.yaml";
  WriteFile(slice, R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec: {driver: gpu.nvidia.com, nodeName: n, pool: {name: n, generation: "one", resourceSliceCount: 1}}
)");
  r = Render({"-f", slice, "-f", Src("config/samples/profiles")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("spec.pool.generation"));
}

// Hostile input from a pull request: `render` exits 1 with the file named, after bounded work
// (the YAML node budget and the nesting limit of controller/core/input_limits.h).
TEST(RenderErrorsTest, AnAliasBombExitsOneNamingTheFile) {
  const std::string bomb = Src("test/testdata/hostile/alias-bomb.yaml");
  Result r = Render({"-f", bomb, "-f", Src("config/samples/fleet")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr(bomb + ": document 1: line "));
  EXPECT_THAT(r.err, HasSubstr("anchors and aliases expand the file to more than"));
}

TEST(RenderErrorsTest, DeeplyNestedInputsExitOneNamingTheFile) {
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += "[";
  for (const char* name : {"/deep.yaml", "/deep.json"}) {
    const std::string path = ::testing::TempDir() + name;
    WriteFile(path, R"({"apiVersion": "v1", "kind": "ConfigMap", "data": )" + deep);
    Result r = Render({"-f", path, "-f", Src("config/samples/profiles")});
    EXPECT_EQ(r.code, 1) << name;
    EXPECT_THAT(r.out, IsEmpty()) << name;
    EXPECT_THAT(r.err, HasSubstr(path + ": ")) << name;
    EXPECT_THAT(r.err, HasSubstr("deeper than 256 levels")) << name;
  }
}

TEST(RenderErrorsTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Render({}).code, 2);
  EXPECT_EQ(Render({"-f", Src("config/samples/profiles"), "-o", "xml"}).code, 2);
  EXPECT_EQ(Render({"-f", Src("config/samples/profiles"), "--kube-version", "1.31"}).code, 2);
  Result r = Render({"-f", Src("config/samples/profiles"), "--kube-version", "1.33",
                     "--api-version", "resource.k8s.io/v1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--api-version"));
  EXPECT_EQ(Render({"-f", Src("config/samples/profiles"), "stray"}).code, 2);
}

TEST(RenderTest, PatchVersionsAreAcceptedAndOtherKindsIgnored) {
  const std::string extra = ::testing::TempDir() + "/deployment.yaml";
  WriteFile(extra, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n");
  std::vector<std::string> args = StoryArgs("config/samples/fleet-v1beta1");
  args.insert(args.end(), {"-f", extra, "--kube-version", "1.32.1"});
  Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ignored objects of kinds it does not read: 1 Deployment"));
  EXPECT_THAT(r.out, Not(HasSubstr("Deployment")));
}

// --kueue: the Kueue documents instead of the operator's objects, the notes on stderr, and the
// render's errors and usage errors as for the rest of render.
TEST(RenderKueueTest, PrintsKueueDocumentsOnly) {
  std::vector<std::string> args = StoryArgs("config/samples/fleet");
  args.insert(args.end(), {"--kueue", "--kueue-queue", "team-a"});
  const Result r = Render(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kind: Configuration\n"));
  EXPECT_THAT(r.out, HasSubstr("- name: gpuprofile.io/large-memory\n"));
  EXPECT_THAT(r.out, HasSubstr("kind: ClusterQueue\nmetadata:\n  name: team-a\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("kind: DeviceClass")));
  EXPECT_THAT(r.err, HasSubstr("render: note: GpuProfile large-memory: no spec.quota"));
}

TEST(RenderKueueTest, ErrorsAndUsage) {
  std::vector<std::string> args = StoryArgs("config/samples/fleet");
  args.insert(args.end(), {"--kueue-queue", "team-a"});
  Result r = Render(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--kueue-queue needs --kueue"));
  args = StoryArgs("config/samples/fleet");
  args.insert(args.end(), {"--kueue", "--kueue-queue", "Team_A"});
  EXPECT_EQ(Render(args).code, 2);
  // No profile: nothing to map, exit 1 with nothing on stdout.
  r = Render({"-f", Src("config/samples/namespaces.yaml"), "--kueue"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("render --kueue: no GpuProfile generates a DeviceClass"));
}

}  // namespace
}  // namespace render_command_test
}  // namespace gpuprofile::cmd
