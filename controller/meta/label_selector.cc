// File: controller/meta/label_selector.cc
// metav1.LabelSelector matching as labels.Selector from LabelSelectorAsSelector evaluates it.
#include "controller/meta/label_selector.h"

#include <algorithm>

namespace gpuprofile::meta {
namespace {

bool Contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool RequirementMatches(const LabelSelectorRequirement& requirement,
                        const std::map<std::string, std::string>& labels) {
  auto it = labels.find(requirement.key);
  const bool has_key = it != labels.end();
  switch (requirement.op) {
    case LabelSelectorRequirement::Operator::kIn:
      return has_key && Contains(requirement.values, it->second);
    case LabelSelectorRequirement::Operator::kNotIn:
      return !has_key || !Contains(requirement.values, it->second);
    case LabelSelectorRequirement::Operator::kExists:
      return has_key;
    case LabelSelectorRequirement::Operator::kDoesNotExist:
      return !has_key;
  }
  return false;
}

}  // namespace

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const LabelSelectorRequirement& requirement : match_expressions) {
    if (!RequirementMatches(requirement, labels)) return false;
  }
  return true;
}

}  // namespace gpuprofile::meta
