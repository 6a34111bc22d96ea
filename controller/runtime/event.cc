// File: controller/runtime/event.cc
#include "controller/runtime/event.h"

namespace gpuprofile::runtime {

const char* EventTypeName(EventType type) {
  return type == EventType::kWarning ? "Warning" : "Normal";
}

std::string FormatMicroTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", time, absl::UTCTimeZone());
}

nlohmann::ordered_json EncodeEvent(const Event& event) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "events.k8s.io/v1";
  out["kind"] = "Event";
  out["metadata"] = {{"name", event.name}, {"namespace", event.namespace_name}};
  out["eventTime"] = FormatMicroTime(event.event_time);
  if (event.series.has_value()) {
    out["series"] = {{"count", event.series->count},
                     {"lastObservedTime", FormatMicroTime(event.series->last_observed_time)}};
  }
  out["reportingController"] = event.reporting_controller;
  out["reportingInstance"] = event.reporting_instance;
  out["action"] = event.action;
  out["reason"] = event.reason;
  nlohmann::ordered_json regarding;
  const ObjectReference& ref = event.regarding;
  if (!ref.api_version.empty()) regarding["apiVersion"] = ref.api_version;
  if (!ref.kind.empty()) regarding["kind"] = ref.kind;
  if (!ref.namespace_name.empty()) regarding["namespace"] = ref.namespace_name;
  if (!ref.name.empty()) regarding["name"] = ref.name;
  if (!ref.uid.empty()) regarding["uid"] = ref.uid;
  if (!ref.resource_version.empty()) regarding["resourceVersion"] = ref.resource_version;
  out["regarding"] = std::move(regarding);
  if (!event.note.empty()) out["note"] = event.note;
  out["type"] = EventTypeName(event.type);
  return out;
}

}  // namespace gpuprofile::runtime
