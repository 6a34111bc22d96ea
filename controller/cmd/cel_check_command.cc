// File: controller/cmd/cel_check_command.cc
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cmd/args.h"
#include "controller/cmd/cel_command.h"
#include "controller/cmd/exit_codes.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::cmd {
namespace {

// The gates that change the DRA selector environment (controller/cel/environment.h).
constexpr const char* kCelGates[] = {kDRAConsumableCapacity, kDRAListTypeAttributes};

// The gates the expression needs: those that are on and without which it would be rejected.
std::vector<std::string> GatesNeeded(const std::string& expr, const KubeVersion& version,
                                     const FeatureGates& gates,
                                     const cel::CompileOptions& options) {
  std::vector<std::string> needed;
  auto env = cel::Environment::ForDeviceSelectors(version, cel::ExpressionMode::kNewExpression,
                                                  gates);
  for (const char* gate : kCelGates) {
    if (!env->GateOn(gate)) continue;
    FeatureGates off = gates;
    off.Set(gate, false);
    auto without = cel::Compile(
        expr,
        cel::Environment::ForDeviceSelectors(version, cel::ExpressionMode::kNewExpression, off),
        options);
    if (without.ok()) continue;
    needed.push_back(absl::StrCat(gate, gates.Overridden(gate)
                                            ? " (on by --feature-gates)"
                                            : absl::StrCat(" (on by default in ",
                                                           version.ToString(), ")")));
  }
  return needed;
}

}  // namespace

int RunCelCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  constexpr char kUsage[] =
      "usage: gpu-profile-controller cel check [--kube-version V] [--feature-gates "
      "NAME=true,...] EXPR...\n";
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {{{"--kube-version"}}, kFeatureGatesFlag});
  if (!parsed.ok()) {
    err << "cel check: " << parsed.status().message() << "\n" << kUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  if (parsed->positional.empty()) {
    err << "cel check: no expression given\n" << kUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  KubeVersion version = KubeVersion::Newest();
  if (parsed->Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed->Get("--kube-version"));
    if (!v.ok()) {
      err << "cel check: " << v.status().message() << "\n";
      return kExitUsage;
    }
    version = *v;
  }
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(*parsed, version);
  if (!gates.ok()) {
    err << "cel check: " << gates.status().message() << "\n";
    return kExitUsage;
  }
  std::shared_ptr<const cel::Environment> env =
      cel::Environment::ForDeviceSelectors(version, cel::ExpressionMode::kNewExpression, *gates);
  cel::CompileOptions options;
  options.require_bool_result = true;

  bool rejected = false, unimplemented = false;
  const size_t n = parsed->positional.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string& expr = parsed->positional[i];
    std::string label = n > 1 ? absl::StrCat("expression ", i + 1, ": ") : "";
    absl::StatusOr<std::shared_ptr<const cel::Program>> program = cel::Compile(expr, env, options);
    if (program.ok()) {
      out << label << "accepted by Kubernetes " << version.ToString()
          << " (estimated cost " << (*program)->cost().max << ")";
      std::vector<std::string> needed = GatesNeeded(expr, version, *gates, options);
      if (!needed.empty()) {
        out << "; only because feature gate" << (needed.size() > 1 ? "s " : " ")
            << absl::StrJoin(needed, " and ") << (needed.size() > 1 ? " are" : " is") << " on";
      }
      out << "\n";
      continue;
    }
    if (program.status().code() == absl::StatusCode::kUnimplemented) {
      unimplemented = true;
      err << label << "cannot tell whether Kubernetes " << version.ToString()
          << " accepts it: this engine does not implement a feature it uses:\n"
          << program.status().message() << "\n";
    } else {
      rejected = true;
      err << label << "rejected by Kubernetes " << version.ToString()
          << ": compilation failed: " << program.status().message() << "\n";
    }
  }
  if (rejected) return kExitFailure;
  if (unimplemented) return kExitUnimplemented;
  return kExitOk;
}

}  // namespace gpuprofile::cmd
