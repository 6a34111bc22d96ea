// File: controller/kube/event_rest_sink.h
// runtime::EventSink over the REST client: writes events.k8s.io/v1 Events to the API server.
//   Create        POST /apis/events.k8s.io/v1/namespaces/<event namespace>/events with
//                 runtime::EncodeEvent (a repeat may already carry its series);
//   UpdateSeries  merge patch {"series": {"count", "lastObservedTime"}} of that Event; when the
//                 Event is gone (deleted, or expired by the server's event TTL) it is created
//                 again with its series, as client-go's event broadcaster does.
// Errors are the REST client's (typed API errors, see api_error.h).
//
// Each call is one synchronous request: EventRecorder calls its sink under its lock, so put a
// runtime::AsyncEventSink in front of this sink in the operator.
//
// Also DecodeEvent, the inverse of runtime::EncodeEvent, for reading Events back.
// Thread-safety: thread-safe.
#pragma once

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/event.h"
#include "controller/runtime/event_recorder.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

class RestEventSink final : public runtime::EventSink {
 public:
  // `client` must outlive this object. `options.field_manager` names the writer, if set.
  explicit RestEventSink(RestClient* client, WriteOptions options = {})
      : client_(client), options_(std::move(options)) {}

  absl::Status Create(const runtime::Event& event) override;
  absl::Status UpdateSeries(const runtime::Event& event) override;

 private:
  RestClient* const client_;
  const WriteOptions options_;
};

// The events.k8s.io/v1 Event collection of `namespace_name`.
ResourcePath EventsPath(const std::string& namespace_name);

// Decodes an events.k8s.io/v1 Event into the fields runtime::Event models. DataLoss naming the
// field when one has the wrong type or a time does not parse (MicroTime, any RFC 3339 precision).
absl::StatusOr<runtime::Event> DecodeEvent(const nlohmann::json& object);

}  // namespace gpuprofile::kube
