// File: e2e/emulator/read_handlers.cc
// get, list (selectors, pagination, Table) and watch.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "controller/dra/dra_object_codec.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/api_server.h"
#include "e2e/emulator/conversion.h"
#include "e2e/emulator/crd.h"
#include "e2e/emulator/discovery.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/server_util.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/table.h"

namespace gpuprofile::e2e {
namespace {

// The request's label and field selectors, with the field labels `type` supports checked (list
// and watch; the error message is the 400's).
absl::StatusOr<Selectors> RequestSelectors(const HttpRequest& request, const ResourceType& type) {
  absl::StatusOr<Selectors> selectors =
      ParseSelectors(request.Query("labelSelector"), request.Query("fieldSelector"));
  if (!selectors.ok()) return selectors.status();
  if (absl::Status supported = CheckFieldLabels(selectors->fields, type.field_labels);
      !supported.ok()) {
    return supported;
  }
  return selectors;
}

}  // namespace

HttpResponse ApiServer::Get(const HttpRequest& request, const Route& route,
                            const ResourceType& type) {
  ObjectPtr o = store_.Get(type.storage_key, route.ns, route.name);
  if (!o) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json wire = FromStorage(type, route.version, *o);
  if (WantsTable(request.Header("accept"))) {
    nlohmann::json meta = {{"resourceVersion", FieldString(*o, "metadata.resourceVersion")}};
    return JsonResponse(
        200, BuildTable(type, {wire}, meta, request.Query("includeObject"), options_.clock()),
        kTableContentType);
  }
  return JsonResponse(200, wire);
}

HttpResponse ApiServer::List(const HttpRequest& request, const Route& route,
                             const ResourceType& type) {
  absl::StatusOr<Selectors> selectors = RequestSelectors(request, type);
  if (!selectors.ok()) {
    return ErrorResponse(BadRequest(std::string(selectors.status().message())));
  }
  int64_t limit = 0;
  if (request.HasQuery("limit") && !absl::SimpleAtoi(request.Query("limit"), &limit)) {
    return ErrorResponse(BadRequest("invalid limit: " + request.Query("limit")));
  }
  std::string start_ns, start_name;
  uint64_t list_rv = store_.resource_version();
  bool continuing = false;
  if (request.HasQuery("continue") && !request.Query("continue").empty()) {
    uint64_t rv = 0;
    if (!DecodeContinue(request.Query("continue"), &rv, &start_ns, &start_name)) {
      return ErrorResponse(BadRequest("continue key is not valid: illegal base64 data"));
    }
    if (rv < store_.oldest_watchable_rv()) {
      return ErrorResponse(Gone(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue token in "
          "this response to retrieve the remainder of the results. Continuing with the provided "
          "token results in an inconsistent list - objects that were created, modified, or "
          "deleted between the time the first chunk was returned and now may show up in the "
          "list."));
    }
    list_rv = rv;
    continuing = true;
  }
  const bool table = WantsTable(request.Header("accept"));
  // JSON lists are serialized item by item: building one DOM of every item (and copying it
  // into the list object) dominated the time of large lists.
  std::vector<nlohmann::json> items;
  std::string items_text = "[";
  int64_t count = 0;
  std::string next_ns, next_name;
  int64_t remaining = 0;
  // As the API server: remainingItemCount only for lists without selectors, where what remains
  // is counted without converting it; with selectors, the page ends at the first match past
  // the limit (the continue token is then known to be needed).
  const bool selecting = !selectors->labels.empty() || !selectors->fields.empty();
  const std::vector<ObjectPtr> objects = store_.List(
      type.storage_key, route.ns,
      continuing ? std::make_optional(std::make_pair(start_ns, start_name)) : std::nullopt);
  for (size_t i = 0; i < objects.size(); ++i) {
    const ObjectPtr& o = objects[i];
    if (limit > 0 && count >= limit && !selecting) {
      remaining = static_cast<int64_t>(objects.size() - i);
      break;
    }
    std::string ns = NamespaceOf(*o), name = NameOf(*o);
    nlohmann::json wire = FromStorage(type, route.version, *o);
    if (!MatchesLabels(selectors->labels, wire) || !MatchesFields(selectors->fields, wire))
      continue;
    if (limit > 0 && count >= limit) {
      ++remaining;
      break;
    }
    next_ns = ns;
    next_name = name;
    ++count;
    if (table) {
      items.push_back(std::move(wire));
    } else {
      if (count > 1) items_text += ',';
      items_text += wire.dump();
    }
  }
  items_text += ']';
  nlohmann::json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (remaining > 0) {
    meta["continue"] = EncodeContinue(list_rv, next_ns, next_name);
    if (!selecting) meta["remainingItemCount"] = remaining;
  }
  if (table) {
    return JsonResponse(
        200, BuildTable(type, items, meta, request.Query("includeObject"), options_.clock()),
        kTableContentType);
  }
  // The key order nlohmann gives a whole-list dump: apiVersion, items, kind, metadata.
  HttpResponse response = JsonResponse(200, nlohmann::json::object());
  response.body =
      absl::StrCat(R"({"apiVersion":)", nlohmann::json(type.ApiVersion(route.version)).dump(),
                   R"(,"items":)", items_text, R"(,"kind":)", nlohmann::json(type.list_kind).dump(),
                   R"(,"metadata":)", meta.dump(), "}");
  return response;
}

HttpResponse ApiServer::Watch(const HttpRequest& request, const Route& route,
                              const ResourceType& type) {
  absl::StatusOr<Selectors> selectors = RequestSelectors(request, type);
  if (!selectors.ok()) {
    return ErrorResponse(BadRequest(std::string(selectors.status().message())));
  }
  WatchSpec spec;
  spec.type = type;
  spec.version = route.version;
  spec.ns = route.ns;
  spec.labels = std::move(selectors->labels);
  spec.fields = std::move(selectors->fields);
  spec.bookmarks = ParseBool(request.Query("allowWatchBookmarks")).value_or(false);
  absl::Duration timeout = options_.default_watch_timeout;
  if (request.HasQuery("timeoutSeconds")) {
    int64_t seconds = 0;
    if (!absl::SimpleAtoi(request.Query("timeoutSeconds"), &seconds) || seconds < 0) {
      return ErrorResponse(
          BadRequest("invalid timeoutSeconds: " + request.Query("timeoutSeconds")));
    }
    if (seconds > 0) timeout = absl::Seconds(seconds);
  }
  spec.deadline = options_.clock() + timeout;
  std::string rv_text = request.Query("resourceVersion");
  uint64_t from_rv = 0;
  if (!rv_text.empty() && rv_text != "0" && !absl::SimpleAtoi(rv_text, &from_rv)) {
    return ErrorResponse(BadRequest(absl::StrCat("invalid resource version: ", rv_text)));
  }
  HttpResponse r;
  r.content_type = "application/json";
  r.stream = [this, spec = std::move(spec), from_rv](std::shared_ptr<StreamSink> sink) {
    absl::MutexLock lock(&mu_);
    if (from_rv == 0) {
      watches_.Open(spec, std::move(sink), {}, store_.List(spec.type.storage_key, spec.ns),
                    options_.clock());
      return;
    }
    if (from_rv < store_.oldest_watchable_rv()) {
      ApiError gone = Gone(absl::StrCat("too old resource version: ", from_rv, " (",
                                        store_.oldest_watchable_rv(), ")"));
      watches_.Fail(std::move(sink), gone.ToJson());
      return;
    }
    watches_.Open(spec, std::move(sink), store_.EventsSince(spec.type.storage_key, from_rv), {},
                  options_.clock());
  };
  return r;
}

}  // namespace gpuprofile::e2e
