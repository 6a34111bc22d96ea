// File: controller/kube/metrics_auth.cc
#include "controller/kube/metrics_auth.h"

#include <openssl/evp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpuprofile::kube {
namespace {

const ResourcePath kTokenReviews{"authentication.k8s.io", "v1", "tokenreviews", "", "", ""};
const ResourcePath kSubjectAccessReviews{"authorization.k8s.io", "v1", "subjectaccessreviews",
                                         "",  "",   ""};

// SHA-256 of `text`, as raw bytes (a cache key that does not keep the secret).
std::string MetricsAuthDigest(absl::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    // Hashing cannot fail for SHA-256 on memory; keep a key that is still exact if it did.
    return absl::StrCat("raw:", text);
  }
  return std::string(reinterpret_cast<const char*>(digest), size);
}

absl::Status ReviewFieldError(absl::string_view kind, absl::string_view field,
                              absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat(kind, " answer: ", field, " is not ", want));
}

// The string at `key` of `object`: "" when absent or null; an error when of another type.
absl::StatusOr<std::string> ReviewString(const nlohmann::json& object, const char* key,
                                         absl::string_view kind, absl::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return ReviewFieldError(kind, field, "a string");
  return it->get<std::string>();
}

absl::StatusOr<bool> ReviewBool(const nlohmann::json& object, const char* key,
                                absl::string_view kind, absl::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return false;
  if (!it->is_boolean()) return ReviewFieldError(kind, field, "a boolean");
  return it->get<bool>();
}

absl::StatusOr<std::vector<std::string>> ReviewStrings(const nlohmann::json& value,
                                                       absl::string_view kind,
                                                       absl::string_view field) {
  std::vector<std::string> out;
  if (value.is_null()) return out;
  if (!value.is_array()) return ReviewFieldError(kind, field, "a list of strings");
  for (const nlohmann::json& item : value) {
    if (!item.is_string()) return ReviewFieldError(kind, field, "a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// The object under `status`, checking kind and apiVersion.
absl::StatusOr<const nlohmann::json*> ReviewStatus(const nlohmann::json& review,
                                                   absl::string_view kind,
                                                   absl::string_view api_version) {
  if (!review.is_object()) return ReviewFieldError(kind, "the body", "an object");
  if (review.value("kind", "") != kind || review.value("apiVersion", "") != api_version) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " answer: kind/apiVersion is \"", review.value("kind", ""), "\"/\"",
                     review.value("apiVersion", ""), "\", want \"", kind, "\"/\"", api_version,
                     "\""));
  }
  auto it = review.find("status");
  if (it == review.end() || !it->is_object()) return ReviewFieldError(kind, "status", "an object");
  return &*it;
}

// Go's http.Error: the message and a newline, as text.
MetricsAuthVerdict Refuse(int status, std::string message) {
  return MetricsAuthVerdict{status, std::move(message) + "\n"};
}

}  // namespace

std::optional<std::string> BearerTokenOf(const std::string& authorization) {
  std::string header(absl::StripAsciiWhitespace(authorization));
  std::vector<std::string> parts = absl::StrSplit(header, absl::MaxSplits(' ', 2));
  if (parts.size() < 2 || absl::AsciiStrToLower(parts[0]) != "bearer" || parts[1].empty()) {
    return std::nullopt;
  }
  return parts[1];
}

nlohmann::json TokenReviewBody(const std::string& token) {
  return {{"apiVersion", "authentication.k8s.io/v1"},
          {"kind", "TokenReview"},
          {"spec", {{"token", token}}}};
}

absl::StatusOr<TokenReviewOutcome> DecodeTokenReview(const nlohmann::json& review) {
  constexpr absl::string_view kKind = "TokenReview";
  absl::StatusOr<const nlohmann::json*> status =
      ReviewStatus(review, kKind, "authentication.k8s.io/v1");
  if (!status.ok()) return status.status();
  TokenReviewOutcome out;
  absl::StatusOr<bool> authenticated =
      ReviewBool(**status, "authenticated", kKind, "status.authenticated");
  if (!authenticated.ok()) return authenticated.status();
  out.authenticated = *authenticated;
  absl::StatusOr<std::string> error = ReviewString(**status, "error", kKind, "status.error");
  if (!error.ok()) return error.status();
  out.error = *error;
  const nlohmann::json user = (*status)->value("user", nlohmann::json::object());
  if (!user.is_object()) return ReviewFieldError(kKind, "status.user", "an object");
  absl::StatusOr<std::string> name = ReviewString(user, "username", kKind, "status.user.username");
  if (!name.ok()) return name.status();
  absl::StatusOr<std::string> uid = ReviewString(user, "uid", kKind, "status.user.uid");
  if (!uid.ok()) return uid.status();
  absl::StatusOr<std::vector<std::string>> groups =
      ReviewStrings(user.value("groups", nlohmann::json()), kKind, "status.user.groups");
  if (!groups.ok()) return groups.status();
  out.user = ReviewedUser{*name, *uid, *groups, {}};
  const nlohmann::json extra = user.value("extra", nlohmann::json::object());
  if (!extra.is_object() && !extra.is_null()) {
    return ReviewFieldError(kKind, "status.user.extra", "an object");
  }
  if (extra.is_object()) {
    for (const auto& [key, values] : extra.items()) {
      absl::StatusOr<std::vector<std::string>> v =
          ReviewStrings(values, kKind, absl::StrCat("status.user.extra[", key, "]"));
      if (!v.ok()) return v.status();
      out.user.extra[key] = *std::move(v);
    }
  }
  if (out.authenticated && out.user.username.empty()) {
    return ReviewFieldError(kKind, "status.user.username", "set although authenticated");
  }
  return out;
}

nlohmann::json SubjectAccessReviewBody(const ReviewedUser& user, const std::string& verb,
                                       const std::string& path) {
  nlohmann::json spec = {{"user", user.username},
                         {"groups", user.groups},
                         {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  return {{"apiVersion", "authorization.k8s.io/v1"},
          {"kind", "SubjectAccessReview"},
          {"spec", spec}};
}

absl::StatusOr<AccessReviewOutcome> DecodeSubjectAccessReview(const nlohmann::json& review) {
  constexpr absl::string_view kKind = "SubjectAccessReview";
  absl::StatusOr<const nlohmann::json*> status =
      ReviewStatus(review, kKind, "authorization.k8s.io/v1");
  if (!status.ok()) return status.status();
  AccessReviewOutcome out;
  absl::StatusOr<bool> allowed = ReviewBool(**status, "allowed", kKind, "status.allowed");
  if (!allowed.ok()) return allowed.status();
  absl::StatusOr<bool> denied = ReviewBool(**status, "denied", kKind, "status.denied");
  if (!denied.ok()) return denied.status();
  absl::StatusOr<std::string> reason = ReviewString(**status, "reason", kKind, "status.reason");
  if (!reason.ok()) return reason.status();
  absl::StatusOr<std::string> evaluation =
      ReviewString(**status, "evaluationError", kKind, "status.evaluationError");
  if (!evaluation.ok()) return evaluation.status();
  out.allowed = *allowed;
  out.denied = *denied;
  out.reason = *reason;
  out.evaluation_error = *evaluation;
  if (out.allowed && out.denied) {
    return ReviewFieldError(kKind, "status.allowed/status.denied", "consistent (both true)");
  }
  return out;
}

MetricsAuthorizer::MetricsAuthorizer(MetricsAuthOptions options)
    : options_(std::move(options)),
      tokens_(options_.max_entries),
      decisions_(options_.max_entries) {}

int64_t MetricsAuthorizer::token_reviews() const {
  absl::MutexLock lock(&mu_);
  return token_reviews_;
}

int64_t MetricsAuthorizer::access_reviews() const {
  absl::MutexLock lock(&mu_);
  return access_reviews_;
}

MetricsAuthVerdict MetricsAuthorizer::Check(const std::string& authorization,
                                            const std::string& verb, const std::string& path) {
  auto log_error = [this](const std::string& message, const std::vector<std::pair<std::string,
                                                                                  std::string>>&
                                                          fields) {
    if (options_.log_error) options_.log_error(message, fields);
  };
  std::optional<std::string> token = BearerTokenOf(authorization);
  if (!token) return Refuse(401, "Unauthorized");

  // Authentication.
  const std::string token_key = MetricsAuthDigest(*token);
  std::optional<TokenReviewOutcome> identity = tokens_.Get(token_key, options_.clock->Now());
  if (!identity) {
    {
      absl::MutexLock lock(&mu_);
      ++token_reviews_;
    }
    absl::StatusOr<nlohmann::json> answer =
        options_.client->Create(kTokenReviews, TokenReviewBody(*token));
    absl::StatusOr<TokenReviewOutcome> decoded =
        answer.ok() ? DecodeTokenReview(*answer) : absl::StatusOr<TokenReviewOutcome>(answer.status());
    if (!decoded.ok()) {
      log_error("metrics: the TokenReview failed; answering 500",
                {{"path", path}, {"error", decoded.status().ToString()}});
      return Refuse(500, "Authentication failed");
    }
    identity = *std::move(decoded);
    tokens_.Put(token_key, *identity, options_.token_ttl, options_.clock->Now());
  }
  if (!identity->authenticated) return Refuse(401, "Unauthorized");

  // Authorization of the user the token names, for this path and verb.
  const ReviewedUser& user = identity->user;
  std::string decision_text = absl::StrCat(user.username, "\n", user.uid, "\n", verb, "\n", path);
  for (const std::string& g : user.groups) absl::StrAppend(&decision_text, "\ng:", g);
  for (const auto& [k, values] : user.extra) {
    absl::StrAppend(&decision_text, "\ne:", k);
    for (const std::string& v : values) absl::StrAppend(&decision_text, "\nv:", v);
  }
  const std::string decision_key = MetricsAuthDigest(decision_text);
  std::optional<bool> allowed = decisions_.Get(decision_key, options_.clock->Now());
  if (!allowed) {
    {
      absl::MutexLock lock(&mu_);
      ++access_reviews_;
    }
    absl::StatusOr<nlohmann::json> answer =
        options_.client->Create(kSubjectAccessReviews, SubjectAccessReviewBody(user, verb, path));
    absl::StatusOr<AccessReviewOutcome> decoded =
        answer.ok() ? DecodeSubjectAccessReview(*answer)
                    : absl::StatusOr<AccessReviewOutcome>(answer.status());
    if (!decoded.ok()) {
      log_error("metrics: the SubjectAccessReview failed; answering 500",
                {{"user", user.username}, {"path", path}, {"error", decoded.status().ToString()}});
      return Refuse(500, absl::StrCat("Authorization for user ", user.username, " failed"));
    }
    allowed = decoded->allowed;
    decisions_.Put(decision_key, *allowed, *allowed ? options_.allow_ttl : options_.deny_ttl,
                   options_.clock->Now());
  }
  if (!*allowed) return Refuse(403, absl::StrCat("Authorization denied for user ", user.username));
  return MetricsAuthVerdict{};
}

EndpointHandlers WithMetricsAuth(EndpointHandlers handlers, MetricsAuthorizer* auth) {
  EndpointHandlers out;
  for (auto& [path, handler] : handlers) {
    out[path] = [auth, inner = std::move(handler)](const EndpointRequest& request) {
      MetricsAuthVerdict verdict =
          auth->Check(request.authorization, absl::AsciiStrToLower(request.method), request.path);
      if (verdict.status != 0) {
        return EndpointResponse{verdict.status, "text/plain; charset=utf-8",
                                std::move(verdict.body)};
      }
      return inner(request);
    };
  }
  return out;
}

}  // namespace gpuprofile::kube
