// File: controller/cmd/render_command.cc
#include "controller/cmd/render_command.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/cmd/args.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/left_to_exit.h"
#include "controller/cmd/manifest_writer.h"
#include "controller/core/check.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/core/names.h"
#include "controller/dra/api_version.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_loader.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/kueue/kueue_render.h"
#include "controller/meta/namespace_codec.h"
#include "controller/meta/resource_quota_codec.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/device_reads.h"
#include "controller/profile/engine.h"
#include "controller/profile/profile_conditions.h"

namespace gpuprofile::cmd {
namespace {

constexpr char kRenderUsage[] =
    "usage: gpu-profile-controller render -f PATH [-f PATH]... [--kube-version 1.32|...|1.37] "
    "[--feature-gates NAME=true,...] [--api-version resource.k8s.io/v1beta1|v1beta2|v1] "
    "[-o yaml|json]\n"
    "       [--kueue [--kueue-queue NAME]]   Kueue's deviceClassMappings, ResourceFlavor and "
    "ClusterQueue instead (docs/kueue.md)\n";

// Prefixes every line of a multi-line error with where the object came from.
void AddProblems(const dra::ManifestObject& object, absl::string_view message,
                 std::vector<std::string>* problems) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    if (line.empty()) continue;
    problems->push_back(absl::StrCat(object.Location(), ": ", object.Describe(), ": ", line));
  }
}

struct Inputs {
  std::vector<dra::ManifestObject> slices;
  std::vector<std::pair<const dra::ManifestObject*, api::GpuProfile>> profiles;
  std::vector<meta::Namespace> namespaces;
  std::vector<dra::DeviceClass> classes;
  std::vector<dra::ResourceClaimTemplate> templates;
  std::vector<meta::ResourceQuota> quotas;
  std::vector<dra::ResourceClaim> claims;
  std::map<std::string, int> ignored_kinds;
};

// Adds the GpuProfile `object` to `in`, once per name: the same object read again (a file named
// twice) is skipped, another profile with the name is a problem, since the engine takes one.
void AddProfile(const dra::ManifestObject& object,
                std::map<std::string, const dra::ManifestObject*>* profile_names, Inputs* in,
                std::vector<std::string>* problems) {
  absl::StatusOr<api::GpuProfile> profile = api::DecodeGpuProfile(object.object);
  if (!profile.ok()) {
    AddProblems(object, profile.status().message(), problems);
    return;
  }
  auto [it, inserted] = profile_names->try_emplace(profile->metadata.name, &object);
  if (!inserted && it->second->object == object.object) return;  // the same file named twice
  if (!inserted) {
    AddProblems(object,
                absl::StrCat("metadata.name: another GpuProfile with this name was read from ",
                             it->second->Location()),
                problems);
    return;
  }
  in->profiles.emplace_back(&object, *std::move(profile));
}

// Sorts the objects read by kind, decoding each; every object that does not decode is a problem.
Inputs Classify(std::vector<dra::ManifestObject>& objects, std::vector<std::string>* problems) {
  Inputs in;
  std::map<std::string, const dra::ManifestObject*> profile_names;
  for (dra::ManifestObject& object : objects) {
    const nlohmann::json& json = object.object;
    if (dra::IsResourceSlice(json)) {
      in.slices.push_back(std::move(object));
    } else if (api::IsGpuProfile(json)) {
      AddProfile(object, &profile_names, &in, problems);
    } else if (meta::IsNamespace(json)) {
      absl::StatusOr<meta::Namespace> ns = meta::DecodeNamespace(json);
      if (ns.ok()) {
        in.namespaces.push_back(*std::move(ns));
      } else {
        AddProblems(object, ns.status().message(), problems);
      }
    } else if (dra::IsDeviceClass(json)) {
      absl::StatusOr<dra::DeviceClass> c = dra::DecodeDeviceClass(json);
      if (c.ok()) {
        in.classes.push_back(*std::move(c));
      } else {
        AddProblems(object, c.status().message(), problems);
      }
    } else if (dra::IsResourceClaimTemplate(json)) {
      absl::StatusOr<dra::ResourceClaimTemplate> t = dra::DecodeResourceClaimTemplate(json);
      if (t.ok()) {
        in.templates.push_back(*std::move(t));
      } else {
        AddProblems(object, t.status().message(), problems);
      }
    } else if (meta::IsResourceQuota(json)) {
      absl::StatusOr<meta::ResourceQuota> q = meta::DecodeResourceQuota(json);
      if (q.ok()) {
        in.quotas.push_back(*std::move(q));
      } else {
        AddProblems(object, q.status().message(), problems);
      }
    } else if (dra::IsResourceClaim(json)) {
      absl::StatusOr<dra::ResourceClaim> c = dra::DecodeResourceClaim(json);
      if (c.ok()) {
        in.claims.push_back(*std::move(c));
      } else {
        // The claim's errors name the claim already (as the operator logs them).
        for (absl::string_view line : absl::StrSplit(c.status().message(), '\n')) {
          if (!line.empty()) problems->push_back(absl::StrCat(object.Location(), ": ", line));
        }
      }
    } else if (!api::IsGpuNodeGroup(json)) {
      // GpuNodeGroups are output (e.g. a previous render fed back in); anything else is not
      // ours to read.
      const nlohmann::json* kind =
          json.is_object() && json.contains("kind") ? &json["kind"] : nullptr;
      ++in.ignored_kinds[kind != nullptr && kind->is_string() ? kind->get<std::string>()
                                                              : "<no kind>"];
    }
  }
  return in;
}

// The checked command line of one render run.
struct RenderFlags {
  std::vector<std::string> paths;  // -f
  std::string output;              // "yaml" or "json"
  KubeVersion kube;
  FeatureGates gates;
  dra::DraApiVersion api_version = dra::DraApiVersion::kV1;
  bool kueue = false;  // --kueue: print what Kueue needs instead of the operator's objects
  kueue::KueueRenderOptions kueue_options;
};

// --kube-version, --feature-gates and --api-version: the release to render for, its gates and
// the resource.k8s.io version to write (by default the release's). Returns the exit code when
// one is wrong (a usage error, already printed).
std::optional<int> ParseRelease(const ParsedArgs& parsed, std::ostream& err, RenderFlags* flags) {
  flags->kube = KubeVersion::Newest();
  if (parsed.Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed.Get("--kube-version"));
    if (!v.ok()) {
      err << "render: --kube-version: " << v.status().message() << "\n" << kRenderUsage;
      return kExitUsage;
    }
    flags->kube = *v;
  }
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(parsed, flags->kube);
  if (!gates.ok()) {
    err << "render: " << gates.status().message() << "\n" << kRenderUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  flags->gates = *gates;
  flags->api_version = dra::DefaultDraApiVersion(flags->kube);
  if (parsed.Has("--api-version")) {
    absl::StatusOr<dra::DraApiVersion> v = dra::ParseDraApiVersion(parsed.Get("--api-version"));
    absl::Status served = v.ok() ? dra::CheckServedVersion(flags->kube, *v) : v.status();
    if (!served.ok()) {
      err << "render: --api-version: " << served.message() << "\n" << kRenderUsage;
      return kExitUsage;
    }
    flags->api_version = *v;
  }
  return std::nullopt;
}

// Parses and checks `args` into *flags. Returns the exit code when the run ends here (a usage
// error, already printed).
std::optional<int> ParseRenderFlags(const std::vector<std::string>& args, std::ostream& err,
                                    RenderFlags* flags) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {{{"-f", "--filename"}, true, true},
                                                       {{"--kube-version"}, true, false},
                                                       {{"--api-version"}, true, false},
                                                       {{"-o", "--output"}, true, false},
                                                       {{"--kueue"}, false, false},
                                                       {{"--kueue-queue"}, true, false},
                                                       kFeatureGatesFlag});
  if (!parsed.ok()) {
    err << "render: " << parsed.status().message() << "\n" << kRenderUsage << kFeatureGatesHelp;
    return kExitUsage;
  }
  if (!parsed->positional.empty()) {
    err << "render: unexpected argument \"" << parsed->positional[0] << "\"\n" << kRenderUsage;
    return kExitUsage;
  }
  flags->paths = parsed->GetAll("-f");
  if (flags->paths.empty()) {
    err << "render: at least one -f PATH is required\n" << kRenderUsage;
    return kExitUsage;
  }
  flags->output = parsed->Get("-o", "yaml");
  if (flags->output != "yaml" && flags->output != "json") {
    err << "render: -o must be yaml or json, got \"" << flags->output << "\"\n" << kRenderUsage;
    return kExitUsage;
  }
  flags->kueue = parsed->Get("--kueue", "false") == "true";
  if (parsed->Has("--kueue-queue")) {
    const std::string queue = parsed->Get("--kueue-queue");
    if (!flags->kueue || !IsDnsSubdomain(queue).ok()) {
      err << "render: --kueue-queue needs --kueue and a DNS subdomain name, got \"" << queue
          << "\"\n"
          << kRenderUsage;
      return kExitUsage;
    }
    flags->kueue_options.queue_name = queue;
    flags->kueue_options.flavor_name = queue;
  }
  return ParseRelease(*parsed, err, flags);
}

// The engine's input: the objects read, moved out of `in`. *source_of maps each profile's name
// to the object it was read from, so that its problems name the file.
profile::EngineInput EngineInputOf(const RenderFlags& flags, Inputs* in,
                                   std::map<std::string, const dra::ManifestObject*>* source_of) {
  profile::EngineInput input;
  input.kube_version = flags.kube;
  input.feature_gates = flags.gates;
  input.namespaces = std::move(in->namespaces);
  for (dra::DeviceClass& c : in->classes) {
    input.existing_classes.push_back(std::make_shared<const dra::DeviceClass>(std::move(c)));
  }
  for (dra::ResourceClaimTemplate& t : in->templates) {
    input.existing_templates.push_back(profile::ExistingTemplate::Of(
        std::make_shared<const dra::ResourceClaimTemplate>(std::move(t))));
  }
  for (meta::ResourceQuota& q : in->quotas) {
    input.existing_quotas.push_back(std::make_shared<const meta::ResourceQuota>(std::move(q)));
  }
  for (auto& [source, profile] : in->profiles) {
    (*source_of)[profile.metadata.name] = source;
    input.profiles.push_back(std::move(profile));
  }
  return input;
}

// An invalid spec fails the render (a problem); a profile this cluster cannot realise
// (FeatureNotServed, InvalidFallback) is what the preview is for: it is printed Stalled, with a
// warning.
void SortInvalidOutcomes(const profile::DesiredState& state,
                         const std::map<std::string, const dra::ManifestObject*>& source_of,
                         std::vector<std::string>* problems, std::vector<std::string>* warnings) {
  for (const profile::ProfileOutcome& outcome : state.profiles) {
    if (outcome.valid) continue;
    // Every outcome is one of the profiles given above (engine.h).
    auto source = source_of.find(outcome.profile.metadata.name);
    GPO_CHECK(source != source_of.end(), "the engine returned profile ",
              outcome.profile.metadata.name, ", which it was not given");
    if (outcome.stalled_reason == profile::kReasonInvalidSpec) {
      AddProblems(*source->second, outcome.problems, problems);
    } else {
      AddProblems(*source->second,
                  absl::StrCat("Stalled (", outcome.stalled_reason,
                               "), nothing generated for it: ", outcome.problems),
                  warnings);
    }
  }
}

// The objects of `state` as `run` would write them, without server fields, in render's order:
// node groups, classes, templates, quotas, then the profiles with their status.
std::vector<nlohmann::ordered_json> EncodeDesiredState(const profile::DesiredState& state,
                                                       const RenderFlags& flags) {
  std::vector<nlohmann::ordered_json> docs;
  for (const api::GpuNodeGroup& g : state.node_groups) {
    docs.push_back(api::EncodeGpuNodeGroup(g, /*include_server_fields=*/false));
  }
  for (const dra::DeviceClass& c : state.device_classes) {
    docs.push_back(dra::EncodeDeviceClass(c, flags.api_version, flags.kube,
                                          /*include_server_fields=*/false));
  }
  for (const dra::ResourceClaimTemplate& t : state.ClaimTemplates()) {
    docs.push_back(dra::EncodeResourceClaimTemplate(t, flags.api_version, flags.kube,
                                                    /*include_server_fields=*/false));
  }
  for (const meta::ResourceQuota& q : state.Quotas()) {
    docs.push_back(meta::EncodeResourceQuota(q, /*include_server_fields=*/false));
  }
  for (const profile::ProfileOutcome& p : state.profiles) {
    docs.push_back(api::EncodeGpuProfile(p.profile, /*include_server_fields=*/false));
  }
  return docs;
}

// What render read, decoded and planned. `source_of` and `in.profiles` point into `objects`.
struct ReadInputs {
  std::vector<dra::ManifestObject> objects;
  std::vector<dra::LoadedSlice> fast_slices;  // decoded on the way (manifest_loader.h)
  Inputs in;
  std::map<std::string, const dra::ManifestObject*> source_of;
  profile::SpecPlan plan;
  std::vector<std::string> problems;
};

// Sorts the objects read by kind and plans the profiles among them.
void ClassifyAndPlan(const RenderFlags& flags, ReadInputs* read) {
  read->in = Classify(read->objects, &read->problems);
  read->plan = profile::PlanProfiles(EngineInputOf(flags, &read->in, &read->source_of));
}

// Render's usual way in: every file but the JSON files of ResourceSlices, the profiles planned
// from them, then the slices with only the device attributes the plan reads
// (profile/device_reads.h). nullopt when that way does not fit the input: an error (the caller
// reads everything again, and reports it as always), or a file of slices holding more than the
// fast path decodes, whose objects the plan would have had to see.
std::optional<ReadInputs> ReadProfilesFirst(const RenderFlags& flags) {
  dra::ManifestLoader loader(flags.paths);
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = loader.ReadAllButSliceFiles();
  if (!objects.ok()) return std::nullopt;
  ReadInputs read;
  read.objects = *std::move(objects);
  ClassifyAndPlan(flags, &read);
  absl::StatusOr<dra::LoadedManifests> slices =
      loader.ReadSliceFiles(profile::AttributesRead(read.plan));
  if (!slices.ok() || !slices->objects.empty()) return std::nullopt;
  read.fast_slices = std::move(slices->slices);
  return read;
}

// Every file at once, every attribute kept.
absl::StatusOr<ReadInputs> ReadEverything(const RenderFlags& flags) {
  absl::StatusOr<dra::LoadedManifests> loaded = dra::LoadManifests(flags.paths);
  if (!loaded.ok()) return loaded.status();
  ReadInputs read;
  read.objects = std::move(loaded->objects);
  read.fast_slices = std::move(loaded->slices);
  ClassifyAndPlan(flags, &read);
  return read;
}

void WarnIgnoredKinds(const std::map<std::string, int>& ignored_kinds, std::ostream& err) {
  if (ignored_kinds.empty()) return;
  std::vector<std::string> kinds;
  for (const auto& [kind, count] : ignored_kinds) kinds.push_back(absl::StrCat(count, " ", kind));
  err << "render: ignored objects of kinds it does not read: " << absl::StrJoin(kinds, ", ")
      << "\n";
}

}  // namespace

int RunRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  RenderFlags flags;
  if (std::optional<int> exit = ParseRenderFlags(args, err, &flags)) return *exit;
  // JSON files of ResourceSlices are decoded as they are read (no JSON document per slice).
  std::optional<ReadInputs> read = ReadProfilesFirst(flags);
  if (!read) {
    absl::StatusOr<ReadInputs> everything = ReadEverything(flags);
    if (!everything.ok()) {
      err << everything.status().message() << "\n";
      return kExitFailure;
    }
    read = *std::move(everything);
  }
  std::vector<std::string>& problems = read->problems;
  const Inputs& in = read->in;
  absl::StatusOr<dra::Inventory> inventory =
      dra::BuildInventory(std::move(read->fast_slices), in.slices);
  if (!inventory.ok()) problems.push_back(std::string(inventory.status().message()));

  std::vector<const dra::ResourceClaim*> claims;
  for (const dra::ResourceClaim& c : in.claims) claims.push_back(&c);
  const profile::ClaimLedger ledger(claims);
  // Both arms lvalues: a temporary in one would copy the fleet's inventory into the other.
  const dra::Inventory no_inventory;
  const dra::Inventory& fleet = inventory.ok() ? *inventory : no_inventory;
  profile::DesiredState state = profile::AssembleDesiredState(read->plan, fleet, nullptr, &ledger);
  std::vector<std::string> warnings;
  SortInvalidOutcomes(state, read->source_of, &problems, &warnings);
  if (!problems.empty()) {
    err << absl::StrJoin(problems, "\n") << "\n";
    return kExitFailure;
  }

  std::vector<nlohmann::ordered_json> docs;
  if (flags.kueue) {
    absl::StatusOr<kueue::KueueRender> rendered = kueue::RenderKueue(state, flags.kueue_options);
    if (!rendered.ok()) {
      err << "render --kueue: " << rendered.status().message() << "\n";
      return kExitFailure;
    }
    docs = std::move(rendered->documents);
    for (const std::string& n : rendered->notes) err << "render: note: " << n << "\n";
  } else {
    docs = EncodeDesiredState(state, flags);
  }
  for (const std::string& w : warnings) err << "render: warning: " << w << "\n";
  out << (flags.output == "json" ? ToJsonList(docs) : ToYamlStream(docs));
  WarnIgnoredKinds(in.ignored_kinds, err);
  LeaveToExit(docs, state, inventory, read);
  return kExitOk;
}

}  // namespace gpuprofile::cmd
