// File: controller/kube/event_rest_sink.cc
#include "controller/kube/event_rest_sink.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/kube/api_error.h"
#include "controller/kube/lease_rest_client.h"

namespace gpuprofile::kube {
namespace {

absl::Status EventFieldError(const nlohmann::json& object, absl::string_view field,
                        absl::string_view problem) {
  std::string who = "Event";
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    absl::StrAppend(&who, " ", m->value("namespace", std::string()), "/",
                    m->value("name", std::string()));
  }
  return absl::DataLossError(absl::StrCat(who, ": ", field, " ", problem));
}

// Reads `object[key]` as a string into `out` (absent or null: unchanged).
absl::Status ReadString(const nlohmann::json& root, const nlohmann::json& object, const char* key,
                        absl::string_view field, std::string* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) return EventFieldError(root, field, "is not a string");
  *out = it->get<std::string>();
  return absl::OkStatus();
}

absl::Status ReadTime(const nlohmann::json& root, const nlohmann::json& object, const char* key,
                      absl::string_view field, absl::Time* out) {
  std::string text;
  if (absl::Status s = ReadString(root, object, key, field, &text); !s.ok()) return s;
  if (text.empty()) return absl::OkStatus();
  absl::StatusOr<absl::Time> time = ParseMicroTime(text);
  if (!time.ok()) return EventFieldError(root, field, time.status().message());
  *out = *time;
  return absl::OkStatus();
}

}  // namespace

ResourcePath EventsPath(const std::string& namespace_name) {
  return ResourcePath{"events.k8s.io", "v1", "events", namespace_name, "", ""};
}

absl::Status RestEventSink::Create(const runtime::Event& event) {
  return client_->Create(EventsPath(event.namespace_name), runtime::EncodeEvent(event), options_)
      .status();
}

absl::Status RestEventSink::UpdateSeries(const runtime::Event& event) {
  if (!event.series.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("event ", event.namespace_name, "/", event.name,
                                                   ": a series update needs a series"));
  }
  const nlohmann::json patch = {
      {"series",
       {{"count", event.series->count},
        {"lastObservedTime", runtime::FormatMicroTime(event.series->last_observed_time)}}}};
  absl::Status status = client_
                            ->Patch(EventsPath(event.namespace_name).WithName(event.name),
                                    PatchType::kMerge, patch, options_)
                            .status();
  if (apierrors::IsNotFound(status)) return Create(event);
  return status;
}

absl::StatusOr<runtime::Event> DecodeEvent(const nlohmann::json& object) {
  if (!object.is_object()) return absl::DataLossError("Event: the object is not a JSON object");
  runtime::Event event;
  const nlohmann::json empty = nlohmann::json::object();
  auto object_at = [&](const char* key) -> absl::StatusOr<const nlohmann::json*> {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return &empty;
    if (!it->is_object()) return EventFieldError(object, key, "is not an object");
    return &*it;
  };
  absl::StatusOr<const nlohmann::json*> metadata = object_at("metadata");
  if (!metadata.ok()) return metadata.status();
  absl::StatusOr<const nlohmann::json*> regarding = object_at("regarding");
  if (!regarding.ok()) return regarding.status();
  absl::StatusOr<const nlohmann::json*> series = object_at("series");
  if (!series.ok()) return series.status();

  std::string type;
  runtime::ObjectReference& ref = event.regarding;
  for (absl::Status s : {
           ReadString(object, **metadata, "name", "metadata.name", &event.name),
           ReadString(object, **metadata, "namespace", "metadata.namespace", &event.namespace_name),
           ReadTime(object, object, "eventTime", "eventTime", &event.event_time),
           ReadString(object, object, "reportingController", "reportingController",
                      &event.reporting_controller),
           ReadString(object, object, "reportingInstance", "reportingInstance",
                      &event.reporting_instance),
           ReadString(object, object, "action", "action", &event.action),
           ReadString(object, object, "reason", "reason", &event.reason),
           ReadString(object, object, "note", "note", &event.note),
           ReadString(object, object, "type", "type", &type),
           ReadString(object, **regarding, "apiVersion", "regarding.apiVersion", &ref.api_version),
           ReadString(object, **regarding, "kind", "regarding.kind", &ref.kind),
           ReadString(object, **regarding, "namespace", "regarding.namespace", &ref.namespace_name),
           ReadString(object, **regarding, "name", "regarding.name", &ref.name),
           ReadString(object, **regarding, "uid", "regarding.uid", &ref.uid),
           ReadString(object, **regarding, "resourceVersion", "regarding.resourceVersion",
                      &ref.resource_version),
       }) {
    if (!s.ok()) return s;
  }
  if (type == "Warning") {
    event.type = runtime::EventType::kWarning;
  } else if (type.empty() || type == "Normal") {
    event.type = runtime::EventType::kNormal;
  } else {
    return EventFieldError(object, "type",
                      absl::StrCat("is neither Normal nor Warning: \"", type, "\""));
  }
  if (*series != &empty) {
    runtime::EventSeries s;
    auto count = (*series)->find("count");
    if (count != (*series)->end() && !count->is_null()) {
      if (!count->is_number_integer())
        return EventFieldError(object, "series.count", "is not an integer");
      s.count = count->get<int32_t>();
    }
    if (absl::Status st = ReadTime(object, **series, "lastObservedTime", "series.lastObservedTime",
                                   &s.last_observed_time);
        !st.ok()) {
      return st;
    }
    event.series = s;
  }
  return event;
}

}  // namespace gpuprofile::kube
