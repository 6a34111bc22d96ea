// File: controller/kube/api_error.cc
#include "controller/kube/api_error.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {
namespace {

constexpr char kPayloadUrl[] = "type.googleapis.com/gpuprofile.kube.ApiError";
constexpr size_t kMaxRawMessage = 256;

std::string ReasonForCode(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "Unknown";
  }
}

absl::StatusCode CanonicalCode(const ApiError& e) {
  if (e.reason == "ServerTimeout" || e.reason == "Timeout") {
    return absl::StatusCode::kDeadlineExceeded;
  }
  switch (e.code) {
    case 400:
    case 413:
    case 415:
    case 422: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 405: return absl::StatusCode::kUnimplemented;
    case 409:
      return e.reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists
                                         : absl::StatusCode::kAborted;
    case 410: return absl::StatusCode::kOutOfRange;
    case 429: return absl::StatusCode::kResourceExhausted;
    case 500: return absl::StatusCode::kInternal;
    case 502:
    case 503: return absl::StatusCode::kUnavailable;
    case 504: return absl::StatusCode::kDeadlineExceeded;
    default: return absl::StatusCode::kUnknown;
  }
}

std::string GetString(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

nlohmann::json ToJson(const ApiError& e) {
  nlohmann::json causes = nlohmann::json::array();
  for (const StatusCause& c : e.causes) {
    causes.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  nlohmann::json j = {{"code", e.code},   {"reason", e.reason}, {"message", e.message},
                      {"group", e.group}, {"kind", e.kind},     {"name", e.name},
                      {"causes", causes}};
  if (e.retry_after) j["retryAfterMs"] = absl::ToInt64Milliseconds(*e.retry_after);
  return j;
}

std::optional<ApiError> FromJson(const std::string& text) {
  if (!limits::CheckJsonText(text, "api error", limits::kMaxApiObjectBytes).ok()) {
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  ApiError e;
  // Not j.value("code", 0): it throws when "code" is not a number.
  if (auto it = j.find("code"); it != j.end() && it->is_number_integer()) e.code = it->get<int>();
  e.reason = GetString(j, "reason");
  e.message = GetString(j, "message");
  e.group = GetString(j, "group");
  e.kind = GetString(j, "kind");
  e.name = GetString(j, "name");
  if (auto it = j.find("causes"); it != j.end() && it->is_array()) {
    for (const nlohmann::json& c : *it) {
      if (!c.is_object()) continue;
      e.causes.push_back({GetString(c, "reason"), GetString(c, "message"), GetString(c, "field")});
    }
  }
  if (auto it = j.find("retryAfterMs"); it != j.end() && it->is_number_integer()) {
    e.retry_after = absl::Milliseconds(it->get<int64_t>());
  }
  return e;
}

bool HasReason(const absl::Status& status, int code, const char* reason) {
  std::optional<ApiError> e = GetApiError(status);
  if (!e) return false;
  if (reason != nullptr && !e->reason.empty()) return e->reason == reason;
  return e->code == code;
}

}  // namespace

ApiError ParseApiError(const HttpResponse& response) {
  ApiError e;
  e.code = response.status;
  // An error body is a Status object; one over the limits (input_limits.h) is not parsed.
  nlohmann::json body;
  if (limits::CheckJsonText(response.body, "error response", limits::kMaxApiObjectBytes).ok()) {
    body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  }
  if (body.is_object() && GetString(body, "kind") == "Status") {
    e.reason = GetString(body, "reason");
    e.message = GetString(body, "message");
    if (auto it = body.find("code"); it != body.end() && it->is_number_integer()) {
      // The body's code wins only when the HTTP status says nothing more specific.
      if (e.code == 0) e.code = it->get<int>();
    }
    if (auto details = body.find("details"); details != body.end() && details->is_object()) {
      e.group = GetString(*details, "group");
      e.kind = GetString(*details, "kind");
      e.name = GetString(*details, "name");
      if (auto causes = details->find("causes"); causes != details->end() && causes->is_array()) {
        for (const nlohmann::json& c : *causes) {
          if (!c.is_object()) continue;
          e.causes.push_back(
              {GetString(c, "reason"), GetString(c, "message"), GetString(c, "field")});
        }
      }
      if (auto ra = details->find("retryAfterSeconds");
          ra != details->end() && ra->is_number_integer() && ra->get<int64_t>() > 0) {
        e.retry_after = absl::Seconds(ra->get<int64_t>());
      }
    }
  } else {
    std::string raw = response.body.substr(0, kMaxRawMessage);
    absl::StripAsciiWhitespace(&raw);
    e.message = raw.empty() ? "(empty body)" : raw;
  }
  if (e.reason.empty()) e.reason = ReasonForCode(e.code);
  int64_t seconds = 0;
  const std::string retry_after = response.Header("Retry-After");
  if (!retry_after.empty() && absl::SimpleAtoi(retry_after, &seconds) && seconds >= 0) {
    e.retry_after = absl::Seconds(seconds);
  }
  return e;
}

absl::Status ApiErrorStatus(const ApiError& error, absl::string_view method,
                            absl::string_view path) {
  std::string message = absl::StrCat(method, " ", path, ": ", error.message, " (", error.code,
                                     " ", error.reason, ")");
  for (const StatusCause& cause : error.causes) {
    absl::StrAppend(&message, "\n  ", cause.field.empty() ? "" : cause.field + ": ",
                    cause.message);
  }
  if (error.retry_after) {
    absl::StrAppend(&message, "; retry after ", absl::FormatDuration(*error.retry_after));
  }
  absl::Status status(CanonicalCode(error), message);
  status.SetPayload(kPayloadUrl, absl::Cord(ToJson(error).dump()));
  return status;
}

std::optional<ApiError> GetApiError(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  return FromJson(std::string(*payload));
}

namespace apierrors {

bool IsNotFound(const absl::Status& status) { return HasReason(status, 404, "NotFound"); }
bool IsAlreadyExists(const absl::Status& status) {
  return HasReason(status, 409, "AlreadyExists");
}
bool IsConflict(const absl::Status& status) { return HasReason(status, 409, "Conflict"); }
bool IsInvalid(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 422 || e->reason == "Invalid");
}
bool IsBadRequest(const absl::Status& status) { return HasReason(status, 400, "BadRequest"); }
bool IsGone(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 410 || e->reason == "Gone" || e->reason == "Expired");
}
bool IsForbidden(const absl::Status& status) { return HasReason(status, 403, "Forbidden"); }
bool IsUnauthorized(const absl::Status& status) {
  return HasReason(status, 401, "Unauthorized");
}
bool IsTooManyRequests(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 429 || e->reason == "TooManyRequests");
}
bool IsServerTimeout(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 504 || e->reason == "ServerTimeout" || e->reason == "Timeout");
}
bool IsInternalError(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 500 || e->reason == "InternalError");
}
bool IsServiceUnavailable(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  return e && (e->code == 503 || e->reason == "ServiceUnavailable");
}

std::optional<absl::Duration> RetryAfter(const absl::Status& status) {
  std::optional<ApiError> e = GetApiError(status);
  if (!e) return std::nullopt;
  return e->retry_after;
}

}  // namespace apierrors

}  // namespace gpuprofile::kube
