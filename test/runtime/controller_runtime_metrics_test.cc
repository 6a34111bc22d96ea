// File: test/runtime/controller_runtime_metrics_test.cc
#include "controller/runtime/controller_runtime_metrics.h"

#include <string>

#include "controller/runtime/testing/fake_clock.h"
#include "controller/runtime/work_queue.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace controller_runtime_metrics_test {
namespace {

using ::testing::HasSubstr;

TEST(ControllerRuntimeMetricsTest, QueueAndControllerSeriesUseControllerRuntimeNames) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(ControllerRuntimeMetrics metrics,
                       ControllerRuntimeMetrics::Register(&registry));
  metrics.InitController("gpuprofile");
  FakeClock clock;
  WorkQueueOptions options;
  options.name = "gpuprofile";
  options.clock = &clock;
  options.metrics = metrics.ForQueue("gpuprofile");
  WorkQueue queue(std::move(options));
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  queue.AddRateLimited("c");
  metrics.rest_client_requests_total->WithLabels({"200", "GET", "10.0.0.1:6443"})->Inc();
  metrics.leader_election_master_status->WithLabels({"gpu-profile-operator"})->Set(1);
  metrics.reconcile_time_seconds->WithLabels({"gpuprofile"})->Observe(0.02);

  const std::string text = registry.TextExposition();
  EXPECT_THAT(text, HasSubstr("workqueue_depth{name=\"gpuprofile\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_adds_total{name=\"gpuprofile\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_retries_total{name=\"gpuprofile\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_total{controller=\"gpuprofile\","
                              "result=\"requeue_after\"} 0\n"));
  EXPECT_THAT(
      text, HasSubstr("controller_runtime_reconcile_errors_total{controller=\"gpuprofile\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_time_seconds_bucket{controller="
                              "\"gpuprofile\",le=\"0.025\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("controller_runtime_reconcile_time_seconds_bucket{controller="
                              "\"gpuprofile\",le=\"60\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rest_client_requests_total{code=\"200\",host=\"10.0.0.1:6443\","
                              "method=\"GET\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("leader_election_master_status{name=\"gpu-profile-operator\"} 1\n"));
}

TEST(ControllerRuntimeMetricsTest, RegisteringTwiceFindsTheSameFamilies) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(ControllerRuntimeMetrics a, ControllerRuntimeMetrics::Register(&registry));
  ASSERT_OK_AND_ASSIGN(ControllerRuntimeMetrics b, ControllerRuntimeMetrics::Register(&registry));
  EXPECT_EQ(a.workqueue_depth, b.workqueue_depth);
  EXPECT_EQ(ReconcileTimeBuckets().front(), 0.005);
  EXPECT_EQ(ReconcileTimeBuckets().back(), 60);
}

}  // namespace
}  // namespace controller_runtime_metrics_test
}  // namespace gpuprofile::runtime
