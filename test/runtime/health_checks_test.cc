// File: test/runtime/health_checks_test.cc
#include "controller/runtime/health_checks.h"

#include <atomic>
#include <string>

#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace health_checks_test {
namespace {

HealthQuery Verbose() { return {true, {}}; }

TEST(HealthChecksTest, PingAloneIsHealthy) {
  HealthChecks checks("healthz");
  EXPECT_EQ(checks.Names(), std::vector<std::string>{"ping"});
  HealthResponse r = checks.Serve("", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = checks.Serve("/", Verbose());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "[+]ping ok\nhealthz check passed\n");
  EXPECT_OK(checks.CheckAll());
}

TEST(HealthChecksTest, FailureIsA500ListingEveryCheckSortedWithTheReasonWithheld) {
  HealthChecks checks("readyz");
  std::atomic<bool> synced{false};
  ASSERT_OK(checks.Add("informers-synced", [&] {
    return synced ? absl::OkStatus() : absl::UnavailableError("gpuprofiles not synced");
  }));
  ASSERT_OK(checks.Add("dra-served", [] { return absl::OkStatus(); }));
  HealthResponse r = checks.Serve("", {});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body,
            "[+]dra-served ok\n"
            "[-]informers-synced failed: reason withheld\n"
            "[+]ping ok\n"
            "healthz check failed\n");
  absl::Status all = checks.CheckAll();
  EXPECT_TRUE(absl::IsUnavailable(all));
  EXPECT_EQ(all.message(), "readyz check \"informers-synced\" failed: gpuprofiles not synced");

  synced = true;
  r = checks.Serve("", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = checks.Serve("", Verbose());
  EXPECT_EQ(r.body, "[+]dra-served ok\n[+]informers-synced ok\n[+]ping ok\nhealthz check passed\n");
}

TEST(HealthChecksTest, OneCheckByPathShowsItsReason) {
  HealthChecks checks("readyz");
  ASSERT_OK(checks.Add("dra-served",
                       [] { return absl::NotFoundError("resource.k8s.io is not served"); }));
  HealthResponse r = checks.Serve("/dra-served", {});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: resource.k8s.io is not served\n");
  r = checks.Serve("ping/", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = checks.Serve("/nope", {});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "404 page not found\n");
}

TEST(HealthChecksTest, ExcludedChecksAreSkippedAndUnknownExcludesWarned) {
  HealthChecks checks("healthz");
  ASSERT_OK(checks.Add("broken", [] { return absl::InternalError("x"); }));
  HealthResponse r = checks.Serve("", {false, {"broken"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = checks.Serve("", {true, {"broken", "zeta", "alpha"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]broken excluded: ok\n"
            "[+]ping ok\n"
            "warn: some health checks cannot be excluded: no matches for \"alpha\",\"zeta\"\n"
            "healthz check passed\n");
}

TEST(HealthChecksTest, NamesAreValidatedAndUnique) {
  HealthChecks checks("healthz");
  auto ok = [] { return absl::OkStatus(); };
  EXPECT_TRUE(absl::IsInvalidArgument(checks.Add("", ok)));
  EXPECT_TRUE(absl::IsInvalidArgument(checks.Add("a/b", ok)));
  EXPECT_TRUE(absl::IsInvalidArgument(checks.Add("empty", nullptr)));
  EXPECT_TRUE(absl::IsAlreadyExists(checks.Add("ping", ok)));
  ASSERT_OK(checks.Add("x", ok));
  absl::Status again = checks.Add("x", ok);
  EXPECT_TRUE(absl::IsAlreadyExists(again));
  EXPECT_NE(again.message().find("\"x\""), absl::string_view::npos) << again;
}

}  // namespace
}  // namespace health_checks_test
}  // namespace gpuprofile::runtime
