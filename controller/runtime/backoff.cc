// File: controller/runtime/backoff.cc
#include "controller/runtime/backoff.h"

#include <algorithm>
#include <utility>

namespace gpuprofile::runtime {

Backoff::Backoff(BackoffOptions options, UniformSource uniform)
    : options_(options), uniform_(std::move(uniform)), interval_(options.initial) {}

absl::Duration Backoff::Next() {
  const double r = std::clamp(options_.randomization_factor, 0.0, 1.0);
  const double u = r > 0 ? std::clamp(uniform_(), 0.0, 1.0) : 0.5;
  const absl::Duration delay = interval_ * (1.0 - r + 2.0 * r * u);
  interval_ = std::min(options_.max, interval_ * std::max(options_.multiplier, 1.0));
  return std::max(delay, absl::ZeroDuration());
}

void Backoff::Reset() { interval_ = options_.initial; }

Backoff::UniformSource UniformFrom(absl::BitGen* gen) {
  return [gen] { return absl::Uniform<double>(*gen, 0.0, 1.0); };
}

}  // namespace gpuprofile::runtime
