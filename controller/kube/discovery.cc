// File: controller/kube/discovery.cc
#include "controller/kube/discovery.h"


#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "controller/core/status_macros.h"

namespace gpuprofile::kube {
namespace {

std::string DiscoveryStringAt(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "32+" -> 32; false when no leading digits.
bool LeadingInt(const std::string& text, int* out) {
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  return n > 0 && absl::SimpleAtoi(text.substr(0, n), out);
}

}  // namespace

absl::StatusOr<ServerVersion> ParseServerVersion(const nlohmann::json& body) {
  if (!body.is_object()) return absl::DataLossError("/version: the answer is not an object");
  ServerVersion v;
  v.git_version = DiscoveryStringAt(body, "gitVersion");
  if (!LeadingInt(DiscoveryStringAt(body, "major"), &v.major) ||
      !LeadingInt(DiscoveryStringAt(body, "minor"), &v.minor)) {
    return absl::DataLossError(absl::StrCat("/version: major \"", DiscoveryStringAt(body, "major"),
                                            "\" and minor \"", DiscoveryStringAt(body, "minor"),
                                            "\" are not numbers"));
  }
  // The patch comes from gitVersion ("v1.32.4-eks-abc" -> 4) when it parses.
  std::string text = absl::StrCat(v.major, ".", v.minor);
  const std::string& g = v.git_version;
  const std::string prefix = absl::StrCat("v", text, ".");
  int patch = 0;
  if (g.rfind(prefix, 0) == 0 && LeadingInt(g.substr(prefix.size()), &patch)) {
    absl::StrAppend(&text, ".", patch);
  }
  absl::StatusOr<KubeVersion> kube = KubeVersion::Parse(text);
  if (kube.ok()) v.kube = *kube;
  return v;
}

absl::StatusOr<ServerVersion> Discovery::GetServerVersion() {
  {
    absl::MutexLock lock(&mu_);
    if (version_) return *version_;
  }
  ASSIGN_OR_RETURN(nlohmann::json body, client_->GetPath("/version"));
  ASSIGN_OR_RETURN(ServerVersion v, ParseServerVersion(body));
  absl::MutexLock lock(&mu_);
  version_ = v;
  return v;
}

absl::StatusOr<std::vector<ApiGroupInfo>> Discovery::FetchGroups() {
  ASSIGN_OR_RETURN(nlohmann::json body, client_->GetPath("/apis"));
  std::vector<ApiGroupInfo> groups;
  groups.push_back({"", {"v1"}, "v1"});  // the core group is served under /api, always v1
  auto list = body.find("groups");
  if (!body.is_object() || list == body.end() || !list->is_array()) {
    return absl::DataLossError("/apis: the answer is not an APIGroupList");
  }
  for (const nlohmann::json& g : *list) {
    if (!g.is_object()) continue;
    ApiGroupInfo info;
    info.name = DiscoveryStringAt(g, "name");
    if (auto versions = g.find("versions"); versions != g.end() && versions->is_array()) {
      for (const nlohmann::json& v : *versions) {
        if (v.is_object() && !DiscoveryStringAt(v, "version").empty()) {
          info.versions.push_back(DiscoveryStringAt(v, "version"));
        }
      }
    }
    if (auto pref = g.find("preferredVersion"); pref != g.end() && pref->is_object()) {
      info.preferred_version = DiscoveryStringAt(*pref, "version");
    }
    if (info.preferred_version.empty() && !info.versions.empty()) {
      info.preferred_version = info.versions.front();
    }
    groups.push_back(std::move(info));
  }
  return groups;
}

absl::StatusOr<std::vector<ApiGroupInfo>> Discovery::Groups() {
  {
    absl::MutexLock lock(&mu_);
    if (groups_) return *groups_;
  }
  ASSIGN_OR_RETURN(std::vector<ApiGroupInfo> groups, FetchGroups());
  absl::MutexLock lock(&mu_);
  groups_ = groups;
  return groups;
}

absl::StatusOr<ApiGroupInfo> Discovery::Group(const std::string& group) {
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      absl::MutexLock lock(&mu_);
      groups_.reset();  // a group that appeared since the last look (CRD installed)
    }
    ASSIGN_OR_RETURN(std::vector<ApiGroupInfo> groups, Groups());
    for (ApiGroupInfo& g : groups) {
      if (g.name == group) return std::move(g);
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "the API server does not serve the API group \"", group,
      "\"; install its CustomResourceDefinitions or enable the API (see --runtime-config)"));
}

absl::StatusOr<std::string> Discovery::PreferredVersion(const std::string& group) {
  ASSIGN_OR_RETURN(ApiGroupInfo info, Group(group));
  return info.preferred_version;
}

absl::StatusOr<std::vector<std::string>> Discovery::ServedVersions(const std::string& group) {
  absl::StatusOr<ApiGroupInfo> info = Group(group);
  if (absl::IsNotFound(info.status())) return std::vector<std::string>{};
  if (!info.ok()) return info.status();
  return std::move(info->versions);
}

void Discovery::Refresh() {
  absl::MutexLock lock(&mu_);
  version_.reset();
  groups_.reset();
}

}  // namespace gpuprofile::kube
