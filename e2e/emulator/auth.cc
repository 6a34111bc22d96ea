// File: e2e/emulator/auth.cc
#include "e2e/emulator/auth.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "e2e/emulator/object_store.h"
#include "e2e/emulator/server_util.h"

namespace gpuprofile::e2e {
namespace {

// One CSV record (RFC 4180 quoting: "a,b" and "" for a quote).
std::optional<std::vector<std::string>> SplitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

bool Contains(const nlohmann::json& list, const std::string& value) {
  if (!list.is_array()) return false;
  for (const nlohmann::json& v : list) {
    if (v.is_string() && v.get<std::string>() == value) return true;
  }
  return false;
}

std::string AuthString(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool ResourceMatches(const nlohmann::json& rule, const RequestAttributes& a) {
  const nlohmann::json& resources = rule.value("resources", nlohmann::json::array());
  if (!resources.is_array()) return false;
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const nlohmann::json& r : resources) {
    if (!r.is_string()) continue;
    const std::string& s = r.get_ref<const std::string&>();
    if (s == "*" || s == combined) return true;
    if (!a.subresource.empty() && s == "*/" + a.subresource) return true;
  }
  return false;
}

bool NonResourceMatches(const nlohmann::json& rule, const std::string& path) {
  const nlohmann::json& urls = rule.value("nonResourceURLs", nlohmann::json::array());
  if (!urls.is_array()) return false;
  for (const nlohmann::json& u : urls) {
    if (!u.is_string()) continue;
    const std::string& s = u.get_ref<const std::string&>();
    if (s == "*" || s == path) return true;
    if (!s.empty() && s.back() == '*' && absl::StartsWith(path, s.substr(0, s.size() - 1))) {
      return true;
    }
  }
  return false;
}

bool RuleAllows(const nlohmann::json& rule, const RequestAttributes& a) {
  const nlohmann::json verbs = rule.value("verbs", nlohmann::json::array());
  if (!Contains(verbs, "*") && !Contains(verbs, a.verb)) return false;
  if (!a.resource_request) return NonResourceMatches(rule, a.path);
  const nlohmann::json groups = rule.value("apiGroups", nlohmann::json::array());
  if (!Contains(groups, "*") && !Contains(groups, a.group)) return false;
  if (!ResourceMatches(rule, a)) return false;
  const nlohmann::json names = rule.value("resourceNames", nlohmann::json::array());
  if (!names.is_array() || names.empty()) return true;
  return !a.name.empty() && Contains(names, a.name);
}

bool SubjectMatches(const nlohmann::json& subject, const UserInfo& user,
                    const std::string& binding_ns) {
  std::string kind = AuthString(subject, "kind");
  std::string name = AuthString(subject, "name");
  if (kind == "User") return name == user.name;
  if (kind == "Group")
    return std::find(user.groups.begin(), user.groups.end(), name) != user.groups.end();
  if (kind == "ServiceAccount") {
    std::string ns = AuthString(subject, "namespace");
    if (ns.empty()) ns = binding_ns;
    return user.name == absl::StrCat("system:serviceaccount:", ns, ":", name);
  }
  return false;
}

// The first subject of `binding` that names `user`; null when none does.
const nlohmann::json* BindingSubjectFor(const nlohmann::json& binding, const UserInfo& user,
                                        const std::string& ns) {
  auto it = binding.find("subjects");
  if (it == binding.end() || !it->is_array()) return nullptr;
  for (const nlohmann::json& s : *it) {
    if (s.is_object() && SubjectMatches(s, user, ns)) return &s;
  }
  return nullptr;
}

// kube-apiserver's description of a subject in an RBAC reason: `User "alice"`,
// `ServiceAccount "name/namespace"`.
std::string DescribeSubject(const nlohmann::json& subject, const std::string& binding_ns) {
  const std::string kind = AuthString(subject, "kind");
  const std::string name = AuthString(subject, "name");
  if (kind == "ServiceAccount") {
    std::string ns = AuthString(subject, "namespace");
    return absl::StrCat(kind, " \"", name, "/", ns.empty() ? binding_ns : ns, "\"");
  }
  return absl::StrCat(kind, " \"", name, "\"");
}

const nlohmann::json* FindRole(const std::vector<RbacObjectPtr>& roles, const std::string& ns,
                               const std::string& name) {
  for (const RbacObjectPtr& r : roles) {
    if (NameOf(*r) == name && NamespaceOf(*r) == ns) return r.get();
  }
  return nullptr;
}

bool RoleAllows(const nlohmann::json& role, const RequestAttributes& a) {
  const nlohmann::json rules = role.value("rules", nlohmann::json::array());
  if (!rules.is_array()) return false;
  for (const nlohmann::json& rule : rules) {
    if (rule.is_object() && RuleAllows(rule, a)) return true;
  }
  return false;
}

// Paths the bootstrap roles system:discovery and system:public-info-viewer open to every
// authenticated user.
bool PublicPath(const std::string& path) {
  static const char* const kExact[] = {"/api",        "/apis",    "/version", "/openapi/v2",
                                       "/openapi/v3", "/healthz", "/livez",   "/readyz"};
  for (const char* p : kExact) {
    if (path == p || path == std::string(p) + "/") return true;
  }
  return absl::StartsWith(path, "/api/") || absl::StartsWith(path, "/apis/") ||
         absl::StartsWith(path, "/openapi/v3/") || absl::StartsWith(path, "/healthz/") ||
         absl::StartsWith(path, "/livez/") || absl::StartsWith(path, "/readyz/");
}

}  // namespace

absl::StatusOr<std::map<std::string, UserInfo>> ParseTokenFile(const std::string& text) {
  std::map<std::string, UserInfo> tokens;
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    std::string line(absl::StripAsciiWhitespace(raw));
    if (line.empty() || line[0] == '#') continue;
    std::optional<std::vector<std::string>> fields = SplitCsv(line);
    if (!fields || fields->size() < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "token file line ", number, ": expected token,user,uid[,\"group1,group2\"]"));
    }
    const std::string& token = (*fields)[0];
    if (token.empty() || (*fields)[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", number, ": empty token or user name"));
    }
    if (tokens.count(token)) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", number, ": duplicate token"));
    }
    UserInfo user{(*fields)[1], (*fields)[2], {}};
    if (fields->size() >= 4) {
      for (absl::string_view g : absl::StrSplit((*fields)[3], ',', absl::SkipEmpty())) {
        user.groups.emplace_back(absl::StripAsciiWhitespace(g));
      }
    }
    user.groups.push_back("system:authenticated");
    tokens.emplace(token, std::move(user));
  }
  return tokens;
}

std::optional<std::string> BearerToken(const HttpRequest& request) {
  std::string header = request.Header("authorization");
  constexpr absl::string_view kPrefix = "bearer ";
  if (header.size() <= kPrefix.size() ||
      absl::AsciiStrToLower(header.substr(0, kPrefix.size())) != kPrefix) {
    return std::nullopt;
  }
  std::string token(absl::StripAsciiWhitespace(header.substr(kPrefix.size())));
  if (token.empty()) return std::nullopt;
  return token;
}

RequestAttributes AttributesFor(const HttpRequest& request) {
  RequestAttributes a;
  a.path = request.path;
  std::string method = absl::AsciiStrToLower(request.method);
  a.verb = method == "head" ? "get" : method;
  std::vector<std::string> parts = absl::StrSplit(request.path, '/', absl::SkipEmpty());
  size_t skip = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    skip = 2;
    a.version = parts[1];
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    skip = 3;
    a.group = parts[1];
    a.version = parts[2];
  }
  if (skip == 0 || parts.size() <= skip) {
    a.group.clear();
    a.version.clear();
    return a;  // non-resource: the verb is the lower-case method
  }
  a.resource_request = true;
  std::vector<std::string> rest(parts.begin() + static_cast<long>(skip), parts.end());
  if (rest[0] == "namespaces" && rest.size() >= 2) {
    a.ns = rest[1];
    if (rest.size() >= 3 && rest[2] != "status" && rest[2] != "finalize") {
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  a.resource = rest[0];
  if (rest.size() >= 2) a.name = rest[1];
  if (rest.size() >= 3) a.subresource = rest[2];
  bool named = !a.name.empty();
  if (request.method == "GET" || request.method == "HEAD") {
    if (named) {
      a.verb = "get";
    } else {
      std::optional<bool> watch = ParseBool(request.Query("watch"));
      a.verb = watch.value_or(false) ? "watch" : "list";
      // A list or watch of one object by field selector is authorized as that object.
      std::string fs = request.Query("fieldSelector");
      if (absl::StartsWith(fs, "metadata.name=") && fs.find(',') == std::string::npos) {
        a.name = fs.substr(std::string("metadata.name=").size());
      }
    }
  } else if (request.method == "POST") {
    a.verb = "create";
  } else if (request.method == "PUT") {
    a.verb = "update";
  } else if (request.method == "PATCH") {
    a.verb = "patch";
  } else if (request.method == "DELETE") {
    a.verb = named ? "delete" : "deletecollection";
  }
  return a;
}

Decision Authorize(const UserInfo& user, const RequestAttributes& a, const RbacObjects& rbac) {
  if (std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end()) {
    return {true, ""};
  }
  if (!a.resource_request && a.verb == "get" && PublicPath(a.path)) return {true, ""};
  std::vector<std::string> errors;
  for (const RbacObjectPtr& ptr : rbac.cluster_role_bindings) {
    const nlohmann::json& binding = *ptr;
    const nlohmann::json* subject = BindingSubjectFor(binding, user, "");
    if (subject == nullptr) continue;
    std::string role_name = AuthString(binding.value("roleRef", nlohmann::json::object()), "name");
    const nlohmann::json* role = FindRole(rbac.cluster_roles, "", role_name);
    if (!role) {
      errors.push_back(
          absl::StrCat("clusterrole.rbac.authorization.k8s.io \"", role_name, "\" not found"));
      continue;
    }
    if (RoleAllows(*role, a)) {
      return {true, absl::StrCat("RBAC: allowed by ClusterRoleBinding \"", NameOf(binding),
                                 "\" of ClusterRole \"", role_name, "\" to ",
                                 DescribeSubject(*subject, ""))};
    }
  }
  if (!a.ns.empty()) {
    for (const RbacObjectPtr& ptr : rbac.role_bindings) {
      const nlohmann::json& binding = *ptr;
      if (NamespaceOf(binding) != a.ns) continue;
      const nlohmann::json* subject = BindingSubjectFor(binding, user, a.ns);
      if (subject == nullptr) continue;
      nlohmann::json ref = binding.value("roleRef", nlohmann::json::object());
      std::string kind = AuthString(ref, "kind");
      std::string role_name = AuthString(ref, "name");
      const nlohmann::json* role = kind == "ClusterRole"
                                       ? FindRole(rbac.cluster_roles, "", role_name)
                                       : FindRole(rbac.roles, a.ns, role_name);
      if (!role) {
        errors.push_back(absl::StrCat(kind == "ClusterRole" ? "clusterrole" : "role",
                                      ".rbac.authorization.k8s.io \"", role_name, "\" not found"));
        continue;
      }
      if (RoleAllows(*role, a)) {
        return {true, absl::StrCat("RBAC: allowed by RoleBinding \"", NameOf(binding), "/", a.ns,
                                   "\" of ", kind, " \"", role_name, "\" to ",
                                   DescribeSubject(*subject, a.ns))};
      }
    }
  }
  Decision denied;
  if (errors.size() == 1) denied.reason = "RBAC: " + errors[0];
  if (errors.size() > 1) denied.reason = absl::StrCat("RBAC: [", absl::StrJoin(errors, ", "), "]");
  return denied;
}

ApiError ForbiddenError(const UserInfo& user, const RequestAttributes& a,
                        const std::string& reason) {
  std::string detail;
  if (!a.resource_request) {
    detail = absl::StrCat("User \"", user.name, "\" cannot ", a.verb, " path \"", a.path, "\"");
  } else {
    std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    detail = absl::StrCat(
        "User \"", user.name, "\" cannot ", a.verb, " resource \"", resource, "\" in API group \"",
        a.group, "\"",
        a.ns.empty() ? " at the cluster scope" : absl::StrCat(" in the namespace \"", a.ns, "\""));
  }
  if (!reason.empty()) absl::StrAppend(&detail, ": ", reason);
  ApiError e;
  e.code = 403;
  e.reason = "Forbidden";
  if (!a.resource_request) {
    e.message = "forbidden: " + detail;
    return e;
  }
  GroupResource gr{a.group, a.resource};
  e.message = a.name.empty()
                  ? absl::StrCat(gr.ToString(), " is forbidden: ", detail)
                  : absl::StrCat(gr.ToString(), " \"", a.name, "\" is forbidden: ", detail);
  e.name = a.name;
  e.group = a.group;
  e.kind = a.resource;
  return e;
}

ApiError UnauthorizedError() {
  ApiError e;
  e.code = 401;
  e.reason = "Unauthorized";
  e.message = "Unauthorized";
  return e;
}

}  // namespace gpuprofile::e2e
