// File: e2e/emulator/pod_validation.cc
#include "e2e/emulator/pod_validation.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/core/names.h"

namespace gpuprofile::e2e {
namespace {

using nlohmann::json;

const json* PodField(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}
std::string PodText(const json* f) { return f && f->is_string() ? f->get<std::string>() : ""; }
const json& PodList(const json& o, const char* key) {
  static const json kEmpty = json::array();
  const json* f = PodField(o, key);
  return f && f->is_array() ? *f : kEmpty;
}

// field.Invalid prints a core.PodResourceClaim with %#v; a set pointer prints as its address,
// which no client can predict, so a fixed one stands in for it.
std::string GoClaim(const json& claim) {
  auto pointer = [&](const char* key) -> std::string {
    return PodField(claim, key) ? "(*string)(0xc000000000)" : "(*string)(nil)";
  };
  return absl::StrCat("core.PodResourceClaim{Name:", json(PodText(PodField(claim, "name"))).dump(),
                      ", ResourceClaimName:", pointer("resourceClaimName"),
                      ", ResourceClaimTemplateName:", pointer("resourceClaimTemplateName"), "}");
}

StatusCause InvalidGo(const std::string& field, const std::string& value,
                      const std::string& detail) {
  return {"FieldValueInvalid", absl::StrCat("Invalid value: ", value, ": ", detail), field};
}

void DnsLabel(const std::string& value, const std::string& path, std::vector<StatusCause>& out) {
  for (const std::string& m : DnsLabelErrors(value)) out.push_back(FieldInvalid(path, value, m));
}

// validatePodResourceClaim.
void PodClaim(const json& claim, const std::string& p, std::set<std::string>& names,
              std::vector<StatusCause>& out) {
  const std::string name = PodText(PodField(claim, "name"));
  if (name.empty()) {
    out.push_back(FieldRequired(p + ".name"));
  } else if (names.count(name)) {
    out.push_back(FieldDuplicate(p + ".name", name));
  } else {
    DnsLabel(name, p + ".name", out);
    names.insert(name);
  }
  const json* claim_name = PodField(claim, "resourceClaimName");
  const json* template_name = PodField(claim, "resourceClaimTemplateName");
  if (claim_name && template_name) {
    out.push_back(InvalidGo(p, GoClaim(claim),
                            "at most one of `resourceClaimName` or `resourceClaimTemplateName` "
                            "may be specified"));
  }
  if (!claim_name && !template_name) {
    out.push_back(InvalidGo(p, GoClaim(claim),
                            "must specify one of: `resourceClaimName`, "
                            "`resourceClaimTemplateName`"));
  }
  // ValidateResourceClaimName and ValidateResourceClaimTemplateName: DNS subdomains.
  for (const auto& [key, value] : {std::pair{"resourceClaimName", claim_name},
                                   std::pair{"resourceClaimTemplateName", template_name}}) {
    if (!value) continue;
    const std::string text = PodText(value);
    for (const std::string& m : DnsSubdomainErrors(text)) {
      out.push_back(FieldInvalid(absl::StrCat(p, ".", key), text, m));
    }
  }
}

// validateResourceClaimNames.
void ContainerClaims(const json& claims, const std::string& path,
                     const std::set<std::string>& pod_claims, std::vector<StatusCause>& out) {
  std::set<std::string> keys;
  for (size_t i = 0; i < claims.size(); ++i) {
    const std::string p = absl::StrCat(path, "[", i, "]");
    const std::string name = PodText(PodField(claims[i], "name"));
    if (name.empty()) {
      out.push_back(FieldRequired(p));
      continue;
    }
    if (keys.count(name)) {
      // Every request of that claim is referenced already.
      out.push_back(FieldDuplicate(p, name));
    } else {
      std::string key = name;
      const std::string request = PodText(PodField(claims[i], "request"));
      if (!request.empty()) {
        DnsLabel(request, p + ".request", out);
        key += "/" + request;
      }
      if (keys.count(key)) {
        out.push_back(FieldDuplicate(p, key));
      } else if (request.empty()) {
        // The whole claim after some of its requests.
        for (const std::string& k : keys) {
          size_t slash = k.find('/');
          if (slash != std::string::npos && k.substr(0, slash) == name) {
            out.push_back(FieldDuplicate(p, name));
          }
        }
      }
      keys.insert(key);
    }
    if (!pod_claims.count(name)) {
      std::string detail = "must be one of the names in pod.spec.resourceClaims";
      if (pod_claims.empty()) {
        absl::StrAppend(&detail, " which is empty");
      } else {
        absl::StrAppend(&detail, ": ", absl::StrJoin(pod_claims, ", "));
      }
      out.push_back(
          {"FieldValueNotFound", absl::StrCat("Not found: ", json(name).dump(), ": ", detail), p});
    }
  }
}

}  // namespace

std::vector<StatusCause> ValidatePodResourceClaims(const json& pod) {
  std::vector<StatusCause> out;
  const json* spec = PodField(pod, "spec");
  if (!spec) return out;
  // gatherPodResourceClaimNames: every non-empty name (sorted, as sets.List prints them).
  std::set<std::string> pod_claims;
  for (const json& c : PodList(*spec, "resourceClaims")) {
    if (std::string n = PodText(PodField(c, "name")); !n.empty()) pod_claims.insert(n);
  }
  std::set<std::string> seen;
  const json& claims = PodList(*spec, "resourceClaims");
  for (size_t i = 0; i < claims.size(); ++i) {
    PodClaim(claims[i], absl::StrCat("spec.resourceClaims[", i, "]"), seen, out);
  }
  for (const char* kind : {"containers", "initContainers", "ephemeralContainers"}) {
    const json& containers = PodList(*spec, kind);
    for (size_t i = 0; i < containers.size(); ++i) {
      const json* resources = PodField(containers[i], "resources");
      if (!resources) continue;
      ContainerClaims(PodList(*resources, "claims"),
                      absl::StrCat("spec.", kind, "[", i, "].resources.claims"), pod_claims, out);
    }
  }
  return out;
}

}  // namespace gpuprofile::e2e
