// File: controller/runtime/lease_client.cc
#include "controller/runtime/lease_client.h"

namespace gpuprofile::runtime {

bool LeaseSpec::operator==(const LeaseSpec& other) const {
  return holder_identity == other.holder_identity &&
         lease_duration_seconds == other.lease_duration_seconds &&
         acquire_time == other.acquire_time && renew_time == other.renew_time &&
         lease_transitions == other.lease_transitions;
}

}  // namespace gpuprofile::runtime
