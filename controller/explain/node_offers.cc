// File: controller/explain/node_offers.cc
// The migration view in explain: per node, whether the device plugin, DRA or both offer its
// GPUs, from the engine's node groups (offeredBy, offeredTwiceNodes), and what that means for a
// subject (diagnoser.h).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/explain/diagnoser.h"

namespace gpuprofile::explain::internal {
namespace {

// A GPU product as DRA drivers publish it (productName "NVIDIA A100-SXM4-40GB") and as GPU
// Feature Discovery labels it (nvidia.com/gpu.product "NVIDIA-A100-SXM4-40GB"): lower case,
// letters and digits only.
std::string ProductKey(const std::string& product) {
  std::string out;
  for (char c : product) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) {
      out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

OfferedNodes Listed(const std::set<std::string>& names, int64_t count) {
  OfferedNodes out;
  out.count = count;
  for (const std::string& name : names) {
    if (out.names.size() >= kMaxListedNodes) break;
    out.names.push_back(name);
  }
  return out;
}

std::string Plural(int64_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

}  // namespace

bool Diagnoser::OfferedTwice(const std::string& node) const {
  if (offered_twice_.contains(node)) return true;
  return !offered_twice_complete_ && plugin_nodes_.count(node) != 0;
}

NodeOffers Diagnoser::OffersOf(size_t p, const ClassAnalysis& a) const {
  NodeOffers out;
  std::set<std::string> both, dra;
  for (const std::string& node : a.nodes) (OfferedTwice(node) ? both : dra).insert(node);
  out.both = Listed(both, static_cast<int64_t>(both.size()));
  out.dra = Listed(dra, static_cast<int64_t>(dra.size()));

  // The profile's node groups (its status.nodeGroups) and their products; then the groups the
  // device plugin alone serves with one of those products.
  const std::string& profile = plan_.profiles[p].profile.metadata.name;
  std::set<std::string> profile_groups, products;
  for (const profile::ProfileOutcome& o : state_.profiles) {
    if (o.profile.metadata.name != profile) continue;
    for (const api::NodeGroupMatch& m : o.profile.status.node_groups) profile_groups.insert(m.name);
  }
  std::map<std::string, std::string> groups;  // name -> offeredBy
  for (const api::GpuNodeGroup& g : state_.node_groups) {
    if (profile_groups.count(g.metadata.name) == 0) continue;
    groups[g.metadata.name] = g.status.offered_by;
    const std::string key = ProductKey(g.status.signature.product);
    if (!key.empty()) products.insert(key);
  }
  std::set<std::string> plugin;
  int64_t plugin_count = 0;
  for (const api::GpuNodeGroup& g : state_.node_groups) {
    if (g.status.offered_by != api::kOfferedByDevicePlugin ||
        products.count(ProductKey(g.status.signature.product)) == 0) {
      continue;
    }
    groups[g.metadata.name] = g.status.offered_by;
    plugin_count += g.status.node_count;
    plugin.insert(g.status.nodes.begin(), g.status.nodes.end());
  }
  out.device_plugin = Listed(plugin, plugin_count);
  out.node_groups.assign(groups.begin(), groups.end());
  return out;
}

std::optional<Finding> Diagnoser::OfferedTwiceFinding(size_t p, const ClassAnalysis& a) const {
  std::vector<std::string> twice;
  for (const std::string& node : a.nodes) {
    if (OfferedTwice(node)) twice.push_back(node);
  }
  if (twice.empty()) return std::nullopt;
  const profile::ProfilePlan& w = plan_.profiles[p];
  Finding f;
  f.code = "NodesOfferedTwice";
  f.severity = Severity::kInfo;
  f.profile = w.profile.metadata.name;
  f.device_class = w.profile.spec.device_class_name;
  f.message = absl::StrCat(
      Plural(static_cast<int64_t>(twice.size()), "node", "nodes"), " of the ", a.nodes.size(),
      " with devices DeviceClass \"", f.device_class, "\" selects ",
      twice.size() == 1 ? "offers its" : "offer their", " GPUs through both the device plugin (",
      meta::kDevicePluginGpuResource,
      " in the Node's allocatable) and DRA (ResourceSlices): the two could hand out the same GPU "
      "twice, to a pod of each.");
  f.remedy =
      "Remove the device plugin from these nodes (or the DRA driver) before scheduling pods on "
      "them; kubectl get gpunodegroups shows the groups offered by Both (condition "
      "OfferedTwice).";
  f.evidence["nodes"] = Capped(twice);
  f.evidence["nodeCount"] = twice.size();
  std::vector<std::string> groups;
  for (const profile::ProfileOutcome& o : state_.profiles) {
    if (o.profile.metadata.name != f.profile) continue;
    for (const api::NodeGroupMatch& m : o.profile.status.node_groups) {
      for (const api::GpuNodeGroup& g : state_.node_groups) {
        if (g.metadata.name == m.name && g.status.offered_by == api::kOfferedByBoth) {
          groups.push_back(g.metadata.name);
        }
      }
    }
  }
  f.evidence["nodeGroups"] = groups;
  return f;
}

std::vector<Finding> Diagnoser::DevicePluginFindings(const Pod& pod) const {
  std::vector<Finding> out;
  if (pod.device_plugin_requests.empty() || view_.inventory.node_count() == 0) return out;
  // A class with an extended resource name serves a request of that name through DRA too.
  std::vector<std::string> asks;
  nlohmann::ordered_json requests = nlohmann::ordered_json::object();
  for (const auto& [resource, n] : pod.device_plugin_requests) {
    bool served_by_dra = false;
    for (const profile::ProfileOutcome& o : state_.profiles) {
      served_by_dra |= o.profile.status.extended_resource_name == resource;
    }
    if (served_by_dra) continue;
    asks.push_back(absl::StrCat(n, " ", resource));
    requests[resource] = n;
  }
  if (asks.empty()) return out;
  std::vector<std::string> templates;  // the profiles' templates in the pod's namespace
  for (const profile::TemplateSet& s : state_.template_sets) {
    if (std::binary_search(s.namespaces.begin(), s.namespaces.end(), pod.namespace_name)) {
      templates.push_back(s.prototype.metadata.name);
    }
  }
  std::sort(templates.begin(), templates.end());
  const bool unscheduled =
      pod.node_name.empty() && (!pod.scheduled || pod.scheduled->status != "True");
  const int64_t dra_nodes = view_.inventory.node_count();
  const std::string ask = absl::StrJoin(asks, " and ");
  Finding f;
  f.remedy = absl::StrCat(
      "Ask DRA for the GPUs: a spec.resourceClaims[] entry with resourceClaimTemplateName ",
      templates.empty() ? "of a GpuProfile's template (none targets this namespace)"
                        : absl::StrCat("one of ", absl::StrJoin(templates, ", ")),
      ", named in the containers' resources.claims, instead of ", ask, ".");
  if (view_.nodes_known && plugin_nodes_.empty() && unscheduled) {
    f.code = "DevicePluginNotOffered";
    f.message = absl::StrCat("The pod asks the device plugin for ", ask,
                             ", but no node offers device-plugin GPUs: the cluster's GPUs are "
                             "offered through DRA (ResourceSlices on ",
                             Plural(dra_nodes, "node", "nodes"),
                             "), so the pod cannot be scheduled as it is.");
  } else {
    f.code = "DevicePluginRequest";
    f.severity = Severity::kInfo;
    f.message = absl::StrCat(
        "The pod asks the device plugin for ", ask, ", not DRA, while DRA offers GPUs on ",
        Plural(dra_nodes, "node", "nodes"), ": only nodes the device plugin still serves",
        view_.nodes_known ? absl::StrCat(" (", plugin_nodes_.size(), ")") : "",
        " can take it, and it waits while their GPUs are in use.");
  }
  f.evidence["requests"] = requests;
  if (view_.nodes_known) {
    f.evidence["devicePluginNodes"] =
        Listed(plugin_nodes_, static_cast<int64_t>(plugin_nodes_.size())).names;
    f.evidence["devicePluginNodeCount"] = plugin_nodes_.size();
  }
  f.evidence["draNodeCount"] = dra_nodes;
  f.evidence["templates"] = templates;
  out.push_back(std::move(f));
  return out;
}

}  // namespace gpuprofile::explain::internal
