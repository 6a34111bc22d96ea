// File: controller/runtime/event.h
// events.k8s.io/v1 Event objects as the recorder builds them, and their JSON encoding for the
// API server. Only the fields the recorder sets are modelled.
// Pure value types and functions; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::runtime {

// core/v1 ObjectReference: the object an event is about.
struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string namespace_name;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
};

enum class EventType { kNormal, kWarning };

const char* EventTypeName(EventType type);

struct EventSeries {
  int32_t count = 0;  // occurrences so far, the first included
  absl::Time last_observed_time;
};

struct Event {
  std::string name;
  std::string namespace_name;
  absl::Time event_time;              // first occurrence
  std::optional<EventSeries> series;  // set once the event repeated
  std::string reporting_controller;
  std::string reporting_instance;
  std::string action;
  std::string reason;
  std::string note;
  EventType type = EventType::kNormal;
  ObjectReference regarding;
};

// RFC 3339 with exactly six fractional digits in UTC, as the API's MicroTime
// ("2023-11-14T22:13:20.000000Z").
std::string FormatMicroTime(absl::Time time);

// The Event as the API server expects it (apiVersion, kind, metadata, eventTime, series, ...).
nlohmann::ordered_json EncodeEvent(const Event& event);

}  // namespace gpuprofile::runtime
