// File: controller/runtime/controller_runtime_metrics.cc
#include "controller/runtime/controller_runtime_metrics.h"

#include "controller/core/status_macros.h"

namespace gpuprofile::runtime {

const std::vector<double>& ReconcileTimeBuckets() {
  static const std::vector<double>* const buckets = new std::vector<double>{
      0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
      0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
      6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
  return *buckets;
}

absl::StatusOr<ControllerRuntimeMetrics> ControllerRuntimeMetrics::Register(
    MetricsRegistry* registry) {
  ControllerRuntimeMetrics m;
  ASSIGN_OR_RETURN(m.reconcile_total,
                   registry->RegisterCounter("controller_runtime_reconcile_total",
                                             "Reconciliations per controller and result.",
                                             {"controller", "result"}));
  ASSIGN_OR_RETURN(
      m.reconcile_errors_total,
      registry->RegisterCounter("controller_runtime_reconcile_errors_total",
                                "Reconciliations that returned an error.", {"controller"}));
  ASSIGN_OR_RETURN(m.reconcile_time_seconds,
                   registry->RegisterHistogram("controller_runtime_reconcile_time_seconds",
                                               "Time one reconciliation took, in seconds.",
                                               {"controller"}, ReconcileTimeBuckets()));
  ASSIGN_OR_RETURN(
      m.workqueue_depth,
      registry->RegisterGauge("workqueue_depth", "Keys ready in the work queue.", {"name"}));
  ASSIGN_OR_RETURN(m.workqueue_adds_total,
                   registry->RegisterCounter("workqueue_adds_total",
                                             "Keys accepted by the work queue.", {"name"}));
  ASSIGN_OR_RETURN(
      m.workqueue_retries_total,
      registry->RegisterCounter("workqueue_retries_total",
                                "Delayed and rate-limited adds to the work queue.", {"name"}));
  ASSIGN_OR_RETURN(m.rest_client_requests_total,
                   registry->RegisterCounter("rest_client_requests_total",
                                             "API server requests by status code, method and "
                                             "host.",
                                             {"code", "method", "host"}));
  ASSIGN_OR_RETURN(
      m.leader_election_master_status,
      registry->RegisterGauge("leader_election_master_status",
                              "1 while this process holds the lease, else 0.", {"name"}));
  return m;
}

void ControllerRuntimeMetrics::InitController(const std::string& controller) const {
  for (const char* result : {kReconcileResultSuccess, kReconcileResultError,
                             kReconcileResultRequeue, kReconcileResultRequeueAfter}) {
    reconcile_total->WithLabels({controller, result});
  }
  reconcile_errors_total->WithLabels({controller});
  reconcile_time_seconds->WithLabels({controller});
}

WorkQueueMetrics ControllerRuntimeMetrics::ForQueue(const std::string& name) const {
  WorkQueueMetrics m;
  m.depth = workqueue_depth->WithLabels({name});
  m.adds = workqueue_adds_total->WithLabels({name});
  m.retries = workqueue_retries_total->WithLabels({name});
  return m;
}

}  // namespace gpuprofile::runtime
