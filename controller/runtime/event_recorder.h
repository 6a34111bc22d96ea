// File: controller/runtime/event_recorder.h
// Records events.k8s.io/v1 Events about objects, aggregating repeats: an event with the same
// regarding object, reason and note as one recorded less than `series_window` ago (6 minutes by
// default, client-go's series window) is not created again; instead the first event's
// series.count is incremented and series.lastObservedTime set, and the sink is asked to update
// it. After the window passes without a repeat, the next occurrence creates a new Event.
//
// Events are named "<regarding name>.<hex nanoseconds>" (unique per recorder), live in the
// regarding object's namespace ("default" for cluster-scoped objects), and carry the
// reporting controller and instance. Notes longer than the API's 1 kB limit are truncated (on a
// UTF-8 boundary).
//
// Writing is behind EventSink (the API client implements it; tests use a fake). The recorder
// calls the sink under its lock, so the sink should be fast (e.g. hand the write to a queue).
// Thread-safety: thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/event.h"

namespace gpuprofile::runtime {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual absl::Status Create(const Event& event) = 0;
  // Writes the series (count and lastObservedTime) of an event created earlier.
  virtual absl::Status UpdateSeries(const Event& event) = 0;
};

struct EventRecorderOptions {
  std::string reporting_controller;  // e.g. "gpuprofile.io/gpu-profile-operator"
  std::string reporting_instance;    // e.g. the pod name
  Clock* clock = nullptr;            // required; must outlive the recorder
  EventSink* sink = nullptr;         // required; must outlive the recorder
  absl::Duration series_window = absl::Minutes(6);
};

class EventRecorder {
 public:
  static constexpr size_t kMaxNoteBytes = 1024;
  static constexpr size_t kMaxReasonBytes = 128;
  static constexpr size_t kMaxActionBytes = 128;

  explicit EventRecorder(EventRecorderOptions options);

  // Records one occurrence. InvalidArgument when the event would be rejected by the API
  // (missing regarding name, empty or over-long reason/action, no reporting controller);
  // otherwise the sink's status. A failed Create is not remembered, so the next occurrence
  // tries again.
  absl::Status Record(const ObjectReference& regarding, EventType type, const std::string& reason,
                      const std::string& action, const std::string& note);

  // Aggregation entries currently remembered (for tests and metrics).
  size_t CacheSize() const;

 private:
  // regarding (kind, namespace, name, uid), reason, note
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;

  void ExpireLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NextNameLocked(const std::string& base, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const EventRecorderOptions options_;
  mutable absl::Mutex mu_;
  std::map<Key, Event> recent_ ABSL_GUARDED_BY(mu_);
  int64_t last_name_nanos_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time next_expiry_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace gpuprofile::runtime
