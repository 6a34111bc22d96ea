// File: controller/runtime/backoff.h
// Jittered exponential backoff between reconnects and retries, with the numbers kube-rs' watcher
// uses by default: the interval starts at 0.8 s, doubles after each failure up to 30 s, and each
// delay is drawn uniformly from [interval * (1 - r), interval * (1 + r)] with randomization
// factor r = 1 (so delays spread over [0, 2 * interval] and reconnect storms do not synchronise).
// Reset() after a success starts again from the initial interval.
//
// Randomness is injected (a function returning a uniform double in [0, 1)), so tests are exact.
// Thread-compatible: one Backoff per retry loop.
#pragma once

#include <functional>

#include "absl/random/random.h"
#include "absl/time/time.h"

namespace gpuprofile::runtime {

struct BackoffOptions {
  absl::Duration initial = absl::Milliseconds(800);
  absl::Duration max = absl::Seconds(30);
  double multiplier = 2.0;
  // 0 disables jitter; 1 spreads a delay over [0, 2 * interval].
  double randomization_factor = 1.0;
};

class Backoff {
 public:
  // Returns a uniform double in [0, 1).
  using UniformSource = std::function<double()>;

  Backoff(BackoffOptions options, UniformSource uniform);

  // The delay before the next attempt; grows the interval for the one after.
  absl::Duration Next();

  // Back to the initial interval (after a success).
  void Reset();

  // The interval the next delay is drawn around (before jitter).
  absl::Duration current_interval() const { return interval_; }

 private:
  BackoffOptions options_;
  UniformSource uniform_;
  absl::Duration interval_;
};

// A UniformSource over `gen`, which must outlive every Backoff that uses it.
Backoff::UniformSource UniformFrom(absl::BitGen* gen);

}  // namespace gpuprofile::runtime
