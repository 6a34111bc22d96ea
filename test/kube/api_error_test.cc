// File: test/kube/api_error_test.cc
#include "controller/kube/api_error.h"

#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"

namespace gpuprofile::kube {
namespace api_error_test {
namespace {

using testing::StatusReply;

absl::Status StatusFor(const testing::Reply& reply) {
  return ApiErrorStatus(ParseApiError(reply.response), "GET", "/api/v1/namespaces/d/configmaps/x");
}

TEST(ApiErrorTest, NotFoundKeepsTheServerMessageAndNamesTheRequest) {
  absl::Status s = StatusFor(StatusReply(404, "NotFound", "configmaps \"x\" not found", {},
                                         {{"name", "x"}, {"kind", "configmaps"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(apierrors::IsNotFound(s));
  EXPECT_FALSE(apierrors::IsConflict(s));
  EXPECT_EQ(s.message(),
            "GET /api/v1/namespaces/d/configmaps/x: configmaps \"x\" not found (404 NotFound)");
  std::optional<ApiError> e = GetApiError(s);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->name, "x");
  EXPECT_EQ(e->kind, "configmaps");
}

TEST(ApiErrorTest, ConflictAndAlreadyExistsAreBoth409ButDistinct) {
  absl::Status conflict = StatusFor(StatusReply(409, "Conflict", "the object has been modified"));
  absl::Status exists = StatusFor(StatusReply(409, "AlreadyExists", "configmaps \"x\" exists"));
  EXPECT_TRUE(apierrors::IsConflict(conflict));
  EXPECT_FALSE(apierrors::IsAlreadyExists(conflict));
  EXPECT_EQ(conflict.code(), absl::StatusCode::kAborted);  // runtime::IsConflict agrees
  EXPECT_TRUE(apierrors::IsAlreadyExists(exists));
  EXPECT_FALSE(apierrors::IsConflict(exists));
  EXPECT_EQ(exists.code(), absl::StatusCode::kAlreadyExists);
}

TEST(ApiErrorTest, InvalidCarriesFieldCausesInTheMessage) {
  absl::Status s = StatusFor(StatusReply(
      422, "Invalid", "ConfigMap \"X\" is invalid", {},
      {{"causes",
        {{{"reason", "FieldValueInvalid"}, {"message", "a lowercase RFC 1123 subdomain"},
          {"field", "metadata.name"}}}}}));
  EXPECT_TRUE(apierrors::IsInvalid(s));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_EQ(GetApiError(s)->causes.size(), 1u);
  EXPECT_EQ(GetApiError(s)->causes[0].field, "metadata.name");
  EXPECT_NE(s.message().find("\n  metadata.name: a lowercase RFC 1123 subdomain"),
            absl::string_view::npos)
      << s.message();
}

TEST(ApiErrorTest, RetryAfterFromHeaderWinsOverDetails) {
  absl::Status header = StatusFor(StatusReply(429, "TooManyRequests", "slow down",
                                              {{"retry-after", "3"}},
                                              {{"retryAfterSeconds", 7}}));
  EXPECT_TRUE(apierrors::IsTooManyRequests(header));
  EXPECT_EQ(apierrors::RetryAfter(header), absl::Seconds(3));
  absl::Status details = StatusFor(
      StatusReply(429, "TooManyRequests", "slow down", {}, {{"retryAfterSeconds", 7}}));
  EXPECT_EQ(apierrors::RetryAfter(details), absl::Seconds(7));
  EXPECT_EQ(details.code(), absl::StatusCode::kResourceExhausted);
}

TEST(ApiErrorTest, CodesWithoutAStatusBodyStillMap) {
  struct Case {
    int code;
    absl::StatusCode canonical;
    bool (*is)(const absl::Status&);
  };
  for (const Case& c : {Case{401, absl::StatusCode::kUnauthenticated, &apierrors::IsUnauthorized},
                        Case{403, absl::StatusCode::kPermissionDenied, &apierrors::IsForbidden},
                        Case{410, absl::StatusCode::kOutOfRange, &apierrors::IsGone},
                        Case{500, absl::StatusCode::kInternal, &apierrors::IsInternalError},
                        Case{503, absl::StatusCode::kUnavailable, &apierrors::IsServiceUnavailable},
                        Case{504, absl::StatusCode::kDeadlineExceeded, &apierrors::IsServerTimeout},
                        Case{400, absl::StatusCode::kInvalidArgument, &apierrors::IsBadRequest}}) {
    HttpResponse r;
    r.status = c.code;
    r.body = "<html>proxy error</html>";
    absl::Status s = ApiErrorStatus(ParseApiError(r), "GET", "/x");
    EXPECT_EQ(s.code(), c.canonical) << c.code;
    EXPECT_TRUE(c.is(s)) << c.code;
    EXPECT_NE(s.message().find("<html>proxy error</html>"), absl::string_view::npos);
  }
}

TEST(ApiErrorTest, ExpiredReasonIsGone) {
  absl::Status s = StatusFor(StatusReply(410, "Expired", "too old resource version: 1 (5)"));
  EXPECT_TRUE(apierrors::IsGone(s));
}

TEST(ApiErrorTest, ServerTimeoutReasonOn500IsServerTimeout) {
  absl::Status s = StatusFor(StatusReply(500, "ServerTimeout", "the server timed out"));
  EXPECT_TRUE(apierrors::IsServerTimeout(s));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(ApiErrorTest, TransportErrorsCarryNoApiError) {
  absl::Status s = absl::UnavailableError("connection refused");
  EXPECT_FALSE(GetApiError(s).has_value());
  EXPECT_FALSE(apierrors::IsNotFound(s));
  EXPECT_FALSE(apierrors::RetryAfter(s).has_value());
}

}  // namespace
}  // namespace api_error_test
}  // namespace gpuprofile::kube
