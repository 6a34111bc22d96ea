// File: controller/kube/discovery.h
// What the server is and serves: its version (/version) and, per API group, the served versions
// and the server's preferred one (legacy discovery, /apis: one request for every group). Which
// version of a group a caller uses is the caller's choice where it differs from the server's
// (resource.k8s.io: dra::ChooseDraApiVersion over ServedVersions, in the reconciler).
//
// Results are cached until Refresh(); asking for a group the cache does not know refreshes once
// first (a CRD or an API group that appeared since). Errors: the REST client's, or NotFound
// naming the group and what to check.
// Thread-safety: thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/core/kube_version.h"
#include "controller/kube/rest_client.h"

namespace gpuprofile::kube {

struct ServerVersion {
  std::string git_version;  // "v1.34.1-gke.100"
  int major = 0;
  int minor = 0;  // "32+" is read as 32
  // The release as the project models it; nullopt outside the modelled range.
  std::optional<KubeVersion> kube;
};

struct ApiGroupInfo {
  std::string name;                   // "" for the core group
  std::vector<std::string> versions;  // as the server lists them (preferred first, usually)
  std::string preferred_version;      // the server's preference
};

// Parses a /version body.
absl::StatusOr<ServerVersion> ParseServerVersion(const nlohmann::json& body);

class Discovery {
 public:
  // `client` must outlive this.
  explicit Discovery(RestClient* client) : client_(client) {}

  absl::StatusOr<ServerVersion> GetServerVersion();
  absl::StatusOr<std::vector<ApiGroupInfo>> Groups();
  // The group's information; refreshes once when the group is unknown. NotFound if not served.
  absl::StatusOr<ApiGroupInfo> Group(const std::string& group);
  // The server's preferred version of `group` ("v1" for the core group ""). NotFound if the
  // group is not served.
  absl::StatusOr<std::string> PreferredVersion(const std::string& group);
  // The versions the server serves of `group`, as it lists them; empty when the group is not
  // served (after one refresh, as Group).
  absl::StatusOr<std::vector<std::string>> ServedVersions(const std::string& group);

  // Drops every cached answer.
  void Refresh();

 private:
  absl::StatusOr<std::vector<ApiGroupInfo>> FetchGroups();

  RestClient* const client_;
  absl::Mutex mu_;
  std::optional<ServerVersion> version_ ABSL_GUARDED_BY(mu_);
  std::optional<std::vector<ApiGroupInfo>> groups_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube
