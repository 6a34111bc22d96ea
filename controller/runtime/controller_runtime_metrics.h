// File: controller/runtime/controller_runtime_metrics.h
// The metric families controller-runtime and client-go export, under the same names and labels,
// so dashboards and alerts written for Go operators read this operator too:
//   controller_runtime_reconcile_total{controller,result}   counter
//   controller_runtime_reconcile_errors_total{controller}   counter
//   controller_runtime_reconcile_time_seconds{controller}   histogram
//   workqueue_depth{name}                                   gauge
//   workqueue_adds_total{name}                              counter
//   workqueue_retries_total{name}                           counter
//   rest_client_requests_total{code,host,method}            counter
//   leader_election_master_status{name}                     gauge (1 leading, 0 not)
// Thread-safety: the struct is an immutable set of pointers into a thread-safe registry.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/runtime/metrics.h"
#include "controller/runtime/work_queue.h"

namespace gpuprofile::runtime {

// Values of the `result` label of controller_runtime_reconcile_total.
inline constexpr char kReconcileResultSuccess[] = "success";
inline constexpr char kReconcileResultError[] = "error";
inline constexpr char kReconcileResultRequeue[] = "requeue";
inline constexpr char kReconcileResultRequeueAfter[] = "requeue_after";

// controller-runtime's buckets for controller_runtime_reconcile_time_seconds (5 ms to 60 s).
const std::vector<double>& ReconcileTimeBuckets();

struct ControllerRuntimeMetrics {
  // Registers every family on `registry` (or finds them, when already registered); the registry
  // must outlive the returned pointers.
  static absl::StatusOr<ControllerRuntimeMetrics> Register(MetricsRegistry* registry);

  // Creates the reconcile series of `controller` at zero (every result, errors, time), as
  // controller-runtime does when a controller starts, so rates are defined from the first scrape.
  void InitController(const std::string& controller) const;

  // The queue series of the work queue called `name`.
  WorkQueueMetrics ForQueue(const std::string& name) const;

  CounterFamily* reconcile_total = nullptr;
  CounterFamily* reconcile_errors_total = nullptr;
  HistogramFamily* reconcile_time_seconds = nullptr;
  GaugeFamily* workqueue_depth = nullptr;
  CounterFamily* workqueue_adds_total = nullptr;
  CounterFamily* workqueue_retries_total = nullptr;
  CounterFamily* rest_client_requests_total = nullptr;  // labels in order: code, method, host
  GaugeFamily* leader_election_master_status = nullptr;
};

}  // namespace gpuprofile::runtime
