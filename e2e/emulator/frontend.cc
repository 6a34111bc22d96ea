// File: e2e/emulator/frontend.cc
#include "e2e/emulator/frontend.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/review_handlers.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

absl::StatusOr<FaultConfig> ParseFaults(const std::string& spec) {
  FaultConfig config;
  for (absl::string_view part : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    std::vector<std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("--faults: expected key=value, got \"", std::string(part), "\""));
    }
    const std::string& key = kv[0];
    const std::string& value = kv[1];
    bool ok = true;
    if (key == "error-rate") {
      ok = absl::SimpleAtod(value, &config.error_fraction) && config.error_fraction >= 0 &&
           config.error_fraction <= 1;
    } else if (key == "error-code") {
      ok = absl::SimpleAtoi(value, &config.error_code) &&
           (config.error_code == 500 || config.error_code == 429 || config.error_code == 409);
    } else if (key == "retry-after") {
      ok = absl::SimpleAtoi(value, &config.retry_after_seconds) && config.retry_after_seconds > 0;
    } else if (key == "error-resource") {
      config.error_resource = value;
      ok = !value.empty();
    } else if (key == "latency") {
      ok = absl::ParseDuration(value, &config.latency);
    } else if (key == "drop-watches-every") {
      ok = absl::ParseDuration(value, &config.drop_watches_every);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--faults: unknown key \"", key,
                       "\" (known: error-rate, error-code, retry-after, error-resource, latency, "
                       "drop-watches-every)"));
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("--faults: invalid value for ", key, ": \"", value, "\""));
    }
  }
  return config;
}

std::string RequestVerb(const HttpRequest& request) {
  std::vector<std::string> parts = absl::StrSplit(request.path, '/', absl::SkipEmpty());
  size_t skip = 0;
  if (parts.size() >= 2 && parts[0] == "api") skip = 2;
  if (parts.size() >= 3 && parts[0] == "apis") skip = 3;
  std::string method = request.method;
  for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (skip == 0 || parts.size() <= skip) return method;
  std::vector<std::string> rest(parts.begin() + static_cast<long>(skip), parts.end());
  if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" && rest[2] != "finalize") {
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  bool named = rest.size() >= 2;
  if (request.method == "GET") {
    if (named) return "get";
    std::string w = request.Query("watch");
    return (w == "true" || w == "1" || w == "True" || w == "t") ? "watch" : "list";
  }
  if (request.method == "POST") return "create";
  if (request.method == "PUT") return "update";
  if (request.method == "PATCH") return "patch";
  if (request.method == "DELETE") return named ? "delete" : "deletecollection";
  return method;
}

Frontend::Frontend(ApiServer* server, FaultConfig faults, std::string audit_path,
                   std::string state_path)
    : server_(server),
      audit_path_(std::move(audit_path)),
      state_path_(std::move(state_path)),
      faults_(faults) {}

Frontend::~Frontend() {
  if (audit_) std::fclose(audit_);
}

absl::Status Frontend::Open() {
  if (audit_path_.empty()) return absl::OkStatus();
  audit_ = std::fopen(audit_path_.c_str(), "a");
  if (!audit_) {
    return absl::UnavailableError(
        absl::StrCat("--audit-log ", audit_path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status Frontend::SaveState() {
  if (state_path_.empty()) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(state_mu_);
  std::string text = server_->Snapshot().dump();
  std::string tmp = state_path_ + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(tmp, ": ", std::strerror(errno)));
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      ::close(fd);
      return absl::UnavailableError(absl::StrCat(tmp, ": ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), state_path_.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(state_path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

HttpResponse Frontend::Admin(const HttpRequest& request) {
  if (request.method != "POST" && request.method != "GET") {
    return ErrorResponse(MethodNotSupported({}, request.method));
  }
  if (request.path == "/emulator/watches/drop") {
    server_->CloseAllWatches();
  } else if (request.path == "/emulator/compact") {
    server_->CompactHistory();
  } else if (request.path == "/emulator/faults") {
    if (request.method == "POST") {
      absl::StatusOr<FaultConfig> parsed = ParseFaults(request.body);
      if (!parsed.ok()) return ErrorResponse(BadRequest(std::string(parsed.status().message())));
      std::lock_guard<std::mutex> lock(mu_);
      faults_ = *parsed;
      last_drop_ = absl::Now();
    }
  } else if (request.path == "/emulator/runtime-config") {
    // "resource.k8s.io/v1=true,resource.k8s.io/v1alpha3=false", as --runtime-config.
    std::map<std::string, bool> changes;
    for (absl::string_view part : absl::StrSplit(request.body, ',', absl::SkipWhitespace())) {
      std::vector<std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
      std::string key(absl::StripAsciiWhitespace(kv[0]));
      std::string value = kv.size() == 2 ? std::string(absl::StripAsciiWhitespace(kv[1])) : "true";
      if (value != "true" && value != "false") {
        return ErrorResponse(
            BadRequest(absl::StrCat("runtime-config: ", key, "=", value, " (true or false)")));
      }
      changes[key] = value == "true";
    }
    if (request.method == "POST") {
      if (absl::Status s = server_->SetRuntimeConfig(changes); !s.ok()) {
        return ErrorResponse(BadRequest(std::string(s.message())));
      }
    }
  } else {
    return ErrorResponse(PathNotFound());
  }
  return JsonResponse(200, {{"ok", true}});
}

RbacObjects Frontend::Rbac() const {
  RbacObjects rbac;
  rbac.roles = server_->Objects("roles.rbac.authorization.k8s.io");
  rbac.cluster_roles = server_->Objects("clusterroles.rbac.authorization.k8s.io");
  rbac.role_bindings = server_->Objects("rolebindings.rbac.authorization.k8s.io");
  rbac.cluster_role_bindings = server_->Objects("clusterrolebindings.rbac.authorization.k8s.io");
  return rbac;
}

HttpResponse Frontend::Review(const HttpRequest& request) const {
  if (request.path == kTokenReviewsPath) {
    return TokenReviewResponse(request, [this](const std::string& token) {
      auto it = auth_.tokens.find(token);
      return it == auth_.tokens.end() ? std::optional<UserInfo>() : it->second;
    });
  }
  return SubjectAccessReviewResponse(request, Rbac(), auth_.rbac, server_->kube_version());
}

std::optional<HttpResponse> Frontend::Authorize(const HttpRequest& request, UserInfo& user) const {
  user = UserInfo{"admin", "", {"system:masters", "system:authenticated"}};
  if (!auth_.authenticate) return std::nullopt;
  std::optional<std::string> token = BearerToken(request);
  auto it = token ? auth_.tokens.find(*token) : auth_.tokens.end();
  if (!token.has_value() && auth_.client_certificate_user.has_value()) {
    user = *auth_.client_certificate_user;
  } else if (it == auth_.tokens.end()) {
    user = UserInfo{};
    return ErrorResponse(UnauthorizedError());
  } else {
    user = it->second;
  }
  if (!auth_.rbac) return std::nullopt;
  RequestAttributes attributes = AttributesFor(request);
  Decision decision = e2e::Authorize(user, attributes, Rbac());
  if (decision.allowed) return std::nullopt;
  return ErrorResponse(ForbiddenError(user, attributes, decision.reason));
}

HttpResponse Frontend::Handle(const HttpRequest& request) {
  absl::Time start = absl::Now();
  HttpResponse response;
  UserInfo user;
  bool api = request.path.rfind("/api", 0) == 0;
  if (request.path.rfind("/emulator/", 0) == 0) {
    user.name = "admin";
    response = Admin(request);
  } else if (std::optional<HttpResponse> denied = Authorize(request, user)) {
    response = std::move(*denied);
  } else {
    FaultConfig faults;
    bool fail = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      faults = faults_;
      if (api && faults.error_fraction > 0 &&
          (faults.error_resource.empty() ||
           AttributesFor(request).resource == faults.error_resource)) {
        fail = std::uniform_real_distribution<double>(0, 1)(random_) < faults.error_fraction;
      }
    }
    if (api && faults.latency > absl::ZeroDuration()) {
      std::this_thread::sleep_for(absl::ToChronoMicroseconds(faults.latency));
    }
    if (fail) {
      if (faults.error_code == 429) {
        response = ErrorResponse(TooManyRequests(faults.retry_after_seconds));
      } else if (faults.error_code == 409) {
        response = ErrorResponse(Conflict({"", "objects"}, "injected",
                                          "the object has been modified; please apply your "
                                          "changes to the latest version and try again"));
      } else {
        response = ErrorResponse(InternalError("injected fault"));
      }
    } else if (request.method == "POST" &&
               (request.path == kTokenReviewsPath || request.path == kSubjectAccessReviewsPath)) {
      response = Review(request);  // never stored, so no state to save
    } else {
      response = server_->Handle(request);
      bool write = request.method == "POST" || request.method == "PUT" ||
                   request.method == "PATCH" || request.method == "DELETE";
      if (write && response.status < 300 && !request.HasQuery("dryRun")) {
        if (absl::Status saved = SaveState(); !saved.ok()) {
          response = ErrorResponse(InternalError(std::string(saved.message())));
        }
      }
    }
  }
  if (audit_) {
    nlohmann::json line = {{"verb", RequestVerb(request)},
                           {"path", request.path},
                           {"user", user.name},
                           {"code", response.status},
                           {"latencyMs", absl::ToDoubleMilliseconds(absl::Now() - start)},
                           // When the request arrived (Unix seconds), as the real audit log's
                           // requestReceivedTimestamp: benchmarks draw their timelines from it.
                           {"receivedAt", absl::ToDoubleSeconds(start - absl::UnixEpoch())}};
    std::lock_guard<std::mutex> lock(mu_);
    std::fputs((line.dump() + "\n").c_str(), audit_);
    std::fflush(audit_);
  }
  return response;
}

void Frontend::Tick() {
  bool drop = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (faults_.drop_watches_every > absl::ZeroDuration() &&
        absl::Now() - last_drop_ >= faults_.drop_watches_every) {
      last_drop_ = absl::Now();
      drop = true;
    }
  }
  if (drop) server_->CloseAllWatches();
}

}  // namespace gpuprofile::e2e
