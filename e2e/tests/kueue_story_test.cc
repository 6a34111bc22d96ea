// File: e2e/tests/kueue_story_test.cc
// Handing Kueue what the operator knows (docs/kueue.md), with the real binaries:
//  - KueueSchemaTest: `gpu-profile-controller render --kueue` on the samples (the four profiles
//    and h100-else-a100, which falls back to large-memory) against Kueue's schemas kept in
//    test/testdata/kueue: the ResourceFlavor and ClusterQueue against the v1beta2 CRDs (the
//    emulator's structural schema and CEL rules, in process), the Configuration against the
//    hand-kept schema of its resources.deviceClassMappings; and each schema rejects a broken
//    object, so the checks can fail.
//  - KueueStoryTest: kube-emulator holding Kueue's CRDs, namespace and manager ConfigMap, the
//    operator run with --kueue-config. No ConfigMap: KueueMapped Unknown naming it. A mapping of
//    h100-else-a100's own class only: False naming the classes left out, large-memory (its
//    fallback) among them. A malformed Configuration: Unknown naming the field. The
//    Configuration render --kueue prints: True on every profile. The rendered ResourceFlavor and
//    ClusterQueue applied with the real kubectl (server-side field validation against the CRDs).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/emulator/crd.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/validation_rules.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/story_cluster.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace kueue_story_test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using json = nlohmann::json;

constexpr char kKueueNs[] = "kueue-system";
constexpr char kConfigMaps[] = "/api/v1/namespaces/kueue-system/configmaps";
constexpr char kConfigMapName[] = "kueue-manager-config";
constexpr char kConfigKey[] = "controller_manager_config.yaml";
constexpr char kKueueMapped[] = "KueueMapped";
const std::vector<std::string> kStoryProfiles = {
    "ampere-or-newer", "h100-else-a100", "large-memory", "light-inference", "recent-driver"};

// The objects of the YAML or JSON file `path` in the source tree.
std::vector<json> ReadObjects(const std::string& path) {
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({Src(path)});
  EXPECT_TRUE(objects.ok()) << objects.status();
  std::vector<json> out;
  if (objects.ok()) {
    for (const dra::ManifestObject& o : *objects) out.push_back(o.object);
  }
  return out;
}

std::string ReadFileOrEmpty(const std::string& path) {
  absl::StatusOr<std::string> text = dra::ReadManifestFile(path);
  return text.ok() ? *text : std::string();
}

// `render --kueue` on the story's inputs: its documents (Configuration, ResourceFlavor,
// ClusterQueue), as JSON.
std::vector<json> RenderKueue() {
  ControllerResult r = RunController(
      {"render", "--kueue", "-o", "json", "-f", Src("config/samples/namespaces.yaml"), "-f",
       Src("config/samples/profiles"), "-f", Src("config/samples/advanced/h100-else-a100.yaml"),
       "-f", Src("config/samples/fleet")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json list = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(list.is_object() && list.contains("items")) << r.out;
  std::vector<json> docs;
  if (list.is_object() && list.contains("items")) {
    for (const json& item : list["items"]) docs.push_back(item);
  }
  EXPECT_EQ(docs.size(), 3u) << r.out;
  // The firstAvailable note: Kueue does not admit such requests yet.
  EXPECT_THAT(r.err, HasSubstr("GpuProfile h100-else-a100: its template's request is "
                               "firstAvailable"));
  return docs;
}

// The v1beta2 openAPIV3Schema of the trimmed CRD of `kind` (validated as a CRD first).
json KueueSchema(const std::string& kind) {
  for (const json& crd : ReadObjects("test/testdata/kueue/crds")) {
    if (crd["spec"]["names"]["kind"] != kind) continue;
    const std::vector<StatusCause> causes = ValidateCrd(crd);
    EXPECT_THAT(causes, IsEmpty()) << kind << ": " << (causes.empty() ? "" : causes[0].message);
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  }
  ADD_FAILURE() << "no CRD of kind " << kind << " in test/testdata/kueue/crds";
  return json::object();
}

// Every problem the schema finds in `object`: structural errors, pruned (unknown) fields, and
// failed x-kubernetes-validations rules.
std::vector<std::string> SchemaProblems(const json& schema, json object) {
  std::vector<std::string> problems;
  const SchemaOutcome structural = ApplyStructuralSchema(schema, object);
  for (const StatusCause& c : structural.errors) problems.push_back(c.message);
  for (const std::string& f : structural.pruned_fields) problems.push_back("unknown field " + f);
  const RulesOutcome rules = ApplyValidationRules(schema, object, nullptr);
  for (const StatusCause& c : rules.errors) problems.push_back(c.message);
  return problems;
}

// The hand-kept schema of the Configuration's resources (plain JSON: no apiVersion or kind).
json ConfigurationSchema() {
  absl::StatusOr<std::string> text =
      dra::ReadManifestFile(Src("test/testdata/kueue/configuration-v1beta2-resources.schema.json"));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? json::parse(*text, nullptr, false) : json::object();
}

TEST(KueueSchemaTest, RenderedObjectsPassKueueSchemas) {
  const std::vector<json> docs = RenderKueue();
  ASSERT_EQ(docs.size(), 3u);
  const json& configuration = docs[0];
  const json& flavor = docs[1];
  const json& queue = docs[2];
  ASSERT_EQ(flavor["kind"], "ResourceFlavor");
  ASSERT_EQ(queue["kind"], "ClusterQueue");

  const json flavor_schema = KueueSchema("ResourceFlavor");
  const json queue_schema = KueueSchema("ClusterQueue");
  EXPECT_THAT(SchemaProblems(flavor_schema, flavor), IsEmpty());
  EXPECT_THAT(SchemaProblems(queue_schema, queue), IsEmpty());
  // Five profiles, five resources; the namespaces holding their templates.
  EXPECT_EQ(queue["spec"]["resourceGroups"][0]["coveredResources"].size(), 5u);
  EXPECT_EQ(queue["spec"]["namespaceSelector"]["matchExpressions"][0]["values"],
            json({"batch", "ml-inference", "ml-train"}));

  // The schemas can fail: a quota that is no quantity, a flavor without every covered resource
  // (the group's CEL rule), a field the CRD does not have.
  json bad = queue;
  bad["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "lots";
  EXPECT_THAT(SchemaProblems(queue_schema, bad), Not(IsEmpty()));
  bad = queue;
  bad["spec"]["resourceGroups"][0]["flavors"][0]["resources"].erase(0);
  EXPECT_THAT(SchemaProblems(queue_schema, bad),
              Contains(HasSubstr("flavors must have the same number of resources")));
  bad = flavor;
  bad["spec"]["nodeSelector"] = json::object();
  EXPECT_THAT(SchemaProblems(flavor_schema, bad), Contains(HasSubstr("unknown field")));

  const json config_schema = ConfigurationSchema();
  EXPECT_THAT(SchemaProblems(config_schema, configuration), IsEmpty());
  EXPECT_EQ(configuration["resources"]["deviceClassMappings"].size(), 5u);
  bad = configuration;
  bad["resources"]["deviceClassMappings"][0]["deviceClassName"] = "x";
  EXPECT_THAT(SchemaProblems(config_schema, bad), Contains(HasSubstr("unknown field")));
  bad = configuration;
  bad["resources"]["deviceClassMappings"][0]["name"] = "not a/valid/name";
  EXPECT_THAT(SchemaProblems(config_schema, bad), Not(IsEmpty()));
  bad = configuration;
  bad["resources"]["deviceClassMappings"][0]["deviceClassNames"] = json::array();
  EXPECT_THAT(SchemaProblems(config_schema, bad), Not(IsEmpty()));
}

class KueueStoryTest : public ::testing::Test, public StoryCluster {
 protected:
  void TearDown() override { StopStory(HasFailure()); }

  void Start() {
    kubeconfig_ = scratch_.File("kubeconfig");
    emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
        "--kube-version", "1.34", "-f", Src("crds"), "-f", Src("test/testdata/kueue/crds"), "-f",
        Src("config/samples/fleet"), "--kubeconfig-out", kubeconfig_});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    api_ = AdminClient(*emulator_, kubeconfig_);
    Create(kNamespaces,
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kKueueNs}}}});
    CreateAll("config/samples/namespaces.yaml");
    CreateAll("config/samples/profiles/ampere-or-newer.yaml");
    CreateAll("config/samples/profiles/large-memory.yaml");
    CreateAll("config/samples/profiles/light-inference.yaml");
    CreateAll("config/samples/profiles/recent-driver.yaml");
    CreateAll("config/samples/advanced/h100-else-a100.yaml");
    std::vector<std::string> args = OperatorTestFlags(kubeconfig_);
    args.push_back("--kueue-config");
    args.push_back("configmap/kueue-system/kueue-manager-config");
    op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
    ASSERT_TRUE(op_->Start());
  }

  static json ConfigMap(const std::string& configuration) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", kConfigMapName}, {"namespace", kKueueNs}}},
            {"data", {{kConfigKey, configuration}}}};
  }
  void SetConfiguration(const std::string& configuration) {
    json current = Get(absl::StrCat(kConfigMaps, "/", kConfigMapName));
    if (current.is_null()) {
      Create(kConfigMaps, ConfigMap(configuration));
      return;
    }
    current["data"][kConfigKey] = configuration;
    Put(absl::StrCat(kConfigMaps, "/", kConfigMapName), current);
  }

  json KueueMappedOf(const std::string& profile) {
    return FindCondition(ProfileStatus(profile), kKueueMapped);
  }
  // Waits until profile's KueueMapped has `status` and its message holds every `parts`.
  bool KueueMappedIs(const std::string& profile, const std::string& status,
                     const std::vector<std::string>& parts = {}) {
    return Eventually([&] {
      const json c = KueueMappedOf(profile);
      if (c.is_null() || c.value("status", "") != status) return false;
      for (const std::string& p : parts) {
        if (c.value("message", "").find(p) == std::string::npos) return false;
      }
      return true;
    });
  }
};

TEST_F(KueueStoryTest, ConditionFollowsTheConfigMap) {
  ASSERT_NO_FATAL_FAILURE(Start());

  // No ConfigMap yet: Unknown, naming it.
  for (const std::string& p : kStoryProfiles) {
    EXPECT_TRUE(
        KueueMappedIs(p, "Unknown", {"configmap kueue-system/kueue-manager-config: not found"}))
        << p << ": " << KueueMappedOf(p).dump();
  }
  EXPECT_EQ(KueueMappedOf("h100-else-a100").value("reason", ""), "KueueConfigUnreadable");

  // A team mapped its own class and forgot its fallback's.
  SetConfiguration(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: example.com/h100
    deviceClassNames: [h100-else-a100]
)");
  EXPECT_TRUE(KueueMappedIs("h100-else-a100", "False", {"DeviceClass large-memory:"}))
      << KueueMappedOf("h100-else-a100").dump();
  EXPECT_EQ(KueueMappedOf("h100-else-a100").value("reason", ""), "MissingDeviceClassMapping");
  EXPECT_TRUE(KueueMappedIs("light-inference", "False", {"DeviceClass light-inference:"}))
      << KueueMappedOf("light-inference").dump();
  // Readiness is the operator's objects', not Kueue's.
  EXPECT_EQ(
      ConditionOf(Get(absl::StrCat(kProfiles, "/h100-else-a100")), "Ready").value("status", ""),
      "True");

  // A malformed Configuration: Unknown, naming the ConfigMap and the field.
  SetConfiguration(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "resources:\n  deviceClassMappings: {}\n");
  EXPECT_TRUE(KueueMappedIs("large-memory", "Unknown",
                            {"configmap kueue-system/kueue-manager-config",
                             "resources.deviceClassMappings: must be a list"}))
      << KueueMappedOf("large-memory").dump();

  // What render --kueue prints, as the Configuration: every profile mapped.
  const std::vector<json> docs = RenderKueue();
  ASSERT_EQ(docs.size(), 3u);
  SetConfiguration(docs[0].dump());
  for (const std::string& p : kStoryProfiles) {
    EXPECT_TRUE(KueueMappedIs(p, "True", {absl::StrCat(p, " -> gpuprofile.io/", p)}))
        << p << ": " << KueueMappedOf(p).dump();
  }
  EXPECT_TRUE(
      KueueMappedIs("h100-else-a100", "True", {"large-memory -> gpuprofile.io/large-memory"}));

  // The rendered ResourceFlavor and ClusterQueue, applied with the real kubectl: the server
  // validates them against Kueue's CRDs, unknown fields included.
  kubectl_ = PinnedKubectl("kubectl.1.33");
  ASSERT_FALSE(kubectl_.empty()) << "kubectl.1.33 is not installed (scripts/install-deps.sh)";
  const std::string file = scratch_.File("kueue-queue.json");
  scratch_.Write(
      "kueue-queue.json",
      json({{"apiVersion", "v1"}, {"kind", "List"}, {"items", {docs[1], docs[2]}}}).dump());
  Kubectl({"apply", "--server-side", "--field-manager=platform", "--validate=strict", "-f", file});
  CommandResult got = Kubectl({"get", "clusterqueue", "gpu-profiles", "-o", "json"});
  const json queue = json::parse(got.out, nullptr, false);
  ASSERT_TRUE(queue.is_object()) << got.out;
  EXPECT_EQ(queue["spec"]["resourceGroups"], docs[2]["spec"]["resourceGroups"]);
  EXPECT_EQ(queue["spec"]["namespaceSelector"], docs[2]["spec"]["namespaceSelector"]);
  // And the server refuses what Kueue's schema refuses.
  json bad = docs[2];
  bad["metadata"]["name"] = "broken";
  bad["spec"]["resourceGroups"][0]["flavors"][0]["resources"].erase(0);
  const std::string bad_file = scratch_.File("kueue-bad.json");
  scratch_.Write("kueue-bad.json", bad.dump());
  CommandResult refused =
      RunKubectl(kubectl_, scratch_, {"apply", "--server-side", "-f", bad_file});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.out, HasSubstr("flavors must have the same number of resources"));
}

// Under RBAC, as the operator's ServiceAccount with config/rbac's ClusterRole: without
// config/rbac/kueue the ConfigMap cannot be read (Unknown, and the operator still reconciles);
// with it (a Role on that one name in kueue-system, list and watch through the field selector)
// the condition follows the mapping.
TEST_F(KueueStoryTest, RbacRoleOnTheOneConfigMapSuffices) {
  const std::string ns = "gpu-profile-operator-system";
  const std::string sa = "gpu-profile-operator-controller-manager";
  const std::string user = absl::StrCat("system:serviceaccount:", ns, ":", sa);
  scratch_.Write("tokens.csv", absl::StrCat("token-operator,", user,
                                            ",uid-op,\"system:serviceaccounts,"
                                            "system:serviceaccounts:",
                                            ns, "\"\n"));
  kubeconfig_ = scratch_.File("kubeconfig");
  emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
      "--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet"),
      "--token-file", scratch_.File("tokens.csv"), "--authorization", "RBAC", "--kubeconfig-out",
      kubeconfig_});
  ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
  api_ = AdminClient(*emulator_, kubeconfig_);
  for (const std::string& name : {ns, std::string(kKueueNs)}) {
    Create(kNamespaces,
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
  }
  // config/rbac's ClusterRole, bound to the ServiceAccount as config/default names it.
  for (const char* file : {"config/rbac/role.yaml", "config/rbac/role_binding.yaml"}) {
    for (json o : ReadObjects(file)) {
      if (o.contains("subjects")) {
        o["subjects"][0]["name"] = sa;
        o["subjects"][0]["namespace"] = ns;
      }
      const std::string collection = o["kind"] == "ClusterRole"
                                         ? "/apis/rbac.authorization.k8s.io/v1/clusterroles"
                                         : "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
      Create(collection, o);
    }
  }
  CreateAll("config/samples/namespaces.yaml");
  CreateAll("config/samples/profiles/large-memory.yaml");
  SetConfiguration(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: gpuprofile.io/large-memory
    deviceClassNames: [large-memory]
)");
  std::string config = ReadFileOrEmpty(kubeconfig_);
  const std::string admin_token = KubeconfigToken(kubeconfig_);
  ASSERT_FALSE(admin_token.empty());
  config.replace(config.find(admin_token), admin_token.size(), "token-operator");
  scratch_.Write("kubeconfig-operator", config);
  std::vector<std::string> args = OperatorTestFlags(scratch_.File("kubeconfig-operator"));
  args.insert(args.end(), {"--kueue-config", "configmap/kueue-system/kueue-manager-config"});
  op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
  ASSERT_TRUE(op_->Start());

  EXPECT_TRUE(KueueMappedIs("large-memory", "Unknown",
                            {"configmap kueue-system/kueue-manager-config: not read yet"}))
      << KueueMappedOf("large-memory").dump();
  EXPECT_TRUE(Eventually([&] {
    return ConditionOf(Get(absl::StrCat(kProfiles, "/large-memory")), "Ready")
               .value("status", "") == "True";
  })) << "the operator stopped reconciling without the Kueue Role";

  for (const char* file : {"config/rbac/kueue/role.yaml", "config/rbac/kueue/role_binding.yaml"}) {
    for (const json& o : ReadObjects(file)) {
      Create(absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", kKueueNs, "/",
                          o["kind"] == "Role" ? "roles" : "rolebindings"),
             o);
    }
  }
  // The watch retries with backoff (0.8 s doubling): allow for a few rounds.
  EXPECT_TRUE(Eventually(
      [&] {
        const json c = KueueMappedOf("large-memory");
        return c.value("status", "") == "True";
      },
      absl::Seconds(60)))
      << KueueMappedOf("large-memory").dump();
}

}  // namespace
}  // namespace kueue_story_test
}  // namespace gpuprofile::e2e::testing
