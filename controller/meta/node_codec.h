// File: controller/meta/node_codec.h
// Decodes a core/v1 Node into NodeGpus. Nodes are not the operator's: everything it does not
// read is ignored, and a GPU resource whose quantity is not a whole number of devices is an
// error naming the node and the field (status.allocatable[nvidia.com/gpu]).
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/meta/node.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

absl::StatusOr<NodeGpus> DecodeNodeGpus(const nlohmann::json& object);

}  // namespace gpuprofile::meta
