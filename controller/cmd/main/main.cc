// File: controller/cmd/main/main.cc
// Entry point of gpu-profile-controller: dispatches to the subcommands.
#include <iostream>
#include <string>
#include <vector>

#include "controller/cmd/cel_command.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/explain_command.h"
#include "controller/cmd/left_to_exit.h"
#include "controller/cmd/render_command.h"
#include "controller/cmd/run_command.h"
#include "controller/cmd/short_run_heap.h"
#include "controller/cmd/version.h"

namespace {

constexpr char kUsage[] =
    "usage: gpu-profile-controller <command> [flags]\n"
    "commands:\n"
    "  run [--kubeconfig PATH] [--leader-elect] ...    the operator: keeps DeviceClasses, "
    "templates,\n"
    "                                                 node groups and profile status true in a\n"
    "                                                 live cluster (run --help for every flag)\n"
    "  render -f PATH... [--kube-version V] [--api-version resource.k8s.io/vX] [-o yaml|json]\n"
    "                                                 DeviceClasses, templates, node groups and\n"
    "                                                 profile status, computed offline\n"
    "  cel check [--kube-version V] EXPR...           will Kubernetes V accept these selectors?\n"
    "  cel match [--kube-version V] -f PATH... EXPR   which devices does a selector select?\n"
    "  explain (pod|resourceclaim|gpuprofile)/NAME [-n NS] [--kubeconfig PATH | -f PATH...]\n"
    "          [-o text|json]                         why the subject's ResourceClaims are not\n"
    "                                                 allocated, most likely cause first\n"
    "  version                                        print the version\n"
    "Started as kubectl-gpuprofile (a kubectl plugin: `kubectl gpuprofile explain ...`), the\n"
    "binary takes `explain` and `version`.\n";

constexpr char kPluginUsage[] =
    "usage: kubectl gpuprofile explain (pod|resourceclaim|gpuprofile)/NAME [-n NAMESPACE]\n"
    "                                  [-o text|json]\n"
    "       kubectl gpuprofile version\n"
    "The plugin reads the cluster from KUBECONFIG or ~/.kube/config (or --kubeconfig PATH after\n"
    "`explain`); `kubectl gpuprofile explain --help` lists every flag.\n";

// The name the binary was started as, without its directory.
std::string BaseName(const char* argv0) {
  std::string name = argv0 == nullptr ? "" : argv0;
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// kubectl runs `kubectl gpuprofile ARGS...` as `kubectl-gpuprofile ARGS...` (its plugin
// convention); it passes no kubeconfig, so the command finds it as kubectl does.
int RunPlugin(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kPluginUsage;
    return args.empty() ? gpuprofile::cmd::kExitUsage : gpuprofile::cmd::kExitOk;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "explain") {
    gpuprofile::cmd::SetUpHeapForShortRun();
    return gpuprofile::cmd::RunExplain(rest, std::cout, std::cerr, "kubectl gpuprofile explain");
  }
  if (args[0] == "version") return gpuprofile::cmd::RunVersion();
  std::cerr << "unknown command \"" << args[0] << "\"\n" << kPluginUsage;
  return gpuprofile::cmd::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (BaseName(argc > 0 ? argv[0] : nullptr) == "kubectl-gpuprofile") return RunPlugin(args);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? gpuprofile::cmd::kExitUsage : gpuprofile::cmd::kExitOk;
  }
  const std::string command = args[0];
  // The short runs that may read a large fleet (short_run_heap.h).
  if (command == "render" || command == "explain" || command == "cel") {
    gpuprofile::cmd::SetUpHeapForShortRun();
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "version") return gpuprofile::cmd::RunVersion();
  if (command == "run") return gpuprofile::cmd::RunOperator(rest, std::cerr);
  if (command == "render") {
    gpuprofile::cmd::AllowLeavingToExit();  // main returns what RunRender does
    return gpuprofile::cmd::RunRender(rest, std::cout, std::cerr);
  }
  if (command == "cel") return gpuprofile::cmd::RunCel(rest, std::cout, std::cerr);
  if (command == "explain") return gpuprofile::cmd::RunExplain(rest, std::cout, std::cerr);
  std::cerr << "unknown command \"" << command << "\"\n" << kUsage;
  return gpuprofile::cmd::kExitUsage;
}
