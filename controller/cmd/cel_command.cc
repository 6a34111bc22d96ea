// File: controller/cmd/cel_command.cc
#include "controller/cmd/cel_command.h"

#include "controller/cmd/args.h"
#include "controller/cmd/exit_codes.h"

namespace gpuprofile::cmd {

int RunCel(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && args[0] == "check") {
    return RunCelCheck({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "match") {
    return RunCelMatch({args.begin() + 1, args.end()}, out, err);
  }
  err << "usage: gpu-profile-controller cel check [--kube-version V] [--feature-gates "
         "NAME=true,...] EXPR...\n"
         "       gpu-profile-controller cel match [--kube-version V] [--feature-gates "
         "NAME=true,...] -f PATH... [-o text|json] EXPR\n"
      << kFeatureGatesHelp;
  return kExitUsage;
}

}  // namespace gpuprofile::cmd
