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
#include "controller/kube/cpprest_transport.h"
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

// What the live cluster says, for `subject` in `ns`.
absl::StatusOr<explain::ClusterView> ReadLive(kube::RestClient* client, const Subject& subject,
                                              const std::string& ns, const ParsedArgs& parsed,
                                              std::ostream& err, int* usage_error) {
  explain::ClusterView view;
  view.live = true;
  view.engine.namespaces_complete = true;
  kube::Discovery discovery(client);
  KubeVersion kube = KubeVersion::Newest();
  if (parsed.Has("--kube-version")) {
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed.Get("--kube-version"));
    if (!v.ok()) {
      *usage_error = 1;
      return absl::InvalidArgumentError(absl::StrCat("--kube-version: ", v.status().message()));
    }
    kube = *v;
  } else {
    absl::StatusOr<kube::ServerVersion> server = discovery.GetServerVersion();
    if (!server.ok()) return server.status();
    if (server->kube) {
      kube = *server->kube;
    } else if (server->major == 1 && server->minor < KubeVersion::kOldestMinor) {
      return absl::FailedPreconditionError(
          absl::StrCat("the server is Kubernetes ", server->git_version,
                       ", older than any release this "
                       "command models (pass --kube-version to read it as one)"));
    }
  }
  absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(parsed, kube);
  if (!gates.ok()) {
    *usage_error = 1;
    return gates.status();
  }
  view.engine.kube_version = kube;
  view.engine.feature_gates = *gates;

  absl::StatusOr<std::vector<std::string>> served =
      discovery.ServedVersions(dra::kResourceApiGroup);
  if (!served.ok()) return served.status();
  absl::StatusOr<dra::DraApiVersion> chosen = dra::ChooseDraApiVersion(*served, kube);
  if (!chosen.ok()) {
    view.dra_served = false;
    view.dra_not_served_reason = std::string(chosen.status().message());
  }
  const std::string dra_version =
      chosen.ok() ? std::string(dra::VersionName(*chosen)) : std::string();
  // Templates: the subject's namespace, every namespace for a profile. Claims: every namespace,
  // since any claim may hold the devices the subject's claims could use.
  const std::string scope = subject.kind == Kind::kProfile ? "" : ns;

  if (subject.kind == Kind::kPod) {
    absl::StatusOr<nlohmann::json> pod =
        client->Get(kube::ResourcePath{"", "v1", "pods", ns, subject.name, ""});
    if (!pod.ok() && !kube::apierrors::IsNotFound(pod.status())) return pod.status();
    if (pod.ok()) {
      absl::StatusOr<explain::Pod> decoded = explain::DecodePod(*pod);
      if (!decoded.ok()) return decoded.status();
      view.pods.push_back(*std::move(decoded));
    }
  }
  absl::StatusOr<std::vector<nlohmann::json>> items =
      ListItems(client, {api::kGroup, api::kVersion, "gpuprofiles", "", "", ""}, true);
  if (!items.ok()) return items.status();
  for (const nlohmann::json& item : *items) {
    absl::StatusOr<api::GpuProfile> p = api::DecodeGpuProfile(item);
    if (!p.ok()) {
      err << "explain: warning: a GpuProfile does not decode and is left out: "
          << p.status().message() << "\n";
      continue;
    }
    view.engine.profiles.push_back(*std::move(p));
  }
  items = ListItems(client, {"", "v1", "namespaces", "", "", ""}, false);
  if (!items.ok()) return items.status();
  for (const nlohmann::json& item : *items) {
    absl::StatusOr<api::Namespace> n = api::DecodeNamespace(item);
    if (n.ok()) view.engine.namespaces.push_back(*std::move(n));
  }
  // Nodes, for the migration view (who offers each node's GPUs). A user who may not list Nodes
  // still gets the rest of the explanation.
  kube::ListOptions node_options;
  node_options.limit = 500;
  absl::StatusOr<kube::ObjectList> nodes =
      client->ListAll({"", "v1", "nodes", "", "", ""}, node_options);
  if (!nodes.ok() && !kube::apierrors::IsForbidden(nodes.status())) {
    return absl::Status(nodes.status().code(),
                        absl::StrCat("cannot list nodes: ", nodes.status().message()));
  }
  if (!nodes.ok()) {
    err << "explain: warning: cannot list Nodes, so who offers each node's GPUs (device plugin "
           "or DRA) is left out: "
        << nodes.status().message() << "\n";
  } else {
    view.nodes_known = true;
    for (const nlohmann::json& item : nodes->items) {
      absl::StatusOr<api::NodeGpus> n = api::DecodeNodeGpus(item);
      if (n.ok()) {
        view.nodes.push_back(*std::move(n));
      } else {
        err << "explain: warning: a Node does not decode and is left out: " << n.status().message()
            << "\n";
      }
    }
  }
  if (!dra_version.empty()) {
    const std::string group = dra::kResourceApiGroup;
    items = ListItems(client, {group, dra_version, "resourceslices", "", "", ""}, false);
    if (!items.ok()) return items.status();
    std::vector<std::shared_ptr<const dra::ResourceSlice>> slices;
    std::vector<dra::UndecodableSlice> undecodable;
    for (const nlohmann::json& item : *items) {
      absl::StatusOr<dra::ResourceSlice> s = dra::DecodeSlice(item);
      if (s.ok()) {
        slices.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(s)));
      } else {
        const nlohmann::json* name = item.contains("metadata") && item["metadata"].is_object() &&
                                             item["metadata"].contains("name")
                                         ? &item["metadata"]["name"]
                                         : nullptr;
        undecodable.push_back(
            {name != nullptr && name->is_string() ? name->get<std::string>() : "<unnamed>",
             std::string(s.status().message())});
      }
    }
    view.inventory = dra::Inventory::FromSlices(std::move(slices), std::move(undecodable));
    items = ListItems(client, {group, dra_version, "deviceclasses", "", "", ""}, false);
    if (!items.ok()) return items.status();
    for (const nlohmann::json& item : *items) {
      absl::StatusOr<dra::DeviceClass> c = dra::DecodeDeviceClass(item);
      if (c.ok()) {
        view.engine.existing_classes.push_back(
            std::make_shared<const dra::DeviceClass>(*std::move(c)));
      } else {
        err << "explain: warning: a DeviceClass does not decode and is left out: "
            << c.status().message() << "\n";
      }
    }
    items = ListItems(client, {group, dra_version, "resourceclaimtemplates", scope, "", ""}, false);
    if (!items.ok()) return items.status();
    for (const nlohmann::json& item : *items) {
      absl::StatusOr<dra::ResourceClaimTemplate> t = dra::DecodeResourceClaimTemplate(item);
      if (t.ok()) {
        view.engine.existing_templates.push_back(profile::ExistingTemplate::Of(
            std::make_shared<const dra::ResourceClaimTemplate>(*std::move(t))));
      } else {
        err << "explain: warning: a ResourceClaimTemplate does not decode and is left out: "
            << t.status().message() << "\n";
      }
    }
    items = ListItems(client, {group, dra_version, "resourceclaims", "", "", ""}, false);
    if (!items.ok()) return items.status();
    for (const nlohmann::json& item : *items) {
      absl::StatusOr<dra::ResourceClaim> c = dra::DecodeResourceClaim(item);
      if (c.ok()) {
        view.claims.push_back(*std::move(c));
      } else {
        err << "explain: warning: a ResourceClaim does not decode and is left out: "
            << c.status().message() << "\n";
      }
    }
  }
  return view;
}

}  // namespace

int RunExplain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const std::string& program) {
  const std::string usage = Usage(program);
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {{{"-n", "--namespace"}, true, false},
                                                       {{"--kubeconfig"}, true, false},
                                                       {{"--context"}, true, false},
                                                       {{"-f", "--filename"}, true, true},
                                                       {{"--kube-version"}, true, false},
                                                       {{"-o", "--output"}, true, false},
                                                       {{"-h", "--help"}, false, false},
                                                       kFeatureGatesFlag});
  if (!parsed.ok()) {
    err << program << ": " << parsed.status().message() << "\n" << usage << kFeatureGatesHelp;
    return kExitUsage;
  }
  if (parsed->Has("-h")) {
    out << usage << kFeatureGatesHelp;
    return kExitOk;
  }
  absl::StatusOr<Subject> subject = ParseSubject(parsed->positional);
  if (!subject.ok()) {
    err << program << ": " << subject.status().message() << "\n" << usage;
    return kExitUsage;
  }
  const std::string output = parsed->Get("-o", "text");
  if (output != "text" && output != "json") {
    err << program << ": -o must be text or json, got \"" << output << "\"\n" << usage;
    return kExitUsage;
  }
  const std::vector<std::string> paths = parsed->GetAll("-f");
  if (!paths.empty() && (parsed->Has("--kubeconfig") || parsed->Has("--context"))) {
    err << program << ": -f (offline) and --kubeconfig/--context (live) exclude each other\n"
        << usage;
    return kExitUsage;
  }

  std::string ns = parsed->Get("-n");
  explain::ClusterView view;
  if (!paths.empty()) {
    KubeVersion kube = KubeVersion::Newest();
    if (parsed->Has("--kube-version")) {
      absl::StatusOr<KubeVersion> v = KubeVersion::Parse(parsed->Get("--kube-version"));
      if (!v.ok()) {
        err << program << ": --kube-version: " << v.status().message() << "\n" << usage;
        return kExitUsage;
      }
      kube = *v;
    }
    absl::StatusOr<FeatureGates> gates = ParseFeatureGatesFlag(*parsed, kube);
    if (!gates.ok()) {
      err << program << ": " << gates.status().message() << "\n" << usage << kFeatureGatesHelp;
      return kExitUsage;
    }
    absl::StatusOr<dra::LoadedManifests> loaded = dra::LoadManifests(paths);
    if (!loaded.ok()) {
      err << loaded.status().message() << "\n";
      return kExitFailure;
    }
    absl::StatusOr<explain::ManifestView> read =
        explain::ViewFromManifests(*std::move(loaded), kube, *gates);
    if (!read.ok()) {
      err << read.status().message() << "\n";
      return kExitFailure;
    }
    view = std::move(read->view);
    if (ns.empty()) ns = "default";
  } else {
    kube::ConfigFlags flags;
    flags.kubeconfig = parsed->Get("--kubeconfig");
    flags.context = parsed->Get("--context");
    absl::StatusOr<kube::ClientConfig> config = kube::LoadClientConfig(flags, kube::HostEnv{});
    if (!config.ok()) {
      err << program << ": cannot load the cluster configuration: " << config.status().message()
          << "\n";
      return kExitFailure;
    }
    if (ns.empty()) ns = config->namespace_name.empty() ? "default" : config->namespace_name;
    absl::StatusOr<std::unique_ptr<kube::HttpTransport>> transport =
        kube::NewCpprestTransport(*config);
    if (!transport.ok()) {
      err << program << ": cannot connect to " << config->server << ": "
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
        ReadLive(&client, *subject, ns, *parsed, err, &usage_error);
    if (!live.ok()) {
      err << program << ": " << live.status().message() << "\n";
      if (usage_error != 0) {
        err << usage << kFeatureGatesHelp;
        return kExitUsage;
      }
      return kExitFailure;
    }
    view = *std::move(live);
  }

  explain::Explainer explainer(view);
  absl::StatusOr<explain::Diagnosis> diagnosis =
      subject->kind == Kind::kPod     ? explainer.ExplainPod(ns, subject->name)
      : subject->kind == Kind::kClaim ? explainer.ExplainClaim(ns, subject->name)
                                      : explainer.ExplainProfile(subject->name);
  if (!diagnosis.ok()) {
    err << program << ": " << diagnosis.status().message() << "\n";
    return kExitFailure;
  }
  if (output == "json") {
    out << explain::EncodeDiagnosis(*diagnosis).dump(2) << "\n";
  } else {
    out << explain::FormatDiagnosis(*diagnosis);
  }
  return diagnosis->HasCause() ? kExitExplainedCause : kExitExplainedNoCause;
}

}  // namespace gpuprofile::cmd
