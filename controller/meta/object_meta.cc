// File: controller/meta/object_meta.cc
#include "controller/meta/object_meta.h"

namespace gpuprofile::meta {

bool OwnerReference::operator==(const OwnerReference& other) const {
  return api_version == other.api_version && kind == other.kind && name == other.name &&
         uid == other.uid && controller == other.controller &&
         block_owner_deletion == other.block_owner_deletion;
}

const OwnerReference* ObjectMeta::ControllerOwner() const {
  for (const OwnerReference& ref : owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

}  // namespace gpuprofile::meta
