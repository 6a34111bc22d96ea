// File: controller/runtime/metrics.cc
#include "controller/runtime/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/core/check.h"

namespace gpuprofile::runtime {
namespace {

void AtomicAdd(std::atomic<double>* value, double delta) {
  double current = value->load(std::memory_order_relaxed);
  while (!value->compare_exchange_weak(current, current + delta, std::memory_order_relaxed)) {
  }
}

bool IsMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool IsLabelName(const std::string& name) {
  if (name.empty() || name.rfind("__", 0) == 0) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

void AppendHeader(const MetricFamilyBase& family, std::string* out) {
  absl::StrAppend(out, "# HELP ", family.name(), " ", EscapeHelp(family.help()), "\n", "# TYPE ",
                  family.name(), " ", TypeName(family.type()), "\n");
}

}  // namespace

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return "0";
  // The shortest digits that round-trip, as "d.ddde±x"; then Go's 'g' layout: exponent form when
  // the decimal exponent is < -4 or >= 6 (Go's precision for shortest formatting), fixed
  // otherwise.
  char buf[64];
  const auto result =
      std::to_chars(buf, buf + sizeof(buf), std::fabs(value), std::chars_format::scientific);
  const std::string text(buf, result.ptr);
  const size_t e = text.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  const int exponent = std::atoi(text.c_str() + e + 1);
  std::string out = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 6) {
    out += digits[0];
    if (digits.size() > 1) absl::StrAppend(&out, ".", digits.substr(1));
    absl::StrAppend(&out, absl::StrFormat("e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent)));
    return out;
  }
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) {
    absl::StrAppend(&out, "0.", std::string(-point, '0'), digits);
  } else if (point >= static_cast<int>(digits.size())) {
    absl::StrAppend(&out, digits, std::string(point - digits.size(), '0'));
  } else {
    absl::StrAppend(&out, digits.substr(0, point), ".", digits.substr(point));
  }
  return out;
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void Counter::Inc(double delta) {
  if (delta < 0) return;
  AtomicAdd(&value_, delta);
}

void Gauge::Add(double delta) { AtomicAdd(&value_, delta); }

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), bucket_counts_(upper_bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const size_t bucket =
      std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) - upper_bounds_.begin();
  absl::MutexLock lock(&mu_);
  ++bucket_counts_[bucket];
  sum_ += value;
  ++count_;
}

Histogram::Snapshot Histogram::Get() const {
  Snapshot snapshot;
  snapshot.upper_bounds = upper_bounds_;
  absl::MutexLock lock(&mu_);
  uint64_t running = 0;
  for (uint64_t c : bucket_counts_) {
    running += c;
    snapshot.cumulative_counts.push_back(running);
  }
  snapshot.sum = sum_;
  snapshot.count = count_;
  return snapshot;
}

MetricFamilyBase::MetricFamilyBase(std::string name, std::string help,
                                   std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {
  sorted_label_order_.resize(label_names_.size());
  std::iota(sorted_label_order_.begin(), sorted_label_order_.end(), 0);
  std::sort(sorted_label_order_.begin(), sorted_label_order_.end(),
            [this](size_t a, size_t b) { return label_names_[a] < label_names_[b]; });
}

// The label values' count is the calling code's, never input's: a mismatch is a programming
// error (GPO_CHECK's rule), and a series with misaligned labels would mislead every dashboard.
void MetricFamilyBase::CheckArity(const LabelValues& values) const {
  GPO_CHECK(values.size() == label_names_.size(), "metric ", name_, ": ", values.size(),
            " label values given for ", label_names_.size(), " label names");
}

std::string MetricFamilyBase::SeriesName(const std::string& suffix, const LabelValues& values,
                                         const std::string& extra_label,
                                         const std::string& extra_value) const {
  std::string out = absl::StrCat(name_, suffix);
  if (label_names_.empty() && extra_label.empty()) return out;
  out += "{";
  bool first = true;
  for (size_t i : sorted_label_order_) {
    absl::StrAppend(&out, first ? "" : ",", label_names_[i], "=\"", EscapeLabelValue(values[i]),
                    "\"");
    first = false;
  }
  if (!extra_label.empty()) {
    absl::StrAppend(&out, first ? "" : ",", extra_label, "=\"", EscapeLabelValue(extra_value),
                    "\"");
  }
  out += "}";
  return out;
}

template <typename M>
MetricFamily<M>::MetricFamily(std::string name, std::string help,
                              std::vector<std::string> label_names, std::vector<double> buckets)
    : MetricFamilyBase(std::move(name), std::move(help), std::move(label_names)),
      buckets_(std::move(buckets)) {}

template <typename M>
M* MetricFamily<M>::WithLabels(const LabelValues& values) {
  CheckArity(values);
  absl::MutexLock lock(&mu_);
  std::unique_ptr<M>& slot = series_[values];
  if (slot == nullptr) {
    if constexpr (std::is_same_v<M, Histogram>) {
      slot = std::make_unique<Histogram>(buckets_);
    } else {
      slot = std::make_unique<M>();
    }
  }
  return slot.get();
}

template <typename M>
M* MetricFamily<M>::Find(const LabelValues& values) {
  CheckArity(values);
  absl::MutexLock lock(&mu_);
  auto it = series_.find(values);
  return it == series_.end() ? nullptr : it->second.get();
}

template <typename M>
bool MetricFamily<M>::Remove(const LabelValues& values) {
  CheckArity(values);
  absl::MutexLock lock(&mu_);
  return series_.erase(values) > 0;
}

template <>
MetricType MetricFamily<Counter>::type() const {
  return MetricType::kCounter;
}
template <>
MetricType MetricFamily<Gauge>::type() const {
  return MetricType::kGauge;
}
template <>
MetricType MetricFamily<Histogram>::type() const {
  return MetricType::kHistogram;
}

template <typename M>
void MetricFamily<M>::AppendText(std::string* out) const {
  // Series order: by label values taken in label-name order, as the Go client sorts them.
  std::vector<std::pair<LabelValues, const M*>> rows;
  {
    absl::MutexLock lock(&mu_);
    if (series_.empty()) return;
    for (const auto& [values, metric] : series_) rows.emplace_back(values, metric.get());
  }
  const std::vector<size_t>& order = sorted_label_order();
  std::sort(rows.begin(), rows.end(), [&order](const auto& a, const auto& b) {
    for (size_t i : order) {
      if (a.first[i] != b.first[i]) return a.first[i] < b.first[i];
    }
    return false;
  });
  AppendHeader(*this, out);
  for (const auto& [values, metric] : rows) {
    if constexpr (std::is_same_v<M, Histogram>) {
      const Histogram::Snapshot snapshot = metric->Get();
      for (size_t i = 0; i < snapshot.cumulative_counts.size(); ++i) {
        const std::string le = i < snapshot.upper_bounds.size()
                                   ? FormatMetricValue(snapshot.upper_bounds[i])
                                   : std::string("+Inf");
        absl::StrAppend(out, SeriesName("_bucket", values, "le", le), " ",
                        snapshot.cumulative_counts[i], "\n");
      }
      absl::StrAppend(out, SeriesName("_sum", values), " ", FormatMetricValue(snapshot.sum), "\n");
      absl::StrAppend(out, SeriesName("_count", values), " ", snapshot.count, "\n");
    } else {
      absl::StrAppend(out, SeriesName("", values), " ", FormatMetricValue(metric->Value()), "\n");
    }
  }
}

template class MetricFamily<Counter>;
template class MetricFamily<Gauge>;
template class MetricFamily<Histogram>;

template <typename M>
absl::StatusOr<MetricFamily<M>*> MetricsRegistry::Register(const std::string& name,
                                                           const std::string& help,
                                                           std::vector<std::string> label_names,
                                                           std::vector<double> buckets) {
  if (!IsMetricName(name)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid metric name \"", name, "\""));
  }
  for (const std::string& label : label_names) {
    if (!IsLabelName(label)) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric ", name, ": invalid label name \"", label, "\""));
    }
    if (std::count(label_names.begin(), label_names.end(), label) > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric ", name, ": label \"", label, "\" given twice"));
    }
    if (std::is_same_v<M, Histogram> && label == "le") {
      return absl::InvalidArgumentError(
          absl::StrCat("histogram ", name, ": \"le\" is reserved for buckets"));
    }
  }
  if (!std::is_sorted(buckets.begin(), buckets.end()) ||
      std::adjacent_find(buckets.begin(), buckets.end()) != buckets.end() ||
      std::any_of(buckets.begin(), buckets.end(), [](double b) { return std::isnan(b); })) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram ", name, ": buckets must be strictly increasing"));
  }
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  absl::MutexLock lock(&mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    auto* existing = dynamic_cast<MetricFamily<M>*>(it->second.get());
    if (existing != nullptr && existing->help() == help && existing->label_names() == label_names &&
        existing->buckets() == buckets) {
      return existing;
    }
    return absl::AlreadyExistsError(
        absl::StrCat("metric ", name,
                     " is already registered with another type, help, labels "
                     "or buckets"));
  }
  auto family =
      std::make_unique<MetricFamily<M>>(name, help, std::move(label_names), std::move(buckets));
  MetricFamily<M>* result = family.get();
  families_.emplace(name, std::move(family));
  return result;
}

absl::StatusOr<CounterFamily*> MetricsRegistry::RegisterCounter(
    const std::string& name, const std::string& help, std::vector<std::string> label_names) {
  return Register<Counter>(name, help, std::move(label_names), {});
}

absl::StatusOr<GaugeFamily*> MetricsRegistry::RegisterGauge(const std::string& name,
                                                            const std::string& help,
                                                            std::vector<std::string> label_names) {
  return Register<Gauge>(name, help, std::move(label_names), {});
}

absl::StatusOr<HistogramFamily*> MetricsRegistry::RegisterHistogram(
    const std::string& name, const std::string& help, std::vector<std::string> label_names,
    std::vector<double> buckets) {
  return Register<Histogram>(name, help, std::move(label_names), std::move(buckets));
}

std::string MetricsRegistry::TextExposition() const {
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, family] : families_) family->AppendText(&out);
  return out;
}

}  // namespace gpuprofile::runtime
