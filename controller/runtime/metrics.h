// File: controller/runtime/metrics.h
// A small Prometheus metrics registry: counters, gauges and histograms in families with fixed
// label names, rendered in the Prometheus text exposition format (version 0.0.4) the way the Go
// client renders it, so scrapes, alerts and dashboards written for Go operators work unchanged:
//  - families in name order, each with `# HELP` and `# TYPE`; a family without series is omitted;
//  - labels printed in label-name order, series in order of their label values;
//  - histogram buckets cumulative with `le` last, then `_sum` and `_count`;
//  - numbers as Go's strconv 'g' shortest form ("1", "0.005", "1e+06", "+Inf", "NaN");
//  - label values escape `\`, `"` and newlines; help text escapes `\` and newlines.
//
// Ownership: the registry owns its families and a family its series; pointers stay valid for the
// registry's lifetime, so hot paths look a series up once and keep the pointer. The exception is
// Remove(), for per-object series (a deleted profile's gauges) that nobody keeps a pointer to.
// Thread-safety: everything here is thread-safe; updates to a series are lock-free (counters,
// gauges) or take a per-series lock (histograms).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace gpuprofile::runtime {

using LabelValues = std::vector<std::string>;

// A value that only goes up (Inc with a negative delta is ignored).
class Counter {
 public:
  void Inc(double delta = 1);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta);
  void Inc() { Add(1); }
  void Dec() { Add(-1); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `upper_bounds` sorted ascending, without +Inf (always implied).
  explicit Histogram(std::vector<double> upper_bounds);

  void Observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> cumulative_counts;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Get() const;

 private:
  const std::vector<double> upper_bounds_;
  mutable absl::Mutex mu_;
  std::vector<uint64_t> bucket_counts_ ABSL_GUARDED_BY(mu_);  // non-cumulative, +Inf last
  double sum_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t count_ ABSL_GUARDED_BY(mu_) = 0;
};

enum class MetricType { kCounter, kGauge, kHistogram };

// What every family shares; the registry renders families through this interface.
class MetricFamilyBase {
 public:
  virtual ~MetricFamilyBase() = default;
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  virtual MetricType type() const = 0;
  // Appends this family's exposition text (nothing when it has no series).
  virtual void AppendText(std::string* out) const = 0;

 protected:
  MetricFamilyBase(std::string name, std::string help, std::vector<std::string> label_names);
  // Aborts unless `values` has one value per label name: a broken invariant, not an input error.
  void CheckArity(const LabelValues& values) const;
  // `name{l1="v1",...}` with labels in name order, plus an optional extra label (histogram `le`).
  std::string SeriesName(const std::string& suffix, const LabelValues& values,
                         const std::string& extra_label = "",
                         const std::string& extra_value = "") const;
  // Indexes into label_names(), in label-name order.
  const std::vector<size_t>& sorted_label_order() const { return sorted_label_order_; }

 private:
  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  std::vector<size_t> sorted_label_order_;  // indexes into label_names_, by name
};

// A family of series of one type; M is Counter, Gauge or Histogram.
template <typename M>
class MetricFamily final : public MetricFamilyBase {
 public:
  MetricFamily(std::string name, std::string help, std::vector<std::string> label_names,
               std::vector<double> buckets = {});

  // The series with these label values (one per label name, in declaration order), created at
  // zero on first use.
  M* WithLabels(const LabelValues& values);
  // The series with these label values if it exists, else null (creates nothing).
  M* Find(const LabelValues& values);
  // Deletes the series with these label values, so that it is no longer exposed (Prometheus then
  // marks it stale) rather than left at its last value; whether there was one. Pointers to it
  // dangle afterwards: only for series the caller looks up each time it sets them.
  bool Remove(const LabelValues& values);

  MetricType type() const override;
  void AppendText(std::string* out) const override;
  const std::vector<double>& buckets() const { return buckets_; }

 private:
  const std::vector<double> buckets_;  // histograms only
  mutable absl::Mutex mu_;
  std::map<LabelValues, std::unique_ptr<M>> series_ ABSL_GUARDED_BY(mu_);
};

using CounterFamily = MetricFamily<Counter>;
using GaugeFamily = MetricFamily<Gauge>;
using HistogramFamily = MetricFamily<Histogram>;

class MetricsRegistry {
 public:
  // Registers a family, or returns the one already registered under `name` when type, help,
  // label names (and buckets) are the same. InvalidArgument for a malformed metric or label name
  // (or a histogram label named "le", or unsorted buckets); AlreadyExists when `name` is
  // registered differently.
  absl::StatusOr<CounterFamily*> RegisterCounter(const std::string& name, const std::string& help,
                                                 std::vector<std::string> label_names);
  absl::StatusOr<GaugeFamily*> RegisterGauge(const std::string& name, const std::string& help,
                                             std::vector<std::string> label_names);
  absl::StatusOr<HistogramFamily*> RegisterHistogram(const std::string& name,
                                                     const std::string& help,
                                                     std::vector<std::string> label_names,
                                                     std::vector<double> buckets);

  // The whole registry in the text exposition format (Content-Type
  // "text/plain; version=0.0.4; charset=utf-8").
  std::string TextExposition() const;

 private:
  template <typename M>
  absl::StatusOr<MetricFamily<M>*> Register(const std::string& name, const std::string& help,
                                            std::vector<std::string> label_names,
                                            std::vector<double> buckets);

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamilyBase>> families_ ABSL_GUARDED_BY(mu_);
};

// Go's strconv.FormatFloat(v, 'g', -1, 64) with Prometheus' spellings of the special values.
std::string FormatMetricValue(double value);

// Label value escaping of the text format: backslash, double quote and newline.
std::string EscapeLabelValue(const std::string& value);

}  // namespace gpuprofile::runtime
