// File: controller/reconciler/change_summary.cc
#include "controller/reconciler/change_summary.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::reconciler {
namespace {

// "3 ResourceClaimTemplates (in batch, ml-train, team-a)"; "" for no namespaces.
std::string InNamespaces(const char* kind, const std::vector<std::string>& namespaces) {
  if (namespaces.empty()) return "";
  constexpr size_t kMaxNamed = 5;
  std::vector<std::string> named(namespaces.begin(),
                                 namespaces.begin() + std::min(namespaces.size(), kMaxNamed));
  std::string list = absl::StrJoin(named, ", ");
  if (namespaces.size() > kMaxNamed) {
    absl::StrAppend(&list, " and ", namespaces.size() - kMaxNamed, " more");
  }
  return absl::StrCat(namespaces.size(), " ", kind, namespaces.size() == 1 ? "" : "s", " (in ",
                      list, ")");
}

}  // namespace

std::string SummariseChanges(const std::string& verb, const std::vector<ObjectRef>& what) {
  if (what.empty()) return "";
  std::vector<std::string> parts;
  std::vector<std::string> template_namespaces;
  std::vector<std::string> quota_namespaces;
  for (const ObjectRef& object : what) {
    switch (object.kind) {
      case ObjectKind::kDeviceClass:
        parts.push_back(object.Describe());
        break;
      case ObjectKind::kClaimTemplate:
        template_namespaces.push_back(object.namespace_name);
        break;
      case ObjectKind::kResourceQuota:
        quota_namespaces.push_back(object.namespace_name);
        break;
    }
  }
  for (std::string part : {InNamespaces("ResourceClaimTemplate", template_namespaces),
                           InNamespaces("ResourceQuota", quota_namespaces)}) {
    if (!part.empty()) parts.push_back(std::move(part));
  }
  return absl::StrCat(verb, " ", absl::StrJoin(parts, " and "));
}

}  // namespace gpuprofile::reconciler
