// File: e2e/tests/kubectl_test.cc
// The real kubectl against kube-emulator in 1.32, 1.34 and 1.37 modes: apply a CRD and custom
// objects, re-apply (`unchanged`), get with printer columns, -o yaml, wait --for=condition, status
// patch, get -w, delete, DRA objects in the release's version, and `apply` of a `kind: List`.
// kubectl on the build machines is a dispatcher that picks kubectl.1.NN by the server's /version,
// so the tests call the pinned binary from the dispatcher's directory (kubectl.1.33 for a 1.34
// or 1.37 server: the newest installed) with a fresh --cache-dir. Skipped, saying so, where kubectl
// is absent.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {
namespace kubectl_test {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kCommandDeadline = absl::Seconds(60);

struct Mode {
  std::string kube_version;
  std::string kubectl;  // pinned binary name
  std::string dra_version;
};

const char kCrd[] = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
)";

const char kWidget[] = R"(apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  size: 3
)";

class KubectlTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    std::string dir = KubectlDir();
    if (dir.empty()) GTEST_SKIP() << "kubectl is not installed: the kubectl suite is skipped";
    kubectl_ = dir + "/" + GetParam().kubectl;
    if (::access(kubectl_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << kubectl_ << " is not installed: the kubectl suite is skipped";
    }
    emulator_ = std::make_unique<EmulatorProcess>(
        std::vector<std::string>{"--kube-version", GetParam().kube_version, "--kubeconfig-out",
                                 scratch_.File("kubeconfig")});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
  }

  std::vector<std::string> Kubectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {kubectl_, "--kubeconfig", scratch_.File("kubeconfig"),
                                     "--cache-dir", scratch_.File("cache")};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  CommandResult Run(std::vector<std::string> args) {
    CommandResult r = RunCommand(Kubectl(args), kCommandDeadline);
    EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << "\n" << r.out;
    return r;
  }

  ScratchDir scratch_;
  std::string kubectl_;
  std::unique_ptr<EmulatorProcess> emulator_;
};

// Waits (polling the file with a deadline) until `path` contains `text`.
bool WaitForText(const std::string& path, const std::string& text, absl::Duration deadline) {
  return PollUntil([&] { return ReadFile(path).find(text) != std::string::npos; }, deadline);
}

TEST_P(KubectlTest, CustomResourceLifecycle) {
  scratch_.Write("crd.yaml", kCrd);
  scratch_.Write("widget.yaml", kWidget);
  EXPECT_THAT(
      Run({"apply", "-f", scratch_.File("crd.yaml")}).out,
      HasSubstr("customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"));
  Run({"wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"});
  EXPECT_THAT(Run({"apply", "-f", scratch_.File("widget.yaml")}).out,
              HasSubstr("widget.example.com/w created"));
  EXPECT_THAT(Run({"apply", "-f", scratch_.File("widget.yaml")}).out,
              HasSubstr("widget.example.com/w unchanged"));

  CommandResult table = Run({"get", "widgets"});
  EXPECT_THAT(table.out, ::testing::ContainsRegex("NAME +SIZE +READY +AGE"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("\nw +3 +"));
  EXPECT_THAT(Run({"get", "wd", "w", "-o", "yaml"}).out, HasSubstr("  size: 3"));

  // get -w in the background sees the status change; wait sees the condition.
  pid_t watcher = StartBackground(Kubectl({"get", "widgets", "-w", "--output-watch-events"}),
                                  scratch_.File("watch.log"));
  ASSERT_TRUE(WaitForText(scratch_.File("watch.log"), "ADDED", absl::Seconds(30)))
      << ReadFile(scratch_.File("watch.log"));
  pid_t waiter =
      StartBackground(Kubectl({"wait", "--for=condition=Ready", "widget/w", "--timeout=60s"}),
                      scratch_.File("wait.log"));
  EXPECT_THAT(Run({"patch", "widget", "w", "--subresource=status", "--type=merge", "-p",
                   R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"})
                  .out,
              HasSubstr("widget.example.com/w patched"));
  EXPECT_EQ(WaitBackground(waiter, absl::Seconds(60)), 0) << ReadFile(scratch_.File("wait.log"));
  EXPECT_THAT(ReadFile(scratch_.File("wait.log")), HasSubstr("condition met"));
  EXPECT_TRUE(WaitForText(scratch_.File("watch.log"), "MODIFIED", absl::Seconds(30)))
      << ReadFile(scratch_.File("watch.log"));
  WaitBackground(watcher, absl::ZeroDuration());  // kills it: get -w never ends by itself
  EXPECT_THAT(Run({"get", "widgets"}).out, ::testing::ContainsRegex("\nw +3 +True"));

  EXPECT_THAT(Run({"delete", "-f", scratch_.File("widget.yaml")}).out,
              HasSubstr("widget.example.com \"w\" deleted"));
  EXPECT_THAT(Run({"get", "widgets"}).out, HasSubstr("No resources found in default namespace."));
  Run({"delete", "-f", scratch_.File("crd.yaml")});
}

TEST_P(KubectlTest, DraObjectsInTheReleasesVersion) {
  std::string dc = absl::StrCat("apiVersion: resource.k8s.io/", GetParam().dra_version, R"(
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
)");
  scratch_.Write("dc.yaml", dc);
  EXPECT_THAT(Run({"apply", "-f", scratch_.File("dc.yaml")}).out,
              HasSubstr("deviceclass.resource.k8s.io/gpu.example.com created"));
  EXPECT_THAT(Run({"apply", "-f", scratch_.File("dc.yaml")}).out,
              HasSubstr("deviceclass.resource.k8s.io/gpu.example.com unchanged"));
  EXPECT_THAT(Run({"get", "deviceclasses"}).out, HasSubstr("gpu.example.com"));
  EXPECT_THAT(Run({"get", "deviceclass", "gpu.example.com", "-o", "yaml"}).out,
              HasSubstr("apiVersion: resource.k8s.io/" + GetParam().dra_version));

  scratch_.Write("bad.yaml",
                 absl::StrCat("apiVersion: resource.k8s.io/", GetParam().dra_version,
                              "\nkind: DeviceClass\nmetadata:\n  name: bad\nspec:\n"
                              "  selectors:\n  - cel:\n      expression: 'device.nope'\n"));
  CommandResult rejected =
      RunCommand(Kubectl({"apply", "-f", scratch_.File("bad.yaml")}), kCommandDeadline);
  EXPECT_NE(rejected.exit_code, 0);
  EXPECT_THAT(rejected.out, HasSubstr("compilation failed"));
  EXPECT_THAT(Run({"delete", "deviceclass", "gpu.example.com"}).out, HasSubstr("deleted"));
}

// `kubectl get -o yaml` of several objects prints a `kind: List`; applying such a file makes
// kubectl validate it client-side against the server's OpenAPI v2 document (a server without
// /openapi/v2 fails the apply with "the server could not find the requested resource").
TEST_P(KubectlTest, AppliesAKindListAndWhatGetPrints) {
  EXPECT_THAT(Run({"apply", "-f", gpuprofile::testing::SourceDir() + "/crds"}).out,
              HasSubstr("customresourcedefinition.apiextensions.k8s.io/gpuprofiles.gpuprofile.io"));
  Run({"wait", "--for=condition=Established", "crd/gpuprofiles.gpuprofile.io", "--timeout=30s"});
  scratch_.Write("list.yaml", R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: ml-list
- apiVersion: gpuprofile.io/v1alpha1
  kind: GpuProfile
  metadata:
    name: listed
  spec:
    description: from a kind List
    selector:
      memory: {min: 40Gi}
)");
  CommandResult applied = Run({"apply", "-f", scratch_.File("list.yaml")});
  EXPECT_THAT(applied.out, HasSubstr("namespace/ml-list created"));
  EXPECT_THAT(applied.out, HasSubstr("gpuprofile.gpuprofile.io/listed created"));
  EXPECT_THAT(Run({"get", "namespace", "ml-list", "-o", "name"}).out,
              HasSubstr("namespace/ml-list"));
  EXPECT_THAT(Run({"get", "gpuprofile", "listed", "-o", "jsonpath={.spec.description}"}).out,
              HasSubstr("from a kind List"));

  // What `get -o yaml` prints for two objects is a List, and it applies back (as "configured":
  // the file carries resourceVersion and status, so last-applied-configuration changes).
  CommandResult got = Run({"get", "namespace/ml-list", "gpuprofile/listed", "-o", "yaml"});
  EXPECT_THAT(got.out, HasSubstr("kind: List"));
  scratch_.Write("got.yaml", got.out);
  CommandResult reapplied = Run({"apply", "-f", scratch_.File("got.yaml")});
  EXPECT_THAT(reapplied.out, HasSubstr("namespace/ml-list "));
  EXPECT_THAT(reapplied.out, HasSubstr("gpuprofile.gpuprofile.io/listed "));
  EXPECT_THAT(Run({"get", "gpuprofile", "listed", "-o", "jsonpath={.spec.description}"}).out,
              HasSubstr("from a kind List"));
}

INSTANTIATE_TEST_SUITE_P(Releases, KubectlTest,
                         ::testing::Values(Mode{"1.32", "kubectl.1.32", "v1beta1"},
                                           Mode{"1.34", "kubectl.1.33", "v1"},
                                           Mode{"1.37", "kubectl.1.33", "v1"}),
                         [](const ::testing::TestParamInfo<Mode>& param_info) {
                           std::string name = "Kube" + param_info.param.kube_version;
                           name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace kubectl_test
}  // namespace gpuprofile::e2e::testing
