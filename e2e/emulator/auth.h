// File: e2e/emulator/auth.h
// Authentication and authorization as kube-apiserver does them, for the subset the emulator
// serves: static bearer tokens (kube-apiserver's --token-file CSV), request attributes (verb,
// API group, resource, subresource, namespace, name; or a non-resource path) and an RBAC
// evaluator over Role, ClusterRole, RoleBinding and ClusterRoleBinding objects.
// Pure value types and functions; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/http_types.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;  // always includes system:authenticated
};

// Bearer token → user. Lines are `token,user,uid[,"group1,group2"]`; blank lines and lines
// starting with '#' are skipped. Errors name the line.
absl::StatusOr<std::map<std::string, UserInfo>> ParseTokenFile(const std::string& text);

// The token of an `Authorization: Bearer <token>` header; nullopt when absent or not Bearer.
std::optional<std::string> BearerToken(const HttpRequest& request);

// kube-apiserver's RequestInfo, reduced to what RBAC looks at.
struct RequestAttributes {
  bool resource_request = false;
  std::string verb;  // get, list, watch, create, update, patch, delete, deletecollection
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path;  // for non-resource requests
};
RequestAttributes AttributesFor(const HttpRequest& request);

// The RBAC objects, as stored (rbac.authorization.k8s.io/v1 shape).
using RbacObjectPtr = std::shared_ptr<const nlohmann::json>;
struct RbacObjects {
  std::vector<RbacObjectPtr> roles;
  std::vector<RbacObjectPtr> cluster_roles;
  std::vector<RbacObjectPtr> role_bindings;
  std::vector<RbacObjectPtr> cluster_role_bindings;
};

struct Decision {
  bool allowed = false;
  // Allowed: kube-apiserver's `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to
  // User "u"` (empty for system:masters and the public paths). Denied: why the evaluation was
  // incomplete (e.g. `RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`), empty when
  // every referenced role exists.
  std::string reason;
};

// system:masters is allowed everything. Other users are allowed what a rule of a role bound to
// them allows. Discovery and version paths are allowed to every authenticated user, as the
// bootstrap system:discovery and system:public-info-viewer roles do. ClusterRole aggregation is
// not evaluated (aggregated rules must be written into the ClusterRole).
Decision Authorize(const UserInfo& user, const RequestAttributes& attributes,
                   const RbacObjects& rbac);

// The 403 kube-apiserver sends, message included.
ApiError ForbiddenError(const UserInfo& user, const RequestAttributes& attributes,
                        const std::string& reason);
// The 401 kube-apiserver sends for a missing or unknown token.
ApiError UnauthorizedError();

}  // namespace gpuprofile::e2e
