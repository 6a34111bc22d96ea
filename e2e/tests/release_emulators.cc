// File: e2e/tests/release_emulators.cc
#include "e2e/tests/release_emulators.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuprofile::e2e::testing {

EmulatorProcess& SharedEmulator(const std::string& kube, const std::string& gates) {
  // Never destroyed: the processes end with the test program (PR_SET_PDEATHSIG).
  static auto* running = new std::map<std::string, std::unique_ptr<EmulatorProcess>>();
  std::unique_ptr<EmulatorProcess>& e = (*running)[kube + "|" + gates];
  if (!e) {
    std::vector<std::string> args = {"--kube-version", kube};
    if (!gates.empty()) args.insert(args.end(), {"--feature-gates", gates});
    e = std::make_unique<EmulatorProcess>(args);
  }
  return *e;
}

std::string NewestDraVersion(const std::string& kube) {
  if (kube == "1.32") return "v1beta1";
  if (kube == "1.33") return "v1beta2";
  return "v1";
}

}  // namespace gpuprofile::e2e::testing
