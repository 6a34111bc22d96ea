// File: controller/cmd/cel_check_command.cc
#include <memory>

#include "absl/strings/str_cat.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cmd/args.h"
#include "controller/cmd/cel_command.h"
#include "controller/cmd/exit_codes.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::cmd {

int RunCelCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {{{"--kube-version"}}});
  if (!parsed.ok()) {
    err << "cel check: " << parsed.status().message() << "\n";
    return kExitUsage;
  }
  if (parsed->positional.empty()) {
    err << "cel check: no expression given\nusage: gpu-profile-controller cel check "
           "[--kube-version V] EXPR...\n";
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
  std::shared_ptr<const cel::Environment> env = cel::Environment::ForDeviceSelectors(version);
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
          << " (estimated cost " << (*program)->cost().max << ")\n";
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
