// File: controller/meta/label_selector.h
// metav1.LabelSelector with Kubernetes' semantics: matchLabels and matchExpressions are AND-ed;
// an empty selector ({}) selects everything; operators In, NotIn, Exists, DoesNotExist (NotIn and
// DoesNotExist also select objects that lack the key). "Absent selects none" is the caller's
// rule (a std::optional<LabelSelector> that is nullopt), not this type's.
// Pure; thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpuprofile::meta {

struct LabelSelectorRequirement {
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Operator op = Operator::kIn;
  std::vector<std::string> values;
};

struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool Empty() const { return match_labels.empty() && match_expressions.empty(); }
  bool Matches(const std::map<std::string, std::string>& labels) const;
};

}  // namespace gpuprofile::meta
