// File: controller/reconciler/status_schedule.h
// When each profile's status may next be written (ProfileReconcilerOptions::status_interval).
//
// A write falls on a tick (runtime::TickAtOrBefore: the desired state's 200 ms ticks, so that
// the writes of a tick read that tick's computation), and the profile's next write may come one
// interval after that tick. Under churn a profile therefore writes on the same tick of every
// interval, and the profiles a burst of changes made due together stay together: in the operator
// benchmark every status write of a 20-second slice churn fell on 2 or 3 of the 5 ticks of a
// second, about 30 writes on each, queued behind the workers while the other ticks had none.
// So the next write may also come one tick earlier than that, when fewer profiles are due on
// that tick than on the interval's own: a burst spreads over the ticks within a few intervals,
// and each profile then keeps its tick. Writes only ever move earlier, never later, so no status
// waits longer than before; two writes of one profile are at least `interval` - 2 `tick` apart,
// and at least `interval` - `tick` once the ticks are even.
// Thread-compatible (the reconciler holds its mutex).
#pragma once

#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace gpuprofile::reconciler {

class StatusSchedule {
 public:
  // A tick longer than the interval is taken as the interval (two writes are then never within
  // one tick of each other); a zero tick or interval writes whenever asked.
  StatusSchedule(absl::Duration interval, absl::Duration tick);

  // How long from `now` until `name`'s status may be written (zero: now).
  absl::Duration Wait(const std::string& name, absl::Time now) const;
  // Records that `name`'s status was written at `now`, and when it may be written next.
  void Wrote(const std::string& name, absl::Time now);
  // Forgets `name` (a deleted profile).
  void Forget(const std::string& name);

 private:
  absl::Time TickOf(absl::Time t) const;
  void Move(const std::string& name, absl::Time next);

  const absl::Duration interval_;
  const absl::Duration tick_;
  absl::flat_hash_map<std::string, absl::Time> next_;  // by profile: its next write's earliest
  std::map<absl::Time, int> due_;                      // how many profiles' next_ is each time
};

}  // namespace gpuprofile::reconciler
