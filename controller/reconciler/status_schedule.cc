// File: controller/reconciler/status_schedule.cc
#include "controller/reconciler/status_schedule.h"

#include <algorithm>

#include "controller/runtime/clock.h"

namespace gpuprofile::reconciler {

StatusSchedule::StatusSchedule(absl::Duration interval, absl::Duration tick)
    : interval_(std::max(interval, absl::ZeroDuration())),
      tick_(std::clamp(tick, absl::ZeroDuration(), interval_)) {}

absl::Time StatusSchedule::TickOf(absl::Time t) const {
  return tick_ > absl::ZeroDuration() ? runtime::TickAtOrBefore(t, tick_) : t;
}

absl::Duration StatusSchedule::Wait(const std::string& name, absl::Time now) const {
  auto it = next_.find(name);
  if (it == next_.end()) return absl::ZeroDuration();
  return std::max(absl::ZeroDuration(), it->second - now);
}

void StatusSchedule::Wrote(const std::string& name, absl::Time now) {
  const absl::Time tick = TickOf(now);
  const absl::Time nominal = tick + interval_;
  absl::Time next = nominal;
  // One tick earlier only while that is still a later tick than this one.
  if (tick_ > absl::ZeroDuration() && nominal - tick_ > tick) {
    const absl::Time earlier = nominal - tick_;
    Move(name, absl::InfinitePast());  // not counted on either tick while choosing
    auto count = [this](absl::Time t) {
      auto it = due_.find(t);
      return it == due_.end() ? 0 : it->second;
    };
    if (count(earlier) < count(nominal)) next = earlier;
  }
  Move(name, next);
}

void StatusSchedule::Forget(const std::string& name) {
  Move(name, absl::InfinitePast());
  next_.erase(name);
}

// Sets `name`'s next time, keeping due_ its count; InfinitePast is counted nowhere.
void StatusSchedule::Move(const std::string& name, absl::Time next) {
  auto [it, inserted] = next_.try_emplace(name, absl::InfinitePast());
  if (!inserted && it->second != absl::InfinitePast()) {
    auto old = due_.find(it->second);
    if (old != due_.end() && --old->second == 0) due_.erase(old);
  }
  it->second = next;
  if (next != absl::InfinitePast()) ++due_[next];
}

}  // namespace gpuprofile::reconciler
