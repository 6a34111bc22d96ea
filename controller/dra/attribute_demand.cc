// File: controller/dra/attribute_demand.cc
#include "controller/dra/attribute_demand.h"

namespace gpuprofile::dra {

AttributeDemand AttributeDemand::Nothing() {
  AttributeDemand demand;
  demand.everything_ = false;
  return demand;
}

void AttributeDemand::Want(absl::string_view domain, absl::string_view id) {
  ids_by_domain_[domain].insert(std::string(id));
}

void AttributeDemand::WantOfEveryDriver(absl::string_view id) {
  ids_of_every_driver_.insert(std::string(id));
}

bool AttributeDemand::Wants(absl::string_view driver, absl::string_view name) const {
  if (everything_) return true;
  absl::string_view domain = driver, id = name;
  if (const size_t slash = name.find('/'); slash != absl::string_view::npos) {
    domain = name.substr(0, slash);
    id = name.substr(slash + 1);
  }
  if (domain == driver && ids_of_every_driver_.contains(id)) return true;
  auto ids = ids_by_domain_.find(domain);
  return ids != ids_by_domain_.end() && ids->second.contains(id);
}

}  // namespace gpuprofile::dra
