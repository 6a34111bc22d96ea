// File: e2e/tests/image_test.cc
// The runtime image as users deploy it (issue 15, items 1, 2 and 5): scripts/image.sh builds
// it from the binary this build made, and podman runs it.
//
//  - ImageIsMinimalNonRootWithoutShell: the image runs as 65532, holds only the binary, its
//    libraries, glibc's loader, the CA bundle and /etc/passwd and /etc/group (no shell), and
//    `version` prints the release with a read-only root file system.
//  - DeploymentAsAppliedRunsInCluster: `kubectl apply -k config/default` against kube-emulator
//    (--tls, a token file, --authorization RBAC with the applied config/rbac); the container
//    is then started from the Deployment the emulator stored (arguments, environment with the
//    downward API resolved as the kubelet does, security context, /tmp volume, ports, probes,
//    grace period), with what a pod gets: the service-account token, ca.crt and namespace at
//    /var/run/secrets/kubernetes.io/serviceaccount and KUBERNETES_SERVICE_HOST/PORT. Every
//    sample profile becomes Ready, the probes answer on the ports the Deployment names, the
//    service account is never denied, and SIGTERM (podman stop) releases the Lease within the
//    grace period.
//
// Each test runs in a network namespace of its own (unshare), so the emulator, the container
// (podman --network host joins the test's namespace) and the fixed ports the Deployment names
// (8443, 8081) collide with nothing else on the machine. Where podman cannot run (not root, no
// podman, no namespaces) the tests say why and are skipped. Every container and the image are
// removed at the end, failed or not. GPO_TEST_IMAGE=NAME runs the tests on an existing image.
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "controller/cmd/version.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {
namespace image_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

constexpr absl::Duration kCommand = absl::Seconds(60);
constexpr absl::Duration kConverge = absl::Seconds(30);
constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr char kProfiles[] = "/apis/gpuprofile.io/v1alpha1/gpuprofiles";
// What config/default names (namespace and name prefix): the test checks the stored objects
// carry these rather than assuming them.
constexpr char kNamespace[] = "gpu-profile-operator-system";
constexpr char kServiceAccount[] = "gpu-profile-operator-controller-manager";
constexpr char kDeployment[] = "gpu-profile-operator-controller-manager";
constexpr char kLease[] = "gpu-profile-operator.gpuprofile.io";
constexpr size_t kSampleProfiles = 4;

std::string Src(const std::string& path) {
  return absl::StrCat(gpuprofile::testing::SourceDir(), "/", path);
}

std::string Podman() { return Src("scripts/podman.sh"); }

CommandResult PodmanRun(std::vector<std::string> args, absl::Duration deadline = kCommand) {
  args.insert(args.begin(), Podman());
  return RunCommand(args, deadline);
}

std::string Trimmed(std::string s) {
  absl::StripAsciiWhitespace(&s);
  return s;
}

// Polls the container's state (emulator_process.h), by default for as long as it may take to
// converge.
bool Eventually(const std::function<bool()>& check, absl::Duration deadline = kConverge) {
  return PollUntil(check, deadline);
}

// Enters a new network namespace with its loopback up; "" on success, else why not.
std::string EnterPrivateNetwork() {
  if (::unshare(CLONE_NEWNET) != 0) {
    return absl::StrCat("unshare(CLONE_NEWNET): ", std::strerror(errno));
  }
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return absl::StrCat("socket: ", std::strerror(errno));
  ifreq req{};
  std::snprintf(req.ifr_name, IFNAMSIZ, "lo");
  std::string error;
  if (::ioctl(fd, SIOCGIFFLAGS, &req) != 0) {
    error = absl::StrCat("SIOCGIFFLAGS lo: ", std::strerror(errno));
  } else {
    req.ifr_flags |= IFF_UP;
    if (::ioctl(fd, SIOCSIFFLAGS, &req) != 0) {
      error = absl::StrCat("SIOCSIFFLAGS lo: ", std::strerror(errno));
    }
  }
  ::close(fd);
  return error;
}

// A container by name, removed (with its anonymous volumes) when this goes out of scope.
class Container {
 public:
  explicit Container(std::string name) : name_(std::move(name)) {}
  ~Container() { PodmanRun({"rm", "--force", "--volumes", name_}); }
  const std::string& name() const { return name_; }
  std::string Logs() const { return PodmanRun({"logs", name_}).out; }
  std::string Inspect(const std::string& format) const {
    return Trimmed(PodmanRun({"inspect", "--format", format, name_}).out);
  }

 private:
  std::string name_;
};

class ImageTest : public ::testing::Test {
 protected:
  // Once per process (ctest runs each test case in a process of its own): the network
  // namespace and the image.
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_reason_ = "not root: podman runs rootful here (scripts/podman.sh)";
      return;
    }
    CommandResult info = PodmanRun({"info", "--format", "{{.Host.OCIRuntime.Name}}"});
    if (info.exit_code != 0) {
      skip_reason_ = absl::StrCat("podman cannot run here (scripts/install-deps.sh installs it; ",
                                  Podman(), " info said: ", Trimmed(info.out), ")");
      return;
    }
    if (std::string error = EnterPrivateNetwork(); !error.empty()) {
      skip_reason_ = absl::StrCat("no network namespace for the test: ", error);
      return;
    }
    // GPO_TEST_IMAGE=NAME tests an image built elsewhere (e.g. by the multi-stage Dockerfile)
    // instead of building one; it is left in place.
    if (const char* given = std::getenv("GPO_TEST_IMAGE"); given != nullptr && *given != '\0') {
      given_image_ = true;
      image_ = given;
      built_ = true;
      build_output_ = absl::StrCat("given by GPO_TEST_IMAGE\n");
      return;
    }
    image_ = absl::StrCat("localhost/gpo-image-test:", ::getpid());
    const absl::Time start = absl::Now();
    // image.sh reads the binary from GPO_BINARY.
    CommandResult built = RunCommand(
        {"env", absl::StrCat("GPO_BINARY=", ControllerPath()), Src("scripts/image.sh"), image_},
        absl::Seconds(120));
    build_time_ = absl::Now() - start;
    build_output_ = built.out;
    built_ = built.exit_code == 0;
  }
  static void TearDownTestSuite() {
    if (!image_.empty() && !given_image_) PodmanRun({"rmi", "--force", image_});
  }

  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(built_) << "scripts/image.sh failed:\n" << build_output_;
    std::printf("image %s built in %s: %s", image_.c_str(),
                absl::FormatDuration(build_time_).c_str(), build_output_.c_str());
  }

  std::string ContainerName(const std::string& what) {
    return absl::StrCat("gpo-image-test-", ::getpid(), "-", what);
  }

  static std::string skip_reason_;
  static std::string image_;
  static bool given_image_;
  static bool built_;
  static std::string build_output_;
  static absl::Duration build_time_;
};

std::string ImageTest::skip_reason_;
std::string ImageTest::image_;
bool ImageTest::given_image_ = false;
bool ImageTest::built_ = false;
std::string ImageTest::build_output_;
absl::Duration ImageTest::build_time_;

TEST_F(ImageTest, ImageIsMinimalNonRootWithoutShell) {
  CommandResult config =
      PodmanRun({"image", "inspect", "--format",
                 "{{.Config.User}}|{{json .Config.Entrypoint}}|{{.Size}}", image_});
  ASSERT_EQ(config.exit_code, 0) << config.out;
  std::vector<std::string> fields = absl::StrSplit(Trimmed(config.out), '|');
  ASSERT_EQ(fields.size(), 3u) << config.out;
  EXPECT_EQ(fields[0], "65532:65532");
  EXPECT_EQ(fields[1], R"(["/usr/local/bin/gpu-profile-controller"])");
  int64_t size = 0;
  ASSERT_TRUE(absl::SimpleAtoi(fields[2], &size)) << fields[2];
  RecordProperty("image_bytes", std::to_string(size));
  std::printf("image size: %.1f MB\n", static_cast<double>(size) / 1e6);
  EXPECT_LT(size, 64 << 20) << "the image grew past 64 MiB";

  // `version`, read-only, as the image's user.
  CommandResult version = PodmanRun(
      {"run", "--rm", "--network", "host", "--read-only", "--cap-drop", "ALL", image_, "version"});
  EXPECT_EQ(version.exit_code, 0) << version.out;
  EXPECT_EQ(Trimmed(version.out), absl::StrCat("gpu-profile-controller ", cmd::kVersion));

  // No shell to start.
  CommandResult shell = PodmanRun(
      {"run", "--rm", "--network", "host", "--entrypoint", "/bin/sh", image_, "-c", "true"});
  EXPECT_NE(shell.exit_code, 0) << shell.out;

  // Every file in the image, from an exported container's file system.
  ScratchDir dir;
  Container c(ContainerName("files"));
  ASSERT_EQ(PodmanRun({"create", "--name", c.name(), image_}).exit_code, 0);
  CommandResult exported = PodmanRun({"export", "--output", dir.File("fs.tar"), c.name()});
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  CommandResult listing = RunCommand({"tar", "-tf", dir.File("fs.tar")}, kCommand);
  ASSERT_EQ(listing.exit_code, 0) << listing.out;
  std::vector<std::string> unexpected;
  int libraries = 0;
  bool loader = false;
  for (absl::string_view line : absl::StrSplit(listing.out, '\n', absl::SkipEmpty())) {
    std::string path(absl::StripPrefix(absl::StripPrefix(line, "./"), "/"));
    if (path.empty() || absl::EndsWith(path, "/")) continue;  // directories
    if (path == "usr/local/bin/gpu-profile-controller" || path == "etc/passwd" ||
        path == "etc/group" || path == "etc/ssl/certs/ca-certificates.crt") {
      continue;
    }
    // podman's own mount points (empty files it creates for /etc/hosts, /etc/resolv.conf ...).
    if (path == "etc/hosts" || path == "etc/resolv.conf" || path == "etc/hostname" ||
        path == "run/.containerenv") {
      continue;
    }
    const std::string base = std::filesystem::path(path).filename().string();
    if (absl::StrContains(base, ".so")) {
      ++libraries;
      if (absl::StartsWith(base, "ld-linux")) loader = true;
      continue;
    }
    unexpected.push_back(path);
  }
  EXPECT_THAT(unexpected, ::testing::IsEmpty()) << "files beyond the binary and its libraries";
  EXPECT_TRUE(loader) << "glibc's loader is missing:\n" << listing.out;
  EXPECT_GT(libraries, 5) << listing.out;
}

// ---- the Deployment as applied -----------------------------------------------------------------

struct PodSpecRun {
  std::vector<std::string> podman_args;  // after `podman run`
  std::map<std::string, int> ports;      // containerPort by name
  json liveness, readiness;
  int grace_seconds = 30;
  std::string pod_name;
};

// The container's value of a securityContext field, else the pod's.
json Security(const json& pod, const json& container, const std::string& field) {
  json c = container.value("securityContext", json::object());
  if (c.contains(field)) return c[field];
  return pod.value("securityContext", json::object()).value(field, json(nullptr));
}

// The `podman run` arguments that start `deployment`'s container `name` as the kubelet would,
// for this test's emulator and service-account directory. Fields the mapping does not know
// fail the test, so that a manifest change cannot be silently ignored.
PodSpecRun FromDeployment(const json& deployment, const std::string& container_name,
                          const std::string& sa_dir, const std::string& api_port) {
  PodSpecRun out;
  const std::string ns = deployment["metadata"].value("namespace", "");
  const json& pod = deployment["spec"]["template"]["spec"];
  json container;
  for (const json& c : pod.value("containers", json::array())) {
    if (c.value("name", "") == container_name) container = c;
  }
  if (container.is_null()) {
    ADD_FAILURE() << "no container " << container_name << " in " << deployment.dump();
    return out;
  }
  out.pod_name = absl::StrCat(deployment["metadata"].value("name", ""), "-test");
  out.grace_seconds = pod.value("terminationGracePeriodSeconds", 30);
  std::vector<std::string>& a = out.podman_args;

  // The security context.
  const json container_security = container.value("securityContext", json::object());
  const json pod_security = pod.value("securityContext", json::object());
  for (const auto& [key, value] : container_security.items()) {
    static const std::set<std::string> known = {"runAsNonRoot",
                                                "runAsUser",
                                                "runAsGroup",
                                                "allowPrivilegeEscalation",
                                                "capabilities",
                                                "seccompProfile",
                                                "readOnlyRootFilesystem"};
    EXPECT_TRUE(known.count(key)) << "securityContext." << key << " is not mapped to podman";
  }
  for (const auto& [key, value] : pod_security.items()) {
    static const std::set<std::string> known = {"runAsNonRoot", "runAsUser", "runAsGroup",
                                                "seccompProfile"};
    EXPECT_TRUE(known.count(key)) << "pod securityContext." << key << " is not mapped to podman";
  }
  json user = Security(pod, container, "runAsUser");
  json group = Security(pod, container, "runAsGroup");
  if (!user.is_null()) {
    a.push_back("--user");
    a.push_back(group.is_null() ? std::to_string(user.get<int64_t>())
                                : absl::StrCat(user.get<int64_t>(), ":", group.get<int64_t>()));
  }
  if (Security(pod, container, "readOnlyRootFilesystem") == true) {
    // Only what the pod mounts is writable: no tmpfs of podman's own.
    a.push_back("--read-only");
    a.push_back("--read-only-tmpfs=false");
  }
  if (Security(pod, container, "allowPrivilegeEscalation") == false) {
    a.push_back("--security-opt");
    a.push_back("no-new-privileges");
  }
  json caps = Security(pod, container, "capabilities");
  if (caps.is_object()) {
    for (const json& c : caps.value("drop", json::array())) {
      a.push_back("--cap-drop");
      a.push_back(c.get<std::string>());
    }
    for (const json& c : caps.value("add", json::array())) {
      a.push_back("--cap-add");
      a.push_back(c.get<std::string>());
    }
  }
  json seccomp = Security(pod, container, "seccompProfile");
  if (seccomp.is_object()) {
    // RuntimeDefault is podman's default profile.
    EXPECT_EQ(seccomp.value("type", ""), "RuntimeDefault") << "seccompProfile not mapped";
  }

  // Volumes: emptyDir becomes a tmpfs of its size limit.
  std::map<std::string, json> volumes;
  for (const json& v : pod.value("volumes", json::array())) volumes[v.value("name", "")] = v;
  for (const json& m : container.value("volumeMounts", json::array())) {
    const json& v = volumes[m.value("name", "")];
    if (!v.contains("emptyDir")) {
      ADD_FAILURE() << "volume " << v.dump() << " is not mapped to podman";
      continue;
    }
    std::string size = v["emptyDir"].value("sizeLimit", "");
    if (absl::EndsWith(size, "Mi")) size = absl::StrCat(size.substr(0, size.size() - 2), "m");
    a.push_back("--tmpfs");
    a.push_back(absl::StrCat(m.value("mountPath", ""), size.empty() ? "" : ":size=" + size));
  }

  // What a pod gets: the service account's files and the API server's address.
  if (pod.value("automountServiceAccountToken", true)) {
    a.push_back("--volume");
    a.push_back(absl::StrCat(sa_dir, ":", kServiceAccountDir, ":ro"));
  }
  a.push_back("--env");
  a.push_back("KUBERNETES_SERVICE_HOST=127.0.0.1");
  a.push_back("--env");
  a.push_back(absl::StrCat("KUBERNETES_SERVICE_PORT=", api_port));

  // The environment, with the downward API resolved.
  for (const json& e : container.value("env", json::array())) {
    const std::string name = e.value("name", "");
    std::string value;
    if (e.contains("value")) {
      value = e["value"].get<std::string>();
    } else {
      const std::string field = e.value("valueFrom", json::object())
                                    .value("fieldRef", json::object())
                                    .value("fieldPath", "");
      if (field == "metadata.name") {
        value = out.pod_name;
      } else if (field == "metadata.namespace") {
        value = ns;
      } else {
        ADD_FAILURE() << "env " << e.dump() << " is not mapped to podman";
        continue;
      }
    }
    a.push_back("--env");
    a.push_back(absl::StrCat(name, "=", value));
  }
  for (const json& p : container.value("ports", json::array())) {
    out.ports[p.value("name", "")] = p.value("containerPort", 0);
  }
  out.liveness = container.value("livenessProbe", json(nullptr));
  out.readiness = container.value("readinessProbe", json(nullptr));
  if (container.contains("command")) {
    a.push_back("--entrypoint");
    a.push_back(container["command"].dump());
  }
  a.push_back("IMAGE");  // replaced by the caller
  for (const json& arg : container.value("args", json::array())) {
    a.push_back(arg.get<std::string>());
  }
  return out;
}

// The port a probe names (a number or a container port's name).
int ProbePort(const PodSpecRun& spec, const json& probe) {
  const json& port = probe["httpGet"]["port"];
  if (port.is_number()) return port.get<int>();
  auto it = spec.ports.find(port.get<std::string>());
  return it == spec.ports.end() ? 0 : it->second;
}

// The value of `key: value` in the kubeconfig text, or "".
std::string KubeconfigValue(const std::string& text, const std::string& key) {
  size_t at = text.find(key + ": ");
  if (at == std::string::npos) return "";
  size_t start = at + key.size() + 2;
  return text.substr(start, text.find('\n', start) - start);
}

TEST_F(ImageTest, DeploymentAsAppliedRunsInCluster) {
  const std::string kubectl_dir = KubectlDir();
  const std::string kubectl = kubectl_dir + "/kubectl.1.33";
  if (kubectl_dir.empty() || ::access(kubectl.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "kubectl 1.33 is not installed: `kubectl apply -k config/default` is the "
                    "point of this test";
  }
  ScratchDir dir;
  const std::string user = absl::StrCat("system:serviceaccount:", kNamespace, ":", kServiceAccount);
  const std::string sa_token = "operator-service-account-token";
  dir.Write("tokens.csv",
            absl::StrCat(sa_token, ",", user, ",uid-operator,\"system:serviceaccounts,",
                         "system:serviceaccounts:", kNamespace, "\"\n"));
  EmulatorProcess emulator({"--kube-version", "1.34", "-f", Src("config/samples/fleet"), "--tls",
                            "--token-file", dir.File("tokens.csv"), "--authorization", "RBAC",
                            "--kubeconfig-out", dir.File("kubeconfig"), "--audit-log",
                            dir.File("audit.log")});
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  const std::string kubeconfig = ReadFile(dir.File("kubeconfig"));
  std::string ca_pem;
  ASSERT_TRUE(
      absl::Base64Unescape(KubeconfigValue(kubeconfig, "certificate-authority-data"), &ca_pem));
  RawHttpClient admin(emulator.url(), ca_pem);
  admin.SetBearerToken(KubeconfigValue(kubeconfig, "token"));
  auto kubectl_ok = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {kubectl, "--kubeconfig", dir.File("kubeconfig"), "--cache-dir",
                                     dir.File("kubectl-cache")};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = RunCommand(argv, kCommand);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << absl::StrJoin(args, " ") << "\n" << r.out;
    return r;
  };

  // What a cluster gets, then the samples once the CRDs are there.
  CommandResult applied = kubectl_ok({"apply", "-k", Src("config/default")});
  ASSERT_EQ(applied.exit_code, 0);
  EXPECT_THAT(applied.out, HasSubstr(absl::StrCat("deployment.apps/", kDeployment, " created")));
  kubectl_ok({"wait", "--for=condition=Established", "crd", "--all", "--timeout=30s"});
  ASSERT_EQ(kubectl_ok({"apply", "-k", Src("config/samples")}).exit_code, 0);

  // The Deployment as stored, and its service account.
  RawResponse got = admin.Get(
      absl::StrCat("/apis/apps/v1/namespaces/", kNamespace, "/deployments/", kDeployment));
  ASSERT_EQ(got.status, 200) << got.body;
  const json deployment = got.Json();
  const json& pod = deployment["spec"]["template"]["spec"];
  ASSERT_EQ(pod.value("serviceAccountName", ""), kServiceAccount)
      << "the token file names another service account than the Deployment";
  ASSERT_EQ(admin
                .Get(absl::StrCat("/api/v1/namespaces/", kNamespace, "/serviceaccounts/",
                                  kServiceAccount))
                .status,
            200);
  const std::string container_name =
      deployment["spec"]["template"]["metadata"]
          .value("annotations", json::object())
          .value("kubectl.kubernetes.io/default-container", "manager");

  // The service-account files, readable by the container's user.
  const std::string sa_dir = dir.File("serviceaccount");
  std::filesystem::create_directory(sa_dir);
  ::chmod(sa_dir.c_str(), 0755);
  std::ofstream(sa_dir + "/token") << sa_token;
  std::ofstream(sa_dir + "/ca.crt") << ca_pem;
  std::ofstream(sa_dir + "/namespace") << kNamespace;
  for (const char* f : {"token", "ca.crt", "namespace"}) {
    ::chmod(absl::StrCat(sa_dir, "/", f).c_str(), 0644);
  }
  const std::string url = emulator.url();
  const std::string api_port = url.substr(url.rfind(':') + 1);
  PodSpecRun spec = FromDeployment(deployment, container_name, sa_dir, api_port);
  ASSERT_FALSE(HasFailure());
  ASSERT_FALSE(spec.liveness.is_null()) << "no livenessProbe";
  ASSERT_FALSE(spec.readiness.is_null()) << "no readinessProbe";
  std::replace(spec.podman_args.begin(), spec.podman_args.end(), std::string("IMAGE"), image_);

  Container c(ContainerName("operator"));
  std::vector<std::string> run = {
      "run",       "--detach", "--name",         c.name(),
      "--network", "host",     "--stop-timeout", std::to_string(spec.grace_seconds)};
  run.insert(run.end(), spec.podman_args.begin(), spec.podman_args.end());
  std::printf("podman %s\n", absl::StrJoin(run, " ").c_str());
  const absl::Time start = absl::Now();
  CommandResult started = PodmanRun(run);
  ASSERT_EQ(started.exit_code, 0) << started.out;
  auto dump_on_failure = [&] {
    if (HasFailure()) {
      std::fprintf(stderr, "---- container log\n%s\n---- emulator stderr\n%s\n", c.Logs().c_str(),
                   emulator.Stderr().c_str());
    }
  };

  // Every sample profile Ready for its generation.
  auto all_ready = [&] {
    RawResponse r = admin.Get(kProfiles);
    if (r.status != 200) return false;
    json items = r.Json().value("items", json::array());
    if (items.size() != kSampleProfiles) return false;
    for (const json& p : items) {
      bool ready = false;
      for (const json& cond :
           p.value("status", json::object()).value("conditions", json::array())) {
        if (cond.value("type", "") == "Ready" && cond.value("status", "") == "True") ready = true;
      }
      if (!ready ||
          p["status"].value("observedGeneration", -1) != p["metadata"].value("generation", -2)) {
        return false;
      }
    }
    return true;
  };
  const bool ready = Eventually(all_ready);
  const absl::Duration to_ready = absl::Now() - start;
  EXPECT_TRUE(ready) << "the sample profiles did not all become Ready";
  RecordProperty("start_to_ready_ms", static_cast<int>(absl::ToInt64Milliseconds(to_ready)));
  std::printf("podman run to every sample profile Ready: %s\n",
              absl::FormatDuration(to_ready).c_str());

  // The probes, by HTTP on the ports the Deployment names.
  for (const json* probe : {&spec.liveness, &spec.readiness}) {
    const int port = ProbePort(spec, *probe);
    ASSERT_GT(port, 0) << probe->dump();
    const std::string path = (*probe)["httpGet"].value("path", "/");
    RawHttpClient http(absl::StrCat("http://127.0.0.1:", port));
    int status = 0;
    EXPECT_TRUE(Eventually([&] {
      status = http.Get(path).status;
      return status == 200;
    })) << path
        << " on " << port << " answered " << status;
  }
  // Metrics over HTTPS (--metrics-secure, a self-signed certificate): 401 without a token; the
  // admin's token (system:masters) passes the operator's TokenReview and SubjectAccessReview,
  // which config/rbac lets the service account create.
  ASSERT_GT(spec.ports.count("metrics"), 0u);
  RawHttpClient metrics(absl::StrCat("https://127.0.0.1:", spec.ports["metrics"]));
  metrics.SkipTlsVerification();
  EXPECT_EQ(metrics.Get("/metrics").status, 401);
  metrics.SetBearerToken(KubeconfigValue(kubeconfig, "token"));
  EXPECT_EQ(metrics.Get("/metrics").status, 200);

  // Running as the Deployment's user, with a read-only root.
  const std::string pid = c.Inspect("{{.State.Pid}}");
  const std::string status = ReadFile(absl::StrCat("/proc/", pid, "/status"));
  EXPECT_THAT(status, ::testing::ContainsRegex("\nUid:\t65532\t65532\t65532\t65532\n")) << status;
  EXPECT_THAT(status, ::testing::ContainsRegex("\nCapEff:\t0+\n")) << status;
  EXPECT_EQ(c.Inspect("{{.HostConfig.ReadonlyRootfs}}"), "true");

  // The Lease is held by this pod.
  const std::string lease_path =
      absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", kNamespace, "/leases/", kLease);
  std::string holder;
  EXPECT_TRUE(Eventually([&] {
    RawResponse r = admin.Get(lease_path);
    holder = r.status == 200 ? r.Json()["spec"].value("holderIdentity", "") : "";
    return absl::StartsWith(holder, spec.pod_name + "_");
  })) << "holder: "
      << holder;

  // SIGTERM, as the kubelet sends it; the Lease is released within the grace period.
  const absl::Time stop_start = absl::Now();
  CommandResult stopped =
      PodmanRun({"stop", "--time", std::to_string(spec.grace_seconds), c.name()},
                absl::Seconds(spec.grace_seconds + 30));
  const absl::Duration stop_took = absl::Now() - stop_start;
  EXPECT_EQ(stopped.exit_code, 0) << stopped.out;
  EXPECT_EQ(c.Inspect("{{.State.ExitCode}}"), "0") << "not a clean exit on SIGTERM";
  EXPECT_LT(stop_took, absl::Seconds(spec.grace_seconds)) << "SIGKILLed at the grace period";
  RecordProperty("sigterm_to_exit_ms", static_cast<int>(absl::ToInt64Milliseconds(stop_took)));
  std::printf("podman stop (SIGTERM) to exit: %s\n", absl::FormatDuration(stop_took).c_str());
  RawResponse lease = admin.Get(lease_path);
  ASSERT_EQ(lease.status, 200) << lease.body;
  EXPECT_EQ(lease.Json()["spec"].value("holderIdentity", "?"), "")
      << "the Lease was not released: " << lease.body;

  // The service account was never denied (config/rbac is enough).
  std::vector<std::string> denied;
  int requests = 0;
  for (absl::string_view line : absl::StrSplit(ReadFile(dir.File("audit.log")), '\n')) {
    json l = json::parse(line, nullptr, false);
    if (l.is_discarded() || l.value("user", "") != user) continue;
    ++requests;
    if (l.value("code", 0) == 403) {
      denied.push_back(absl::StrCat(l.value("verb", ""), " ", l.value("path", "")));
    }
  }
  EXPECT_GT(requests, 0) << "no request as the service account in the audit log";
  EXPECT_THAT(denied, ::testing::IsEmpty());
  dump_on_failure();
}

}  // namespace
}  // namespace image_test
}  // namespace gpuprofile::e2e::testing
