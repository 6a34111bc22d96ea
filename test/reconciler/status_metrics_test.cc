// File: test/reconciler/status_metrics_test.cc
#include "controller/reconciler/status_metrics.h"

#include <algorithm>
#include <string>
#include <vector>

#include "controller/api/gpu_node_group.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace status_metrics_test {
namespace {

meta::Condition Cond(const std::string& type, meta::ConditionStatus status) {
  meta::Condition c;
  c.type = type;
  c.status = status;
  c.reason = "Because";
  return c;
}

class StatusMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conditions_ = *registry_.RegisterGauge("c", "help", {"profile", "type", "status"});
    oldest_ = *registry_.RegisterGauge("o", "help", {"profile"});
  }
  // The value of c{profile,type,status}; -1 when the series does not exist.
  double Value(const std::string& object, const std::string& type, const std::string& status) {
    runtime::Gauge* g = conditions_->Find({object, type, status});
    return g == nullptr ? -1 : g->Value();
  }

  runtime::MetricsRegistry registry_;
  runtime::GaugeFamily* conditions_ = nullptr;
  runtime::GaugeFamily* oldest_ = nullptr;
};

TEST_F(StatusMetricsTest, OneOnTheCurrentStatusZeroOnTheOthers) {
  SetConditionGauges(conditions_, "p", ProfileConditionTypes(),
                     {Cond("Ready", meta::ConditionStatus::kFalse),
                      Cond("Satisfiable", meta::ConditionStatus::kFalse),
                      Cond("Stalled", meta::ConditionStatus::kTrue)},
                     meta::ConditionStatus::kUnknown);
  EXPECT_EQ(Value("p", "Ready", "True"), 0);
  EXPECT_EQ(Value("p", "Ready", "False"), 1);
  EXPECT_EQ(Value("p", "Ready", "Unknown"), 0);
  EXPECT_EQ(Value("p", "Stalled", "True"), 1);
  EXPECT_EQ(Value("p", "Stalled", "False"), 0);
  EXPECT_EQ(Value("p", "Satisfiable", "False"), 1);
  // Types the status lacks take the `absent` status.
  EXPECT_EQ(Value("p", "Conflict", "Unknown"), 1);
  EXPECT_EQ(Value("p", "Reconciling", "Unknown"), 1);
  EXPECT_EQ(Value("p", "Reconciling", "True"), 0);
  // Five types, three series each.
  const std::string text = registry_.TextExposition();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2 + 15) << text;
  EXPECT_NE(text.find("c{profile=\"p\",status=\"False\",type=\"Satisfiable\"} 1\n"),
            std::string::npos)
      << text;
}

TEST_F(StatusMetricsTest, ATransitionMovesTheOne) {
  SetConditionGauges(conditions_, "p", {"Satisfiable"},
                     {Cond("Satisfiable", meta::ConditionStatus::kFalse)},
                     meta::ConditionStatus::kUnknown);
  SetConditionGauges(conditions_, "p", {"Satisfiable"},
                     {Cond("Satisfiable", meta::ConditionStatus::kTrue)},
                     meta::ConditionStatus::kUnknown);
  EXPECT_EQ(Value("p", "Satisfiable", "True"), 1);
  EXPECT_EQ(Value("p", "Satisfiable", "False"), 0);
}

TEST_F(StatusMetricsTest, NodeGroupOfferedTwiceIsFalseWhenAbsent) {
  SetConditionGauges(conditions_, "g", NodeGroupConditionTypes(), {},
                     meta::ConditionStatus::kFalse);
  EXPECT_EQ(Value("g", api::kConditionOfferedTwice, "False"), 1);
  EXPECT_EQ(Value("g", api::kConditionOfferedTwice, "True"), 0);
  SetConditionGauges(conditions_, "g", NodeGroupConditionTypes(),
                     {Cond(api::kConditionOfferedTwice, meta::ConditionStatus::kTrue)},
                     meta::ConditionStatus::kFalse);
  EXPECT_EQ(Value("g", api::kConditionOfferedTwice, "True"), 1);
  EXPECT_EQ(Value("g", api::kConditionOfferedTwice, "False"), 0);
}

TEST_F(StatusMetricsTest, RemoveTakesOnlyThatObjectsSeries) {
  for (const char* object : {"a", "b"}) {
    SetConditionGauges(conditions_, object, ProfileConditionTypes(), {},
                       meta::ConditionStatus::kUnknown);
  }
  RemoveConditionGauges(conditions_, "a", ProfileConditionTypes());
  for (const std::string& type : ProfileConditionTypes()) {
    for (const char* status : {"True", "False", "Unknown"}) {
      EXPECT_EQ(Value("a", type, status), -1) << type << " " << status;
      EXPECT_GE(Value("b", type, status), 0) << type << " " << status;
    }
  }
}

TEST_F(StatusMetricsTest, OldestPendingClaimIsItsCreationTimeInUnixSeconds) {
  api::AllocationCounts allocation;
  allocation.pending_claims = 2;
  allocation.oldest_pending_claim_time = "2026-01-02T03:04:05Z";
  SetOldestPendingClaim(oldest_, "p", allocation);
  ASSERT_NE(oldest_->Find({"p"}), nullptr);
  EXPECT_DOUBLE_EQ(oldest_->Find({"p"})->Value(), 1767323045);
  EXPECT_NE(registry_.TextExposition().find("o{profile=\"p\"} 1.767323045e+09\n"),
            std::string::npos)
      << registry_.TextExposition();
}

TEST_F(StatusMetricsTest, NoPendingClaimOrNoReadableTimeRemovesTheSeries) {
  api::AllocationCounts pending;
  pending.pending_claims = 1;
  pending.oldest_pending_claim_time = "2026-01-02T03:04:05Z";
  api::AllocationCounts none;
  api::AllocationCounts unreadable = pending;
  unreadable.oldest_pending_claim_time = "yesterday";
  api::AllocationCounts unknown = pending;
  unknown.oldest_pending_claim_time = "";
  for (const api::AllocationCounts* after : {&none, &unreadable, &unknown}) {
    SetOldestPendingClaim(oldest_, "p", pending);
    ASSERT_NE(oldest_->Find({"p"}), nullptr);
    SetOldestPendingClaim(oldest_, "p", *after);
    EXPECT_EQ(oldest_->Find({"p"}), nullptr) << after->oldest_pending_claim_time;
  }
}

}  // namespace
}  // namespace status_metrics_test
}  // namespace gpuprofile::reconciler
