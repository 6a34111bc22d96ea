// File: controller/dra/attribute_demand.h
// Which device attributes a reader of an inventory will look at, so that a one-shot decoder
// (`render`) may leave the others out of the devices it builds. A 40,000-device fleet publishes
// per-device values nobody selects on (UUIDs, PCI bus IDs); building them costs render about a
// sixth of its CPU.
//
// Only scalar attributes (int, bool, string, version) may be left out: a list-typed or unknown
// kind of attribute changes whether the scheduler can evaluate the device at all
// (dra_cel/device_value.h), so decoders keep those whatever the demand says.
//
// Names are matched as Kubernetes qualifies them: an unqualified attribute name is in the domain
// of the device's driver.
// Pure; thread-compatible (const methods thread-safe).
#pragma once

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {

class AttributeDemand {
 public:
  // Every attribute (the default: nothing may be left out).
  AttributeDemand() = default;
  // No attribute yet; Want* add some.
  static AttributeDemand Nothing();

  // The attribute `id` of `domain`, e.g. ("resource.kubernetes.io", "pcieRoot").
  void Want(absl::string_view domain, absl::string_view id);
  // The attribute `id` in the own domain of whichever driver publishes the device (a reader that
  // looks up "productName" of every driver).
  void WantOfEveryDriver(absl::string_view id);

  bool everything() const { return everything_; }
  // Whether the attribute published as `name` on a device of `driver` is wanted.
  bool Wants(absl::string_view driver, absl::string_view name) const;

 private:
  bool everything_ = true;
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> ids_by_domain_;
  absl::flat_hash_set<std::string> ids_of_every_driver_;
};

}  // namespace gpuprofile::dra
