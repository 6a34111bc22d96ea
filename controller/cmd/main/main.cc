// File: controller/cmd/main/main.cc
// Entry point of gpu-profile-controller: dispatches to the subcommands.
#include <iostream>
#include <string>
#include <vector>

#include "controller/cmd/cel_command.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/render_command.h"
#include "controller/cmd/run_command.h"
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
    "  version                                        print the version\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? gpuprofile::cmd::kExitUsage : gpuprofile::cmd::kExitOk;
  }
  const std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "version") return gpuprofile::cmd::RunVersion();
  if (command == "run") return gpuprofile::cmd::RunOperator(rest, std::cerr);
  if (command == "render") return gpuprofile::cmd::RunRender(rest, std::cout, std::cerr);
  if (command == "cel") return gpuprofile::cmd::RunCel(rest, std::cout, std::cerr);
  std::cerr << "unknown command \"" << command << "\"\n" << kUsage;
  return gpuprofile::cmd::kExitUsage;
}
