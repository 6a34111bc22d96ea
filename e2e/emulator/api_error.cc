// File: e2e/emulator/api_error.cc
#include "e2e/emulator/api_error.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::e2e {

namespace {
ApiError MakeError(int code, std::string reason, std::string message) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}
}  // namespace

nlohmann::json ApiError::ToJson() const {
  nlohmann::json body = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  nlohmann::json details = nlohmann::json::object();
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  if (!causes.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const StatusCause& c : causes) {
      nlohmann::json j = {{"reason", c.reason}, {"message", c.message}};
      if (!c.field.empty()) j["field"] = c.field;
      list.push_back(std::move(j));
    }
    details["causes"] = std::move(list);
  }
  if (retry_after_seconds > 0) details["retryAfterSeconds"] = retry_after_seconds;
  if (!details.empty()) body["details"] = std::move(details);
  return body;
}

ApiError ApplyConflictError(std::vector<StatusCause> causes, const std::string& message) {
  ApiError e = MakeError(409, "Conflict", message);
  e.causes = std::move(causes);
  return e;
}

ApiError NotFound(const GroupResource& gr, const std::string& name) {
  ApiError e = MakeError(404, "NotFound", absl::StrCat(gr.ToString(), " \"", name, "\" not found"));
  e.name = name;
  e.group = gr.group;
  e.kind = gr.resource;
  return e;
}

ApiError AlreadyExists(const GroupResource& gr, const std::string& name) {
  ApiError e = MakeError(409, "AlreadyExists",
                         absl::StrCat(gr.ToString(), " \"", name, "\" already exists"));
  e.name = name;
  e.group = gr.group;
  e.kind = gr.resource;
  return e;
}

ApiError Conflict(const GroupResource& gr, const std::string& name, const std::string& detail) {
  ApiError e = MakeError(409, "Conflict",
                         absl::StrCat("Operation cannot be fulfilled on ", gr.ToString(), " \"",
                                      name, "\": ", detail));
  e.name = name;
  e.group = gr.group;
  e.kind = gr.resource;
  return e;
}

ApiError StaleConflict(const GroupResource& gr, const std::string& name) {
  return Conflict(gr, name,
                  "the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

ApiError Invalid(const std::string& kind, const std::string& group, const std::string& name,
                 std::vector<StatusCause> causes) {
  std::vector<std::string> parts;
  for (const StatusCause& c : causes) {
    parts.push_back(c.field.empty() ? c.message : absl::StrCat(c.field, ": ", c.message));
  }
  std::string qualified = group.empty() ? kind : absl::StrCat(kind, ".", group);
  std::string joined = absl::StrJoin(parts, ", ");
  if (parts.size() > 1) joined = absl::StrCat("[", joined, "]");
  ApiError e =
      MakeError(422, "Invalid", absl::StrCat(qualified, " \"", name, "\" is invalid: ", joined));
  e.name = name;
  e.group = group;
  e.kind = kind;
  e.causes = std::move(causes);
  return e;
}

ApiError BadRequest(const std::string& message) { return MakeError(400, "BadRequest", message); }

ApiError Gone(const std::string& message) { return MakeError(410, "Expired", message); }

ApiError MethodNotSupported(const GroupResource& gr, const std::string& action) {
  ApiError e = MakeError(
      405, "MethodNotAllowed",
      absl::StrCat(action, " is not supported on resources of kind \"", gr.ToString(), "\""));
  e.group = gr.group;
  e.kind = gr.resource;
  return e;
}

ApiError Forbidden(const GroupResource& gr, const std::string& name, const std::string& detail) {
  ApiError e = MakeError(403, "Forbidden",
                         absl::StrCat(gr.ToString(), " \"", name, "\" is forbidden: ", detail));
  e.name = name;
  e.group = gr.group;
  e.kind = gr.resource;
  return e;
}

ApiError UnsupportedMediaType(const std::string& content_type) {
  return MakeError(415, "UnsupportedMediaType",
                   absl::StrCat("the body of the request was in an unknown format - accepted "
                                "media types include: application/json-patch+json, "
                                "application/merge-patch+json (got ",
                                content_type, ")"));
}

ApiError NotAcceptable() {
  return MakeError(406, "NotAcceptable",
                   "only the following media types are accepted: application/json, "
                   "application/json;as=Table;v=v1;g=meta.k8s.io");
}

ApiError TooManyRequests(int retry_after_seconds) {
  ApiError e = MakeError(429, "TooManyRequests", "Too many requests, please try again later.");
  e.retry_after_seconds = retry_after_seconds;
  return e;
}

ApiError InternalError(const std::string& message) {
  return MakeError(500, "InternalError", absl::StrCat("Internal error occurred: ", message));
}

ApiError PathNotFound() {
  return MakeError(404, "NotFound", "the server could not find the requested resource");
}

namespace {
std::string Render(const nlohmann::json& value) {
  if (value.is_string()) return value.dump();
  return value.dump();
}
}  // namespace

StatusCause FieldInvalid(const std::string& field, const nlohmann::json& value,
                         const std::string& detail) {
  return {"FieldValueInvalid", absl::StrCat("Invalid value: ", Render(value), ": ", detail), field};
}

StatusCause FieldRequired(const std::string& field, const std::string& detail) {
  return {"FieldValueRequired",
          detail.empty() ? "Required value" : absl::StrCat("Required value: ", detail), field};
}

StatusCause FieldNotSupported(const std::string& field, const nlohmann::json& value,
                              const std::vector<std::string>& supported) {
  std::vector<std::string> quoted;
  for (const std::string& s : supported) quoted.push_back(absl::StrCat("\"", s, "\""));
  return {"FieldValueNotSupported",
          absl::StrCat("Unsupported value: ", Render(value),
                       ": supported values: ", absl::StrJoin(quoted, ", ")),
          field};
}

StatusCause FieldTooLong(const std::string& field, size_t max_bytes) {
  return {"FieldValueTooLong", absl::StrCat("Too long: may not be more than ", max_bytes, " bytes"),
          field};
}

StatusCause FieldTooMany(const std::string& field, size_t actual, size_t max_items) {
  return {"FieldValueTooMany",
          absl::StrCat("Too many: ", actual, ": must have at most ", max_items, " items"), field};
}

StatusCause FieldForbidden(const std::string& field, const std::string& detail) {
  return {"FieldValueForbidden", absl::StrCat("Forbidden: ", detail), field};
}

StatusCause FieldDuplicate(const std::string& field, const nlohmann::json& value) {
  return {"FieldValueDuplicate", absl::StrCat("Duplicate value: ", Render(value)), field};
}

HttpResponse ErrorResponse(const ApiError& error) {
  HttpResponse r;
  r.status = error.code;
  r.body = error.ToJson().dump();
  if (error.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds));
  }
  return r;
}

HttpResponse JsonResponse(int status, const nlohmann::json& body, const std::string& content_type) {
  HttpResponse r;
  r.status = status;
  r.content_type = content_type;
  r.body = body.dump();
  return r;
}

}  // namespace gpuprofile::e2e
