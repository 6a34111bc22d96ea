// File: controller/explain/diagnosis_format.cc
// A Diagnosis as the stable JSON shape and as text for people (diagnosis.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/api/gpu_node_group.h"
#include "controller/explain/diagnosis.h"

namespace gpuprofile::explain {

namespace {

// {"count": N, "nodes": [...]}.
nlohmann::ordered_json EncodeOffered(const OfferedNodes& nodes) {
  nlohmann::ordered_json out;
  out["count"] = nodes.count;
  out["nodes"] = nodes.names;
  return out;
}

// "nodeOffers": {"offeredBy": {"Both": ..., "DRA": ..., "DevicePlugin": ...}, "nodeGroups": [...]}
// (the keys are GpuNodeGroup status.offeredBy's values).
nlohmann::ordered_json EncodeNodeOffers(const NodeOffers& offers) {
  nlohmann::ordered_json out;
  out["nodeCount"] = offers.both.count + offers.dra.count + offers.device_plugin.count;
  nlohmann::ordered_json by;
  by[api::kOfferedByBoth] = EncodeOffered(offers.both);
  by[api::kOfferedByDra] = EncodeOffered(offers.dra);
  by[api::kOfferedByDevicePlugin] = EncodeOffered(offers.device_plugin);
  out["offeredBy"] = by;
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const auto& [name, offered_by] : offers.node_groups) {
    nlohmann::ordered_json g;
    g["name"] = name;
    g["offeredBy"] = offered_by;
    groups.push_back(std::move(g));
  }
  out["nodeGroups"] = groups;
  return out;
}

// "3 (a, b, c)", "12 (a, ..., j, ...)", "0".
std::string OfferedText(const OfferedNodes& nodes) {
  if (nodes.count == 0) return "0";
  return absl::StrCat(nodes.count, " (", absl::StrJoin(nodes.names, ", "),
                      nodes.count > static_cast<int64_t>(nodes.names.size()) ? ", ..." : "", ")");
}

}  // namespace

nlohmann::ordered_json EncodeDiagnosis(const Diagnosis& d) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "gpuprofile.io/v1alpha1";
  out["kind"] = "Explanation";
  nlohmann::ordered_json subject;
  subject["kind"] = d.kind;
  if (!d.namespace_name.empty()) subject["namespace"] = d.namespace_name;
  subject["name"] = d.name;
  out["subject"] = subject;
  out["result"] = d.HasCause() ? "CauseFound" : "NoCauseFound";
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding& f : d.findings) {
    nlohmann::ordered_json j;
    j["code"] = f.code;
    j["severity"] = SeverityName(f.severity);
    if (!f.pod_claim.empty()) j["podClaim"] = f.pod_claim;
    if (!f.resource_claim.empty()) j["resourceClaim"] = f.resource_claim;
    if (!f.device_class.empty()) j["deviceClass"] = f.device_class;
    if (!f.profile.empty()) j["profile"] = f.profile;
    j["message"] = f.message;
    if (!f.remedy.empty()) j["remedy"] = f.remedy;
    j["evidence"] = f.evidence;
    findings.push_back(std::move(j));
  }
  out["findings"] = findings;
  if (d.node_offers) out["nodeOffers"] = EncodeNodeOffers(*d.node_offers);
  return out;
}

namespace {

std::string EvidenceValue(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const auto& item : v) items.push_back(EvidenceValue(item));
    return items.empty() ? "(none)" : absl::StrJoin(items, ", ");
  }
  if (v.is_object()) {
    std::vector<std::string> items;
    for (const auto& [k, item] : v.items())
      items.push_back(absl::StrCat(k, ": ", EvidenceValue(item)));
    return items.empty() ? "(none)" : absl::StrJoin(items, "; ");
  }
  return v.dump();
}

// A list whose items are sentences of their own (a blocked device with the claims blocking it):
// one line each, since joined by commas they would read as one.
bool ItemsNeedLines(const nlohmann::ordered_json& v) {
  if (!v.is_array()) return false;
  for (const auto& item : v) {
    if (item.is_string() && (absl::StrContains(item.get_ref<const std::string&>(), ", ") ||
                             absl::StrContains(item.get_ref<const std::string&>(), "; "))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string FormatDiagnosis(const Diagnosis& d) {
  std::string out;
  const std::string subject = d.namespace_name.empty()
                                  ? absl::StrCat(d.kind, " ", d.name)
                                  : absl::StrCat(d.kind, " ", d.namespace_name, "/", d.name);
  int causes = 0;
  for (const Finding& f : d.findings) causes += f.severity == Severity::kCause ? 1 : 0;
  absl::StrAppend(&out, subject, ": ",
                  causes == 0 ? "no DRA cause found"
                              : absl::StrCat(causes, causes == 1 ? " cause" : " causes",
                                             " found, most likely first"),
                  "\n");
  int n = 0;
  for (const Finding& f : d.findings) {
    std::vector<std::string> about;
    if (!f.pod_claim.empty()) about.push_back(absl::StrCat("pod claim ", f.pod_claim));
    if (!f.resource_claim.empty()) about.push_back(absl::StrCat("claim ", f.resource_claim));
    if (!f.profile.empty()) about.push_back(absl::StrCat("profile ", f.profile));
    absl::StrAppend(&out, "\n", ++n, ". ", f.code, " (", SeverityName(f.severity), ")",
                    about.empty() ? "" : absl::StrCat(" [", absl::StrJoin(about, ", "), "]"),
                    "\n   ", f.message, "\n");
    if (!f.remedy.empty()) absl::StrAppend(&out, "   Fix: ", f.remedy, "\n");
    for (const auto& [k, v] : f.evidence.items()) {
      if (ItemsNeedLines(v)) {
        absl::StrAppend(&out, "     ", k, ":\n");
        for (const auto& item : v) absl::StrAppend(&out, "       - ", EvidenceValue(item), "\n");
        continue;
      }
      absl::StrAppend(&out, "     ", k, ": ", EvidenceValue(v), "\n");
    }
  }
  if (d.node_offers) {
    const NodeOffers& o = *d.node_offers;
    std::vector<std::string> groups;
    for (const auto& [name, offered_by] : o.node_groups) {
      groups.push_back(absl::StrCat(name, " (", offered_by, ")"));
    }
    absl::StrAppend(
        &out, "\nWho offers the GPUs, per node (",
        o.both.count + o.dra.count + o.device_plugin.count, " nodes):\n",
        "   Both (device plugin and DRA): ", OfferedText(o.both), "\n",
        "   DRA: ", OfferedText(o.dra), "\n",
        "   DevicePlugin (same GPU product, not on DRA yet): ", OfferedText(o.device_plugin), "\n",
        "   node groups: ", groups.empty() ? "(none)" : absl::StrJoin(groups, ", "), "\n");
  }
  return out;
}

}  // namespace gpuprofile::explain
