// File: e2e/emulator/api_error.h
// Kubernetes `Status` failures with the reasons, codes and message wording of kube-apiserver
// (k8s.io/apimachinery/pkg/api/errors), and the HTTP response that carries one.
// Pure value types and functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "e2e/emulator/http_types.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct StatusCause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
  std::string message;
  std::string field;
};

struct ApiError {
  int code = 500;
  std::string reason;  // NotFound, AlreadyExists, Conflict, Invalid, ...
  std::string message;
  // details
  std::string name;
  std::string group;
  std::string kind;  // a resource (plural) or a Kind, as kube-apiserver fills it
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;

  nlohmann::json ToJson() const;
};

// Identifies a resource in messages: `deviceclasses.resource.k8s.io` or `namespaces`.
struct GroupResource {
  std::string group;
  std::string resource;
  std::string ToString() const { return group.empty() ? resource : resource + "." + group; }
};

ApiError NotFound(const GroupResource& gr, const std::string& name);
ApiError AlreadyExists(const GroupResource& gr, const std::string& name);
// "Operation cannot be fulfilled on <gr> \"name\": <detail>"
ApiError Conflict(const GroupResource& gr, const std::string& name, const std::string& detail);
ApiError StaleConflict(const GroupResource& gr, const std::string& name);
// A server-side apply conflict: 409 Conflict with one FieldManagerConflict cause per field
// (errors.NewApplyConflict).
ApiError ApplyConflictError(std::vector<StatusCause> causes, const std::string& message);
// "<Kind>.<group> \"name\" is invalid: <field>: <message>, ..."
ApiError Invalid(const std::string& kind, const std::string& group, const std::string& name,
                 std::vector<StatusCause> causes);
ApiError BadRequest(const std::string& message);
ApiError Gone(const std::string& message);  // 410 Expired
ApiError MethodNotSupported(const GroupResource& gr, const std::string& action);
ApiError Forbidden(const GroupResource& gr, const std::string& name, const std::string& detail);
ApiError UnsupportedMediaType(const std::string& content_type);
ApiError NotAcceptable();
ApiError TooManyRequests(int retry_after_seconds);
ApiError InternalError(const std::string& message);
ApiError PathNotFound();  // 404 for paths outside the API ("the server could not find ...")

// Field error messages as field.ErrorList renders them ("<field>: Invalid value: \"x\": msg").
StatusCause FieldInvalid(const std::string& field, const nlohmann::json& value,
                         const std::string& detail);
StatusCause FieldRequired(const std::string& field, const std::string& detail = "");
StatusCause FieldNotSupported(const std::string& field, const nlohmann::json& value,
                              const std::vector<std::string>& supported);
StatusCause FieldTooLong(const std::string& field, size_t max_bytes);
StatusCause FieldTooMany(const std::string& field, size_t actual, size_t max_items);
StatusCause FieldForbidden(const std::string& field, const std::string& detail);
StatusCause FieldDuplicate(const std::string& field, const nlohmann::json& value);

HttpResponse ErrorResponse(const ApiError& error);
HttpResponse JsonResponse(int status, const nlohmann::json& body,
                          const std::string& content_type = "application/json");

}  // namespace gpuprofile::e2e
