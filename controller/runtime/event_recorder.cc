// File: controller/runtime/event_recorder.cc
#include "controller/runtime/event_recorder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpuprofile::runtime {
namespace {

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
std::string TruncateUtf8(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

EventRecorder::EventRecorder(EventRecorderOptions options) : options_(std::move(options)) {}

void EventRecorder::ExpireLocked(absl::Time now) {
  if (now < next_expiry_) return;
  for (auto it = recent_.begin(); it != recent_.end();) {
    if (now -
            it->second.series.value_or(EventSeries{0, it->second.event_time}).last_observed_time >=
        options_.series_window) {
      it = recent_.erase(it);
    } else {
      ++it;
    }
  }
  next_expiry_ = now + options_.series_window;
}

std::string EventRecorder::NextNameLocked(const std::string& base, absl::Time now) {
  const int64_t nanos = std::max(absl::ToUnixNanos(now), last_name_nanos_ + 1);
  last_name_nanos_ = nanos;
  return absl::StrFormat("%s.%x", base, nanos);
}

absl::Status EventRecorder::Record(const ObjectReference& regarding, EventType type,
                                   const std::string& reason, const std::string& action,
                                   const std::string& note) {
  if (regarding.name.empty()) {
    return absl::InvalidArgumentError("event: the regarding object has no name");
  }
  if (reason.empty() || reason.size() > kMaxReasonBytes) {
    return absl::InvalidArgumentError(absl::StrCat("event: reason must be 1 to ", kMaxReasonBytes,
                                                   " bytes, got \"", reason, "\""));
  }
  if (action.empty() || action.size() > kMaxActionBytes) {
    return absl::InvalidArgumentError(absl::StrCat("event: action must be 1 to ", kMaxActionBytes,
                                                   " bytes, got \"", action, "\""));
  }
  if (options_.reporting_controller.empty()) {
    return absl::InvalidArgumentError("event: the reporting controller is not set");
  }
  const std::string trimmed_note = TruncateUtf8(note, kMaxNoteBytes);
  Key key{regarding.kind, regarding.namespace_name, regarding.name, regarding.uid, reason,
          trimmed_note};

  absl::MutexLock lock(&mu_);
  const absl::Time now = options_.clock->Now();
  ExpireLocked(now);
  auto it = recent_.find(key);
  if (it != recent_.end()) {
    Event& event = it->second;
    const absl::Time last_seen =
        event.series.has_value() ? event.series->last_observed_time : event.event_time;
    if (now - last_seen < options_.series_window) {
      const int32_t count = event.series.has_value() ? event.series->count : 1;
      event.series = EventSeries{count + 1, now};
      return options_.sink->UpdateSeries(event);
    }
    recent_.erase(it);
  }

  Event event;
  event.name = NextNameLocked(regarding.name, now);
  event.namespace_name = regarding.namespace_name.empty() ? "default" : regarding.namespace_name;
  event.event_time = now;
  event.reporting_controller = options_.reporting_controller;
  event.reporting_instance = options_.reporting_instance;
  event.action = action;
  event.reason = reason;
  event.note = trimmed_note;
  event.type = type;
  event.regarding = regarding;
  absl::Status status = options_.sink->Create(event);
  if (status.ok()) recent_.emplace(std::move(key), std::move(event));
  return status;
}

size_t EventRecorder::CacheSize() const {
  absl::MutexLock lock(&mu_);
  return recent_.size();
}

}  // namespace gpuprofile::runtime
