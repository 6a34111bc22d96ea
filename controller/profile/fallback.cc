// File: controller/profile/fallback.cc
#include "controller/profile/fallback.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::profile {
namespace {

class Resolver {
 public:
  Resolver(const std::map<std::string, std::vector<std::string>>& fallbacks,
           const std::function<std::string(const std::string&)>& usable)
      : fallbacks_(fallbacks), usable_(usable) {}

  FallbackChain Run(const std::string& root) {
    path_.push_back(root);
    out_.profiles.push_back(root);
    Visit(root, "spec.fallback");
    if (out_.problems.empty() && out_.profiles.size() > static_cast<size_t>(kMaxFirstAvailable)) {
      out_.problems.push_back(absl::StrCat(
          "spec.fallback: the chain ", absl::StrJoin(out_.profiles, " -> "), " has ",
          out_.profiles.size(), " profiles; a firstAvailable request holds at most ",
          kMaxFirstAvailable));
    }
    if (!out_.problems.empty()) out_.profiles.clear();
    return std::move(out_);
  }

 private:
  // `field` names where the chain entered `name` from the root's point of view.
  void Visit(const std::string& name, const std::string& field) {
    auto it = fallbacks_.find(name);
    if (it == fallbacks_.end()) return;
    for (size_t i = 0; i < it->second.size(); ++i) {
      const std::string& next = it->second[i];
      const std::string where =
          path_.size() == 1 ? absl::StrCat("spec.fallback[", i, "]") : field;
      if (std::find(path_.begin(), path_.end(), next) != path_.end()) {
        std::vector<std::string> cycle(std::find(path_.begin(), path_.end(), next), path_.end());
        cycle.push_back(next);
        out_.problems.push_back(absl::StrCat(where, ": the fallbacks form a cycle (",
                                             absl::StrJoin(cycle, " -> "), ")"));
        continue;
      }
      if (std::find(out_.profiles.begin(), out_.profiles.end(), next) != out_.profiles.end()) {
        continue;  // reached twice without a cycle (a -> b, a -> c -> b): tried once, first
      }
      if (fallbacks_.count(next) == 0) {
        out_.problems.push_back(
            absl::StrCat(where, ": GpuProfile ", next, " does not exist",
                         path_.size() == 1 ? "" : absl::StrCat(" (named by ", name, ")")));
        continue;
      }
      if (std::string why = usable_(next); !why.empty()) {
        out_.problems.push_back(absl::StrCat(where, ": GpuProfile ", next,
                                             " cannot be a fallback: ", why));
        continue;
      }
      out_.profiles.push_back(next);
      path_.push_back(next);
      Visit(next, where);
      path_.pop_back();
    }
  }

  const std::map<std::string, std::vector<std::string>>& fallbacks_;
  const std::function<std::string(const std::string&)>& usable_;
  std::vector<std::string> path_;  // the current chain from the root
  FallbackChain out_;
};

}  // namespace

FallbackChain ResolveFallback(
    const std::string& profile, const std::map<std::string, std::vector<std::string>>& fallbacks,
    const std::function<std::string(const std::string&)>& usable) {
  return Resolver(fallbacks, usable).Run(profile);
}

}  // namespace gpuprofile::profile
