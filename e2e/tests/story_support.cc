// File: e2e/tests/story_support.cc
#include "e2e/tests/story_support.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {

using json = nlohmann::json;

std::string Src(const std::string& path) {
  return absl::StrCat(gpuprofile::testing::SourceDir(), "/", path);
}

std::string KubeReleaseName(const std::string& kube_version) {
  std::string name = "Kube" + kube_version;
  name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
  return name;
}

std::string Name(const json& o) { return o["metadata"].value("name", ""); }
std::string Rv(const json& o) {
  return o.is_object() ? o["metadata"].value("resourceVersion", "") : "";
}
std::string Key(const json& o) {
  std::string ns = o["metadata"].value("namespace", "");
  return ns.empty() ? Name(o) : absl::StrCat(ns, "/", Name(o));
}

json FindCondition(const json& status, const std::string& type) {
  for (const json& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

json ConditionOf(const json& object, const std::string& type) {
  if (!object.is_object() || !object.contains("status")) return nullptr;
  return FindCondition(object["status"], type);
}

json FlatRequest(const json& request) {
  json flat = request.contains("exactly") ? request["exactly"] : request;
  flat["name"] = request.value("name", "");
  return flat;
}

std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += absl::StrCat("%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

std::string KubeconfigToken(const std::string& path) {
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "token: ")) return std::string(line);
  }
  return "";
}

std::unique_ptr<RawHttpClient> AdminClient(const EmulatorProcess& emulator,
                                           const std::string& kubeconfig) {
  auto client = std::make_unique<RawHttpClient>(emulator.url());
  client->SetBearerToken(KubeconfigToken(kubeconfig));
  return client;
}

std::vector<std::string> OperatorTestFlags(const std::string& kubeconfig) {
  return {"--kubeconfig",
          kubeconfig,
          "--metrics-bind-address",
          "0",
          "--health-probe-bind-address",
          "0",
          "--status-update-interval",
          "200ms",
          "--dra-discovery-interval",
          "500ms"};
}

void PrintFailureLogs(const std::vector<const OperatorProcess*>& operators,
                      const EmulatorProcess* emulator) {
  for (const OperatorProcess* op : operators) {
    if (op == nullptr) continue;
    std::string log = op->Log();
    if (log.size() > 6000) log = log.substr(log.size() - 6000);
    std::fprintf(stderr, "---- %s (last 6000 bytes)\n%s\n", op->log_path().c_str(), log.c_str());
  }
  if (emulator != nullptr) {
    std::fprintf(stderr, "---- emulator stderr\n%s\n", emulator->Stderr().c_str());
  }
}

std::string PinnedKubectl(const std::string& name) {
  const std::string dir = KubectlDir();
  if (dir.empty()) return "";
  const std::string path = dir + "/" + name;
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

CommandResult RunKubectl(const std::string& kubectl, const ScratchDir& scratch,
                         const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kubectl, "--kubeconfig", scratch.File("kubeconfig"),
                                   "--cache-dir", scratch.File("kubectl-cache")};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, kCommandDeadline);
}

CommandResult RunKubectlOk(const std::string& kubectl, const ScratchDir& scratch,
                           const std::vector<std::string>& args) {
  CommandResult r = RunKubectl(kubectl, scratch, args);
  EXPECT_EQ(r.exit_code, 0) << "kubectl " << absl::StrJoin(args, " ") << "\n" << r.out;
  return r;
}

bool Eventually(const std::function<bool()>& check, absl::Duration deadline) {
  return PollUntil(check, deadline);
}

}  // namespace gpuprofile::e2e::testing
