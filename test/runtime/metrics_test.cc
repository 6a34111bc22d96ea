// File: test/runtime/metrics_test.cc
#include "controller/runtime/metrics.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace metrics_test {
namespace {

struct FormatCase {
  double value;
  const char* text;
};

class FormatMetricValueTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatMetricValueTest, MatchesGoShortestG) {
  EXPECT_EQ(FormatMetricValue(GetParam().value), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Values, FormatMetricValueTest,
    ::testing::Values(FormatCase{0, "0"}, FormatCase{-0.0, "0"}, FormatCase{1, "1"},
                      FormatCase{-1, "-1"}, FormatCase{42, "42"}, FormatCase{0.005, "0.005"},
                      FormatCase{0.0001, "0.0001"}, FormatCase{0.00001, "1e-05"},
                      FormatCase{1.25, "1.25"}, FormatCase{100000, "100000"},
                      FormatCase{1e6, "1e+06"}, FormatCase{1234567, "1.234567e+06"},
                      FormatCase{123456.5, "123456.5"},
                      FormatCase{0.1 + 0.2, "0.30000000000000004"}, FormatCase{1e21, "1e+21"},
                      FormatCase{-2.5e-7, "-2.5e-07"},
                      FormatCase{std::numeric_limits<double>::infinity(), "+Inf"},
                      FormatCase{-std::numeric_limits<double>::infinity(), "-Inf"},
                      FormatCase{std::nan(""), "NaN"}));

TEST(EscapeLabelValueTest, EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd\te"), "a\\\\b\\\"c\\nd\te");
}

TEST(MetricsRegistryTest, ExposesCountersGaugesAndHistogramsInOrder) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(CounterFamily * requests,
                       registry.RegisterCounter("requests_total", "Requests.\nBy code\\method.",
                                                {"method", "code"}));
  ASSERT_OK_AND_ASSIGN(GaugeFamily * up, registry.RegisterGauge("up", "Up.", {}));
  ASSERT_OK_AND_ASSIGN(
      HistogramFamily * latency,
      registry.RegisterHistogram("latency_seconds", "Latency.", {"controller"}, {0.1, 1}));
  ASSERT_OK_AND_ASSIGN(CounterFamily * unused, registry.RegisterCounter("unused", "None.", {}));
  (void)unused;

  requests->WithLabels({"GET", "200"})->Inc(3);
  requests->WithLabels({"GET", "404"})->Inc();
  requests->WithLabels({"DELETE", "200"})->Inc(1234567);
  requests->WithLabels({"GET", "200"})->Inc(-5);  // counters never go down
  up->WithLabels({})->Set(1);
  Histogram* h = latency->WithLabels({"quo\"ted"});
  h->Observe(0.05);
  h->Observe(0.1);  // buckets are inclusive
  h->Observe(0.5);
  h->Observe(7);

  EXPECT_EQ(registry.TextExposition(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{controller=\"quo\\\"ted\",le=\"0.1\"} 2\n"
            "latency_seconds_bucket{controller=\"quo\\\"ted\",le=\"1\"} 3\n"
            "latency_seconds_bucket{controller=\"quo\\\"ted\",le=\"+Inf\"} 4\n"
            "latency_seconds_sum{controller=\"quo\\\"ted\"} 7.65\n"
            "latency_seconds_count{controller=\"quo\\\"ted\"} 4\n"
            "# HELP requests_total Requests.\\nBy code\\\\method.\n"
            "# TYPE requests_total counter\n"
            "requests_total{code=\"200\",method=\"DELETE\"} 1.234567e+06\n"
            "requests_total{code=\"200\",method=\"GET\"} 3\n"
            "requests_total{code=\"404\",method=\"GET\"} 1\n"
            "# HELP up Up.\n"
            "# TYPE up gauge\n"
            "up 1\n");
}

TEST(MetricsRegistryTest, SameRegistrationReturnsTheSameFamily) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(CounterFamily * a, registry.RegisterCounter("x_total", "X.", {"name"}));
  ASSERT_OK_AND_ASSIGN(CounterFamily * b, registry.RegisterCounter("x_total", "X.", {"name"}));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->WithLabels({"q"}), b->WithLabels({"q"}));
}

TEST(MetricsRegistryTest, ConflictingRegistrationIsAlreadyExists) {
  MetricsRegistry registry;
  ASSERT_OK(registry.RegisterCounter("x_total", "X.", {"name"}));
  EXPECT_EQ(registry.RegisterGauge("x_total", "X.", {"name"}).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.RegisterCounter("x_total", "X.", {"other"}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(MetricsRegistryTest, RejectsMalformedNames) {
  MetricsRegistry registry;
  EXPECT_EQ(registry.RegisterCounter("1bad", "", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterCounter("bad-name", "", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterCounter("ok", "", {"__reserved"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterCounter("ok", "", {"a", "a"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterHistogram("h", "", {"le"}, {1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterHistogram("h", "", {}, {2, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_OK(registry.RegisterCounter("ns:sub_total", "", {"_x1"}));
}

TEST(MetricsRegistryTest, GaugeGoesUpAndDown) {
  Gauge g;
  g.Inc();
  g.Inc();
  g.Dec();
  g.Add(0.5);
  EXPECT_DOUBLE_EQ(g.Value(), 1.5);
}

TEST(MetricsRegistryTest, FindCreatesNoSeries) {
  MetricsRegistry registry;
  absl::StatusOr<GaugeFamily*> family = registry.RegisterGauge("g", "help", {"profile"});
  ASSERT_TRUE(family.ok());
  EXPECT_EQ((*family)->Find({"p"}), nullptr);
  std::string text;
  (*family)->AppendText(&text);
  EXPECT_EQ(text, "");
  (*family)->WithLabels({"p"})->Set(2);
  ASSERT_NE((*family)->Find({"p"}), nullptr);
  EXPECT_DOUBLE_EQ((*family)->Find({"p"})->Value(), 2);
}

TEST(MetricsRegistryTest, RemoveDeletesOneSeriesAndItsText) {
  MetricsRegistry registry;
  absl::StatusOr<GaugeFamily*> family = registry.RegisterGauge("g", "help", {"profile"});
  ASSERT_TRUE(family.ok());
  (*family)->WithLabels({"a"})->Set(1);
  (*family)->WithLabels({"b"})->Set(2);
  EXPECT_TRUE((*family)->Remove({"a"}));
  EXPECT_FALSE((*family)->Remove({"a"}));
  EXPECT_FALSE((*family)->Remove({"never"}));
  EXPECT_EQ((*family)->Find({"a"}), nullptr);
  EXPECT_EQ(registry.TextExposition(), "# HELP g help\n# TYPE g gauge\ng{profile=\"b\"} 2\n");
  // The last series gone, the family is omitted; a new one starts at zero.
  EXPECT_TRUE((*family)->Remove({"b"}));
  EXPECT_EQ(registry.TextExposition(), "");
  EXPECT_DOUBLE_EQ((*family)->WithLabels({"a"})->Value(), 0);
}

}  // namespace
}  // namespace metrics_test
}  // namespace gpuprofile::runtime
