// File: controller/cmd/explain_command.cc
#include "controller/cmd/explain_command.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/cmd/args.h"
#include "controller/cmd/exit_codes.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/core/status_macros.h"
#include "controller/dra/api_version.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_loader.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/explain/diagnosis.h"
#include "controller/explain/manifest_view.h"
#include "controller/explain/pod.h"
#include "controller/kube/api_error.h"
#include "controller/kube/transport_factory.h"
#include "controller/kube/discovery.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/rest_client.h"
#include "controller/meta/namespace_codec.h"
#include "controller/meta/node_codec.h"

namespace gpuprofile::cmd {
namespace {

std::string Usage(const std::string& program) {
  return absl::StrCat(
      "usage: ", program,
      " (pod|resourceclaim|gpuprofile)/NAME [-n NAMESPACE] [-o text|json]\n"
      "         [--kubeconfig PATH] [--context NAME]      live: the cluster of the kubeconfig\n"
      "                                                   (--kubeconfig, KUBECONFIG, "
      "~/.kube/config)\n"
      "         -f PATH [-f PATH]...                      offline: files as `render` reads "
      "them,\n"
      "                                                   with Pods, ResourceClaims and Nodes\n"
      "         [--kube-version 1.32|...|1.37] [--feature-gates NAME=true,...]\n"
      "Says why the subject's ResourceClaims are not allocated, most likely cause first.\n"
      "exit codes: 0 explained, no cause found; 3 explained, a cause found; 1 inputs unreadable "
      "or subject not found; 2 usage\n");
}

enum class Kind { kPod, kClaim, kProfile };

struct Subject {
  Kind kind;
  std::string name;
};

absl::StatusOr<Subject> ParseSubject(const std::vector<std::string>& positional) {
  std::string kind, name;
  if (positional.size() == 1 && positional[0].find('/') != std::string::npos) {
    std::pair<std::string, std::string> parts =
        absl::StrSplit(positional[0], absl::MaxSplits('/', 1));
    kind = parts.first;
    name = parts.second;
  } else if (positional.size() == 2) {
    kind = positional[0];
    name = positional[1];
  } else if (positional.empty()) {
    return absl::InvalidArgumentError("a subject is required, e.g. pod/NAME");
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected one subject (KIND/NAME or KIND NAME), got \"",
                     absl::StrJoin(positional, " "), "\""));
  }
  kind = absl::AsciiStrToLower(kind);
  Subject s;
  s.name = name;
  if (kind == "pod" || kind == "pods" || kind == "po") {
    s.kind = Kind::kPod;
  } else if (kind == "resourceclaim" || kind == "resourceclaims" ||
             kind == "resourceclaims.resource.k8s.io" || kind == "resourceclaim.resource.k8s.io") {
    s.kind = Kind::kClaim;
  } else if (kind == "gpuprofile" || kind == "gpuprofiles" || kind == "gpup" ||
             kind == "gpuprofile.gpuprofile.io" || kind == "gpuprofiles.gpuprofile.io") {
    s.kind = Kind::kProfile;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown kind \"", kind, "\": explain takes pod, resourceclaim or gpuprofile"));
  }
  if (name.empty()) return absl::InvalidArgumentError("the subject's NAME is empty");
  return s;
}

// Lists `path`; NotFound (the resource is not served, e.g. no GpuProfile CRD) is an empty list
// when `missing_ok`.
absl::StatusOr<std::vector<nlohmann::json>> ListItems(kube::RestClient* client,
                                                      const kube::ResourcePath& path,
                                                      bool missing_ok) {
  kube::ListOptions options;
  options.limit = 500;
  absl::StatusOr<kube::ObjectList> list = client->ListAll(path, options);
  if (!list.ok()) {
    if (missing_ok && kube::apierrors::IsNotFound(list.status())) {
      return std::vector<nlohmann::json>{};
    }
    return absl::Status(list.status().code(),
                        absl::StrCat("cannot list ", path.resource, ": ", list.status().message()));
  }
  return std::move(list->items);
}

// Decodes each of `items` and hands it to `keep`; one that does not decode is left out with a
// warning naming its `kind`, so that one malformed object does not hide the rest of the cluster.
template <typename Decode, typename Keep>
void DecodeEach(const std::vector<nlohmann::json>& items, const char* kind, Decode decode,
                Keep keep, std::ostream& err) {
  for (const nlohmann::json& item : items) {
    auto decoded = decode(item);
    if (decoded.ok()) {
      keep(*std::move(decoded));
    } else {
      err << "explain: warning: a " << kind
          << " does not decode and is left out: " << decoded.status().message() << "\n";
    }
  }
}

// The release to model: --kube-version, else the server's own. Sets *usage_error when the flag
// is malformed, so that the caller prints the usage.
absl::StatusOr<KubeVersion> LiveKubeVersion(kube::Discovery* discovery, const ParsedArgs& parsed,
                                            int* usage_error) {
  if (parsed.Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed.Get("--kube-version"));
    if (!v.ok()) {
      *usage_error = 1;
      return absl::InvalidArgumentError(absl::StrCat("--kube-version: ", v.status().message()));
    }
    return *v;
  }
  absl::StatusOr<kube::ServerVersion> server = discovery->GetServerVersion();
  if (!server.ok()) return server.status();
  if (server->kube) return *server->kube;
  if (server->major == 1 && server->minor < KubeVersion::kOldestMinor) {
    return absl::FailedPreconditionError(
        absl::StrCat("the server is Kubernetes ", server->git_version,
                     ", older than any release this "
                     "command models (pass --kube-version to read it as one)"));
  }
  // A release newer than those modelled, or a version that does not read as 1.x: the newest.
  return KubeVersion::Newest();
}

// The resource.k8s.io version to read; "" when the cluster serves none that `version` can read,
// and then the view records why (explain reports it as DraNotServed).
absl::StatusOr<std::string> LiveDraVersion(kube::Discovery* discovery, const KubeVersion& version,
                                           explain::ClusterView* view) {
  absl::StatusOr<std::vector<std::string>> served =
      discovery->ServedVersions(dra::kResourceApiGroup);
  if (!served.ok()) return served.status();
  absl::StatusOr<dra::DraApiVersion> chosen = dra::ChooseDraApiVersion(*served, version);
  if (!chosen.ok()) {
    view->dra_served = false;
    view->dra_not_served_reason = std::string(chosen.status().message());
    return std::string();
  }
  return std::string(dra::VersionName(*chosen));
}

// The subject pod, when it exists. A pod that does not is not an error here: the Explainer
// reports it as not found, live and offline alike.
absl::Status ReadPod(kube::RestClient* client, const std::string& ns, const std::string& name,
                     explain::ClusterView* view) {
  absl::StatusOr<nlohmann::json> pod =
      client->Get(kube::ResourcePath{"", "v1", "pods", ns, name, ""});
  if (!pod.ok()) {
    return kube::apierrors::IsNotFound(pod.status()) ? absl::OkStatus() : pod.status();
  }
  absl::StatusOr<explain::Pod> decoded = explain::DecodePod(*pod);
  if (!decoded.ok()) return decoded.status();
  view->pods.push_back(*std::move(decoded));
  return absl::OkStatus();
}

// The GpuProfiles (none when the CRD is not installed) and the Namespaces, whose labels decide
// where the profiles' templates go.
absl::Status ReadProfilesAndNamespaces(kube::RestClient* client, explain::ClusterView* view,
                                       std::ostream& err) {
  absl::StatusOr<std::vector<nlohmann::json>> items =
      ListItems(client, {api::kGroup, api::kVersion, "gpuprofiles", "", "", ""}, true);
  if (!items.ok()) return items.status();
  DecodeEach(
      *items, "GpuProfile", api::DecodeGpuProfile,
      [&](api::GpuProfile p) { view->engine.profiles.push_back(std::move(p)); }, err);
  items = ListItems(client, {"", "v1", "namespaces", "", "", ""}, false);
  if (!items.ok()) return items.status();
  for (const nlohmann::json& item : *items) {
    absl::StatusOr<meta::Namespace> n = meta::DecodeNamespace(item);
    if (n.ok()) view->engine.namespaces.push_back(*std::move(n));
  }
  return absl::OkStatus();
}

// The Nodes, for the migration view (who offers each node's GPUs). A user who may not list Nodes
// still gets the rest of the explanation.
absl::Status ReadNodes(kube::RestClient* client, explain::ClusterView* view, std::ostream& err) {
  kube::ListOptions options;
  options.limit = 500;
  absl::StatusOr<kube::ObjectList> nodes =
      client->ListAll({"", "v1", "nodes", "", "", ""}, options);
  if (!nodes.ok() && !kube::apierrors::IsForbidden(nodes.status())) {
    return absl::Status(nodes.status().code(),
                        absl::StrCat("cannot list nodes: ", nodes.status().message()));
  }
  if (!nodes.ok()) {
    err << "explain: warning: cannot list Nodes, so who offers each node's GPUs (device plugin "
           "or DRA) is left out: "
        << nodes.status().message() << "\n";
    return absl::OkStatus();
  }
  view->nodes_known = true;
  DecodeEach(
      nodes->items, "Node", meta::DecodeNodeGpus,
      [&](meta::NodeGpus n) { view->nodes.push_back(std::move(n)); }, err);
  return absl::OkStatus();
}

// metadata.name of a ResourceSlice that does not decode, as far as it can be read.
std::string SliceName(const nlohmann::json& item) {
  const nlohmann::json* name =
      item.contains("metadata") && item["metadata"].is_object() && item["metadata"].contains("name")
          ? &item["metadata"]["name"]
          : nullptr;
  return name != nullptr && name->is_string() ? name->get<std::string>() : "<unnamed>";
}

// The devices of the ResourceSlices of `version`. A slice that does not decode is kept by name
// in the inventory rather than dropped unseen.
absl::StatusOr<dra::Inventory> ReadInventory(kube::RestClient* client, const std::string& version) {
  absl::StatusOr<std::vector<nlohmann::json>> items =
      ListItems(client, {dra::kResourceApiGroup, version, "resourceslices", "", "", ""}, false);
  if (!items.ok()) return items.status();
  std::vector<std::shared_ptr<const dra::ResourceSlice>> slices;
  std::vector<dra::UndecodableSlice> undecodable;
  for (const nlohmann::json& item : *items) {
    absl::StatusOr<dra::ResourceSlice> s = dra::DecodeSlice(item);
    if (s.ok()) {
      slices.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(s)));
    } else {
      undecodable.push_back({SliceName(item), std::string(s.status().message())});
    }
  }
  return dra::Inventory::FromSlices(std::move(slices), std::move(undecodable));
}

// The resource.k8s.io objects of `version`: the devices, the DeviceClasses and the
// ResourceClaimTemplates that exist (templates in `scope`, "" for every namespace) and every
// ResourceClaim.
absl::Status ReadDraObjects(kube::RestClient* client, const std::string& version,
                            const std::string& scope, explain::ClusterView* view,
                            std::ostream& err) {
  const std::string group = dra::kResourceApiGroup;
  absl::StatusOr<dra::Inventory> inventory = ReadInventory(client, version);
  if (!inventory.ok()) return inventory.status();
  view->inventory = *std::move(inventory);
  absl::StatusOr<std::vector<nlohmann::json>> items =
      ListItems(client, {group, version, "deviceclasses", "", "", ""}, false);
  if (!items.ok()) return items.status();
  DecodeEach(
      *items, "DeviceClass", dra::DecodeDeviceClass,
      [&](dra::DeviceClass c) {
        view->engine.existing_classes.push_back(
            std::make_shared<const dra::DeviceClass>(std::move(c)));
      },
      err);
  items = ListItems(client, {group, version, "resourceclaimtemplates", scope, "", ""}, false);
  if (!items.ok()) return items.status();
  DecodeEach(
      *items, "ResourceClaimTemplate", dra::DecodeResourceClaimTemplate,
      [&](dra::ResourceClaimTemplate t) {
        view->engine.existing_templates.push_back(profile::ExistingTemplate::Of(
            std::make_shared<const dra::ResourceClaimTemplate>(std::move(t))));
      },
      err);
  items = ListItems(client, {group, version, "resourceclaims", "", "", ""}, false);
  if (!items.ok()) return items.status();
  // The claims with their status.devices, read as offline (explain::AddClaimObject).
  for (const nlohmann::json& item : *items) {
    const absl::Status added = explain::AddClaimObject(item, view);
    if (!added.ok()) {
      err << "explain: warning: a ResourceClaim does not decode and is left out: "
          << added.message() << "\n";
    }
  }
  return absl::OkStatus();
}

// What the live cluster says, for `subject` in `ns`. Sets *usage_error when the error is the
// user's flags (--kube-version, --feature-gates).
absl::StatusOr<explain::ClusterView> ReadLive(kube::RestClient* client, const Subject& subject,
                                              const std::string& ns, const ParsedArgs& parsed,
                                              std::ostream& err, int* usage_error) {
  explain::ClusterView view;
  view.live = true;
  view.engine.namespaces_complete = true;
  kube::Discovery discovery(client);
  absl::StatusOr<KubeVersion> version = LiveKubeVersion(&discovery, parsed, usage_error);
  if (!version.ok()) return version.status();
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(parsed, *version);
  if (!gates.ok()) {
    *usage_error = 1;
    return gates.status();
  }
  view.engine.kube_version = *version;
  view.engine.feature_gates = *gates;
  absl::StatusOr<std::string> dra_version = LiveDraVersion(&discovery, *version, &view);
  if (!dra_version.ok()) return dra_version.status();
  if (subject.kind == Kind::kPod) RETURN_IF_ERROR(ReadPod(client, ns, subject.name, &view));
  RETURN_IF_ERROR(ReadProfilesAndNamespaces(client, &view, err));
  RETURN_IF_ERROR(ReadNodes(client, &view, err));
  if (dra_version->empty()) return view;
  // Templates: the subject's namespace, every namespace for a profile. Claims: every namespace,
  // since any claim may hold the devices the subject's claims could use.
  const std::string scope = subject.kind == Kind::kProfile ? "" : ns;
  RETURN_IF_ERROR(ReadDraObjects(client, *dra_version, scope, &view, err));
  return view;
}

// Where explain writes, and how its messages name it.
struct Console {
  std::ostream& out;
  std::ostream& err;
  const std::string& program;
  const std::string& usage;
};

// The command line of one explain run, checked.
struct Request {
  ParsedArgs parsed;
  Subject subject;
  std::string output;              // "text" or "json"
  std::vector<std::string> paths;  // -f PATH...: offline when not empty, else live
};

// Parses and checks `args` into *request. Returns the exit code when the run ends here (-h, or a
// usage error, already printed).
std::optional<int> ParseRequest(const std::vector<std::string>& args, const Console& io,
                                Request* request) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {{{"-n", "--namespace"}, true, false},
                                                       {{"--kubeconfig"}, true, false},
                                                       {{"--context"}, true, false},
                                                       {{"-f", "--filename"}, true, true},
                                                       {{"--kube-version"}, true, false},
                                                       {{"-o", "--output"}, true, false},
                                                       {{"-h", "--help"}, false, false},
                                                       kFeatureGatesFlag});
  if (!parsed.ok()) {
    io.err << io.program << ": " << parsed.status().message() << "\n"
           << io.usage << kFeatureGatesHelp;
    return kExitUsage;
  }
  if (parsed->Has("-h")) {
    io.out << io.usage << kFeatureGatesHelp;
    return kExitOk;
  }
  absl::StatusOr<Subject> subject = ParseSubject(parsed->positional);
  if (!subject.ok()) {
    io.err << io.program << ": " << subject.status().message() << "\n" << io.usage;
    return kExitUsage;
  }
  const std::string output = parsed->Get("-o", "text");
  if (output != "text" && output != "json") {
    io.err << io.program << ": -o must be text or json, got \"" << output << "\"\n" << io.usage;
    return kExitUsage;
  }
  std::vector<std::string> paths = parsed->GetAll("-f");
  if (!paths.empty() && (parsed->Has("--kubeconfig") || parsed->Has("--context"))) {
    io.err << io.program << ": -f (offline) and --kubeconfig/--context (live) exclude each other\n"
           << io.usage;
    return kExitUsage;
  }
  *request = Request{*std::move(parsed), *std::move(subject), output, std::move(paths)};
  return std::nullopt;
}

// Offline: the view from the -f files, read as --kube-version (the newest by default) with its
// gates. *ns defaults to "default". Returns the exit code when the files cannot be read.
std::optional<int> ReadFiles(const Console& io, const Request& request, std::string* ns,
                             explain::ClusterView* view) {
  KubeVersion version = KubeVersion::Newest();
  if (request.parsed.Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(request.parsed.Get("--kube-version"));
    if (!v.ok()) {
      io.err << io.program << ": --kube-version: " << v.status().message() << "\n" << io.usage;
      return kExitUsage;
    }
    version = *v;
  }
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(request.parsed, version);
  if (!gates.ok()) {
    io.err << io.program << ": " << gates.status().message() << "\n"
           << io.usage << kFeatureGatesHelp;
    return kExitUsage;
  }
  absl::StatusOr<dra::LoadedManifests> loaded = dra::LoadManifests(request.paths);
  if (!loaded.ok()) {
    io.err << loaded.status().message() << "\n";
    return kExitFailure;
  }
  absl::StatusOr<explain::ManifestView> read =
      explain::ViewFromManifests(*std::move(loaded), version, *gates);
  if (!read.ok()) {
    io.err << read.status().message() << "\n";
    return kExitFailure;
  }
  *view = std::move(read->view);
  if (ns->empty()) *ns = "default";
  return std::nullopt;
}

// Live: the view of the kubeconfig's cluster (--kubeconfig, --context). *ns defaults to the
// context's namespace, else "default". Returns the exit code when the cluster cannot be read.
std::optional<int> ReadCluster(const Console& io, const Request& request, std::string* ns,
                               explain::ClusterView* view) {
  kube::ConfigFlags flags;
  flags.kubeconfig = request.parsed.Get("--kubeconfig");
  flags.context = request.parsed.Get("--context");
  absl::StatusOr<kube::ClientConfig> config = kube::LoadClientConfig(flags, kube::HostEnv{});
  if (!config.ok()) {
    io.err << io.program << ": cannot load the cluster configuration: " << config.status().message()
           << "\n";
    return kExitFailure;
  }
  if (ns->empty()) *ns = config->namespace_name.empty() ? "default" : config->namespace_name;
  absl::StatusOr<std::unique_ptr<kube::HttpTransport>> transport =
      kube::NewHttpTransport(*config);
  if (!transport.ok()) {
    io.err << io.program << ": cannot connect to " << config->server << ": "
           << transport.status().message() << "\n";
    return kExitFailure;
  }
  kube::RestClientOptions options;
  options.credentials = config->credentials;
  options.max_retries = 2;
  options.user_agent = "gpu-profile-controller-explain";
  kube::RestClient client(transport->get(), options);
  int usage_error = 0;
  absl::StatusOr<explain::ClusterView> live =
      ReadLive(&client, request.subject, *ns, request.parsed, io.err, &usage_error);
  if (!live.ok()) {
    io.err << io.program << ": " << live.status().message() << "\n";
    if (usage_error != 0) {
      io.err << io.usage << kFeatureGatesHelp;
      return kExitUsage;
    }
    return kExitFailure;
  }
  *view = *std::move(live);
  return std::nullopt;
}

// Explains the subject and prints the diagnosis as -o asks. The exit code says whether a cause
// was found.
int PrintDiagnosis(const Console& io, const Request& request, const std::string& ns,
                   const explain::ClusterView& view) {
  explain::Explainer explainer(view);
  const Subject& subject = request.subject;
  absl::StatusOr<explain::Diagnosis> diagnosis =
      subject.kind == Kind::kPod     ? explainer.ExplainPod(ns, subject.name)
      : subject.kind == Kind::kClaim ? explainer.ExplainClaim(ns, subject.name)
                                     : explainer.ExplainProfile(subject.name);
  if (!diagnosis.ok()) {
    io.err << io.program << ": " << diagnosis.status().message() << "\n";
    return kExitFailure;
  }
  if (request.output == "json") {
    io.out << explain::EncodeDiagnosis(*diagnosis).dump(2) << "\n";
  } else {
    io.out << explain::FormatDiagnosis(*diagnosis);
  }
  return diagnosis->HasCause() ? kExitExplainedCause : kExitExplainedNoCause;
}

}  // namespace

int RunExplain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const std::string& program) {
  const std::string usage = Usage(program);
  const Console io{out, err, program, usage};
  Request request;
  if (std::optional<int> exit = ParseRequest(args, io, &request)) return *exit;
  std::string ns = request.parsed.Get("-n");
  explain::ClusterView view;
  const std::optional<int> exit = request.paths.empty() ? ReadCluster(io, request, &ns, &view)
                                                        : ReadFiles(io, request, &ns, &view);
  if (exit) return *exit;
  return PrintDiagnosis(io, request, ns, view);
}

}  // namespace gpuprofile::cmd
