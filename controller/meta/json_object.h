// File: controller/meta/json_object.h
// An ordered_json object made with room for the members an encoder may write.
//
// Why: ordered_json keeps an object's members in a std::vector of pair<const std::string, json>.
// Such a pair cannot be moved (its key is const), so each time the vector grows it copies every
// member already there, values and all: a GpuProfile's `status`, added after `metadata` and
// `spec`, copied both whole, and a status copied its conditions three times. On render's
// benchmark fleet that growth was most of the 30 M instructions spent adding members.
// Pure; thread-safe.
#pragma once

#include <cstddef>

#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// An empty object with room for `members` members (more may be added; they cost a growth).
inline nlohmann::ordered_json ObjectWithRoom(size_t members) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  object.get_ref<nlohmann::ordered_json::object_t&>().reserve(members);
  return object;
}

}  // namespace gpuprofile::meta
