// File: controller/kube/api_error.h
// Typed API errors: a failed response's `Status` body (reason, code, message, details.causes,
// details.retryAfterSeconds) and the Retry-After header, carried as an absl::Status whose
// payload holds the ApiError, so callers keep using absl::Status and still ask typed questions:
//   apierrors::IsNotFound(s), IsAlreadyExists(s), IsConflict(s), IsInvalid(s), IsGone(s), ...
//
// Canonical codes (so code that only looks at absl codes still behaves):
//   400 BadRequest, 415, 422 Invalid   InvalidArgument     401 Unauthorized   Unauthenticated
//   403 Forbidden                      PermissionDenied    404 NotFound       NotFound
//   405 MethodNotAllowed               Unimplemented       409 AlreadyExists  AlreadyExists
//   409 Conflict                       Aborted (runtime::IsConflict agrees)
//   410 Gone / Expired                 OutOfRange          429 TooManyRequests ResourceExhausted
//   500 InternalError                  Internal            503                Unavailable
//   504 / reason ServerTimeout, Timeout DeadlineExceeded   anything else      Unknown
// The message names the request and the server's reason: e.g.
//   GET /api/v1/namespaces/default/configmaps/x: configmaps "x" not found (404 NotFound)
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/kube/http_transport.h"

namespace gpuprofile::kube {

// One entry of Status.details.causes (e.g. a field that failed validation).
struct StatusCause {
  std::string reason;  // "FieldValueInvalid", "FieldValueRequired", ...
  std::string message;
  std::string field;  // "spec.devices[0].name"
};

struct ApiError {
  int code = 0;         // HTTP status
  std::string reason;   // Status.reason ("NotFound", "Conflict", ...); from the code if absent
  std::string message;  // Status.message, or the body's start when it was not a Status
  std::string group;    // Status.details
  std::string kind;
  std::string name;
  std::vector<StatusCause> causes;
  // From the Retry-After header, else details.retryAfterSeconds.
  std::optional<absl::Duration> retry_after;
};

// Decodes a failed response (status >= 300). Bodies that are not a Status (a proxy's HTML page)
// still give an ApiError with the HTTP code and a reason derived from it.
ApiError ParseApiError(const HttpResponse& response);

// The absl::Status for `error` on request "`method` `path`" (used in the message), carrying
// `error` as payload.
absl::Status ApiErrorStatus(const ApiError& error, absl::string_view method,
                            absl::string_view path);

// The ApiError carried by `status`, if any (transport errors carry none).
std::optional<ApiError> GetApiError(const absl::Status& status);

// The typed questions, as client-go's apierrors package. Call them qualified
// (apierrors::IsNotFound): unqualified, absl::IsNotFound / absl::IsAlreadyExists would be found
// too by argument-dependent lookup.
namespace apierrors {

bool IsNotFound(const absl::Status& status);
bool IsAlreadyExists(const absl::Status& status);
// 409 with reason Conflict (a stale resourceVersion or failed precondition).
bool IsConflict(const absl::Status& status);
// 422 Invalid (see causes) or 400 BadRequest.
bool IsInvalid(const absl::Status& status);
bool IsBadRequest(const absl::Status& status);
// 410: Gone or Expired (a too old resourceVersion or continue token).
bool IsGone(const absl::Status& status);
bool IsForbidden(const absl::Status& status);
bool IsUnauthorized(const absl::Status& status);
bool IsTooManyRequests(const absl::Status& status);
// 504, or reason ServerTimeout / Timeout.
bool IsServerTimeout(const absl::Status& status);
bool IsInternalError(const absl::Status& status);
bool IsServiceUnavailable(const absl::Status& status);
// How long the server asked the client to wait (429, some 5xx), if it said.
std::optional<absl::Duration> RetryAfter(const absl::Status& status);

}  // namespace apierrors

}  // namespace gpuprofile::kube
