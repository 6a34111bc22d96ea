// File: controller/cmd/cel_match_command.cc
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cmd/args.h"
#include "controller/cmd/cel_command.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/table_writer.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra_cel/device_value.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::cmd {
namespace {

struct MatchRow {
  const dra::Device* device = nullptr;
  bool matched = false;
  std::string error;  // empty when the selector evaluated to a bool
};

MatchRow Evaluate(const cel::Program& program, const dra::Device& device,
                  cel::DeviceValueBuilder& values) {
  MatchRow row;
  row.device = &device;
  // A device the scheduler cannot evaluate fails whatever the expression reads.
  cel::Value d = values.Build(device);
  if (d.is_error()) {
    row.error = std::string(d.error_message());
    return row;
  }
  cel::Value v = program.Evaluate({d});
  if (v.is_error()) {
    row.error = std::string(v.error_message());
  } else if (!v.is_bool()) {
    row.error = absl::StrCat("expression evaluated to ", v.TypeName(), ", not bool");
  } else {
    row.matched = v.bool_value();
  }
  return row;
}

void PrintJson(const std::vector<MatchRow>& rows, std::ostream& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MatchRow& r : rows) {
    nlohmann::ordered_json o;
    const std::string node(r.device->node());
    o["node"] = node.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(node);
    o["pool"] = std::string(r.device->pool());
    o["device"] = std::string(r.device->name());
    o["driver"] = std::string(r.device->driver());
    o["matched"] = r.matched;
    o["error"] = r.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.error);
    list.push_back(std::move(o));
  }
  // Device names come from input files: never throw on bytes that are not UTF-8.
  out << list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

void PrintText(const std::vector<MatchRow>& rows, const KubeVersion& version, std::ostream& out) {
  TableWriter table({"NODE", "POOL", "DEVICE", "DRIVER", "RESULT"});
  int matched = 0, errors = 0;
  for (const MatchRow& r : rows) {
    std::string result =
        r.error.empty() ? (r.matched ? "match" : "no match") : absl::StrCat("error: ", r.error);
    matched += r.matched;
    errors += !r.error.empty();
    table.AddRow({r.device->node().empty() ? "<none>" : std::string(r.device->node()),
                  std::string(r.device->pool()), std::string(r.device->name()),
                  std::string(r.device->driver()), result});
  }
  table.Print(out);
  out << matched << " of " << rows.size() << " devices match";
  if (errors > 0) {
    out << "; " << errors << " raise a runtime error (Kubernetes " << version.ToString()
        << " would fail allocation for any pod whose claim reaches them)";
  }
  out << "\n";
}

}  // namespace

int RunCelMatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ParsedArgs> parsed =
      ParseArgs(args, {{{"--kube-version"}},
                       {{"-f", "--filename"}, true, true},
                       {{"-o", "--output"}},
                       kFeatureGatesFlag});
  constexpr char kUsage[] =
      "usage: gpu-profile-controller cel match [--kube-version V] [--feature-gates NAME=true,...] "
      "-f PATH... [-o text|json] EXPR\n";
  if (!parsed.ok()) {
    err << "cel match: " << parsed.status().message() << "\n" << kUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  if (parsed->positional.size() != 1 || !parsed->Has("-f")) {
    err << "cel match: need exactly one expression and at least one -f PATH\n" << kUsage;
    return kExitUsage;
  }
  const std::string output = parsed->Get("-o", "text");
  if (output != "text" && output != "json") {
    err << "cel match: -o must be text or json, not \"" << output << "\"\n";
    return kExitUsage;
  }
  KubeVersion version = KubeVersion::Newest();
  if (parsed->Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed->Get("--kube-version"));
    if (!v.ok()) {
      err << "cel match: " << v.status().message() << "\n";
      return kExitUsage;
    }
    version = *v;
  }
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(*parsed, version);
  if (!gates.ok()) {
    err << "cel match: " << gates.status().message() << "\n";
    return kExitUsage;
  }

  const std::string& expr = parsed->positional[0];
  cel::CompileOptions options;
  options.require_bool_result = true;
  absl::StatusOr<std::shared_ptr<const cel::Program>> program = cel::Compile(
      expr,
      cel::Environment::ForDeviceSelectors(version, cel::ExpressionMode::kNewExpression, *gates),
      options);
  if (!program.ok()) {
    err << "cel match: Kubernetes " << version.ToString()
        << " would reject the expression: compilation failed: " << program.status().message()
        << "\n";
    return kExitFailure;
  }

  absl::StatusOr<std::vector<dra::ManifestObject>> objects =
      dra::ReadManifests(parsed->GetAll("-f"));
  if (!objects.ok()) {
    err << "cel match: " << objects.status().message() << "\n";
    return kExitFailure;
  }
  absl::StatusOr<dra::Inventory> inventory = dra::BuildInventory(*objects);
  if (!inventory.ok()) {
    err << "cel match: " << inventory.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<MatchRow> rows;
  rows.reserve(inventory->devices().size());
  cel::DeviceValueBuilder values(cel::DeviceValueOptions::For(*gates));
  for (const dra::Device& d : inventory->devices()) {
    rows.push_back(Evaluate(**program, d, values));
  }
  if (output == "json") {
    PrintJson(rows, out);
  } else {
    PrintText(rows, version, out);
  }
  return kExitOk;
}

}  // namespace gpuprofile::cmd
