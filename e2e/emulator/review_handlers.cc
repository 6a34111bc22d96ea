// File: e2e/emulator/review_handlers.cc
#include "e2e/emulator/review_handlers.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "e2e/emulator/api_error.h"

namespace gpuprofile::e2e {
namespace {

// The request body as the object of `kind` in `api_version`, or the 400 kube-apiserver's decoder
// answers.
std::optional<HttpResponse> DecodeReview(const HttpRequest& request, const std::string& kind,
                                         const std::string& api_version, nlohmann::json* out) {
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return ErrorResponse(BadRequest("couldn't get version/kind; json parse error: invalid JSON"));
  }
  const std::string got_kind = body.value("kind", "");
  const std::string got_version = body.value("apiVersion", "");
  if ((!got_kind.empty() && got_kind != kind) ||
      (!got_version.empty() && got_version != api_version)) {
    return ErrorResponse(BadRequest(absl::StrCat("the kind in the data (", got_version, ", Kind=",
                                                 got_kind, ") does not match the expected kind (",
                                                 api_version, ", Kind=", kind, ")")));
  }
  body["kind"] = kind;
  body["apiVersion"] = api_version;
  // Reviews are never stored: the answer carries no name, uid or resourceVersion.
  body["metadata"] = {{"creationTimestamp", nullptr}};
  if (!body.contains("spec") || body["spec"].is_null()) body["spec"] = nlohmann::json::object();
  if (!body["spec"].is_object()) return ErrorResponse(BadRequest("spec must be an object"));
  *out = std::move(body);
  return std::nullopt;
}

std::string ReviewText(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> ReviewTexts(const nlohmann::json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const nlohmann::json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// Go's %#v of a NonResourceAttributes, as field.Invalid renders the value of a struct.
std::string GoNonResourceAttributes(const nlohmann::json& attributes, const std::string& package) {
  return absl::StrCat(package, ".NonResourceAttributes{Path:\"", ReviewText(attributes, "path"),
                      "\", Verb:\"", ReviewText(attributes, "verb"), "\"}");
}

}  // namespace

HttpResponse TokenReviewResponse(const HttpRequest& request,
                                 const TokenAuthenticator& authenticate) {
  nlohmann::json review;
  if (std::optional<HttpResponse> bad =
          DecodeReview(request, "TokenReview", "authentication.k8s.io/v1", &review)) {
    return *bad;
  }
  const nlohmann::json& spec = review["spec"];
  const std::string token = ReviewText(spec, "token");
  if (token.empty()) {
    return ErrorResponse(BadRequest("token is required for TokenReview in authentication"));
  }
  nlohmann::json status = {{"user", nlohmann::json::object()}};
  std::optional<UserInfo> user = authenticate(token);
  // Static tokens are valid for the API server's audiences only (kube-apiserver wraps
  // audience-agnostic authenticators so): the requested audiences must include one of them.
  std::vector<std::string> audiences = {kApiAudience};
  const std::vector<std::string> requested = ReviewTexts(spec, "audiences");
  if (!requested.empty()) {
    std::vector<std::string> both;
    for (const std::string& a : requested) {
      if (std::find(audiences.begin(), audiences.end(), a) != audiences.end()) both.push_back(a);
    }
    audiences = both;
  }
  if (user.has_value() && !audiences.empty()) {
    status["authenticated"] = true;
    nlohmann::json u = {{"username", user->name}, {"groups", user->groups}};
    if (!user->uid.empty()) u["uid"] = user->uid;
    status["user"] = u;
    status["audiences"] = audiences;
  }
  review["status"] = status;
  return JsonResponse(201, review);
}

HttpResponse SubjectAccessReviewResponse(const HttpRequest& request, const RbacObjects& rbac,
                                         bool rbac_mode, const KubeVersion& kube) {
  nlohmann::json review;
  if (std::optional<HttpResponse> bad =
          DecodeReview(request, "SubjectAccessReview", "authorization.k8s.io/v1", &review)) {
    return *bad;
  }
  const nlohmann::json& spec = review["spec"];
  auto attributes_of = [&spec](const char* key) -> const nlohmann::json* {
    auto it = spec.find(key);
    return it != spec.end() && it->is_object() ? &*it : nullptr;
  };
  const nlohmann::json* resource = attributes_of("resourceAttributes");
  const nlohmann::json* non_resource = attributes_of("nonResourceAttributes");
  const std::string user_name = ReviewText(spec, "user");
  const std::vector<std::string> groups = ReviewTexts(spec, "groups");

  // kube-apiserver's ValidateSubjectAccessReviewSpec, in its order. From 1.37 the union of the
  // two attribute kinds is checked declaratively and reported on `spec` itself.
  const bool union_on_spec = kube.minor >= 37;
  std::vector<StatusCause> causes;
  if (resource != nullptr && non_resource != nullptr) {
    const std::string value = GoNonResourceAttributes(*non_resource, union_on_spec ? "v1" : "authorization");
    causes.push_back(
        union_on_spec
            ? StatusCause{"FieldValueInvalid",
                          absl::StrCat("Invalid value: ", value,
                                       ": exactly one of nonResourceAttributes or "
                                       "resourceAttributes must be specified"),
                          "spec"}
            : StatusCause{"FieldValueInvalid",
                          absl::StrCat("Invalid value: ", value,
                                       ": cannot be specified in combination with "
                                       "resourceAttributes"),
                          "spec.nonResourceAttributes"});
  }
  if (resource == nullptr && non_resource == nullptr) {
    causes.push_back(FieldInvalid(union_on_spec ? "spec" : "spec.resourceAttributes", nullptr,
                                  "exactly one of nonResourceAttributes or resourceAttributes "
                                  "must be specified"));
  }
  if (user_name.empty() && groups.empty()) {
    causes.push_back(
        FieldInvalid("spec.user", "", "at least one of user or group must be specified"));
  }
  if (!causes.empty()) {
    // kube-apiserver names the kind of the decoded (internal) object, whose TypeMeta conversion
    // leaves empty: the message reads `.authorization.k8s.io "" is invalid: ...`.
    return ErrorResponse(Invalid("", "authorization.k8s.io", "", std::move(causes)));
  }

  UserInfo user{user_name, ReviewText(spec, "uid"), groups};
  RequestAttributes attributes;
  if (resource != nullptr) {
    attributes.resource_request = true;
    attributes.verb = ReviewText(*resource, "verb");
    attributes.group = ReviewText(*resource, "group");
    attributes.version = ReviewText(*resource, "version");
    attributes.resource = ReviewText(*resource, "resource");
    attributes.subresource = ReviewText(*resource, "subresource");
    attributes.ns = ReviewText(*resource, "namespace");
    attributes.name = ReviewText(*resource, "name");
  } else {
    attributes.verb = ReviewText(*non_resource, "verb");
    attributes.path = ReviewText(*non_resource, "path");
  }
  Decision decision = rbac_mode ? Authorize(user, attributes, rbac) : Decision{true, ""};
  nlohmann::json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  review["status"] = status;
  return JsonResponse(201, review);
}

}  // namespace gpuprofile::e2e
