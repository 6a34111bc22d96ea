// File: controller/kube/watcher.cc
#include "controller/kube/watcher.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "controller/kube/api_error.h"
#include "simdjson.h"

namespace gpuprofile::kube {
namespace {

namespace od = simdjson::ondemand;

// What the watcher reads of one event line; views into the line (object) or the parser's
// buffers (type), valid until the next line.
struct Envelope {
  std::string_view type;
  std::string_view object;       // the object's JSON text
  std::string resource_version;  // object.metadata.resourceVersion, "" when absent
};

// Reads {"type": string, "object": object, ...} with simdjson's on-demand API: only the type and
// object.metadata.resourceVersion are decoded, the rest of the object is skipped (checked for
// structure and UTF-8 only; the sink parses it). Members may come in any order; a repeated one
// counts as its last occurrence, as nlohmann would read it. False when the line is not such an
// event. `buffer` holds the line with simdjson's padding.
bool ReadEnvelope(od::parser* parser, std::string* buffer, absl::string_view line, Envelope* out) {
  if (buffer->capacity() < line.size() + simdjson::SIMDJSON_PADDING) {
    buffer->reserve(line.size() + simdjson::SIMDJSON_PADDING);
  }
  buffer->assign(line.data(), line.size());
  od::document doc;
  od::object top;
  if (parser->iterate(buffer->data(), buffer->size(), buffer->capacity()).get(doc) !=
          simdjson::SUCCESS ||
      doc.get_object().get(top) != simdjson::SUCCESS) {
    return false;
  }
  bool has_type = false, has_object = false;
  for (auto top_field : top) {
    od::field field;
    std::string_view key;
    if (std::move(top_field).get(field) != simdjson::SUCCESS ||
        field.unescaped_key().get(key) != simdjson::SUCCESS) {
      return false;
    }
    if (key == "type") {
      has_type = field.value().get_string().get(out->type) == simdjson::SUCCESS;
      if (!has_type) return false;
    } else if (key == "object") {
      od::object object;
      if (field.value().get_object().get(object) != simdjson::SUCCESS) return false;
      out->resource_version.clear();
      for (auto object_field : object) {
        od::field member;
        std::string_view name;
        if (std::move(object_field).get(member) != simdjson::SUCCESS ||
            member.unescaped_key().get(name) != simdjson::SUCCESS) {
          return false;
        }
        if (name != "metadata") continue;
        od::object metadata;
        if (member.value().get_object().get(metadata) != simdjson::SUCCESS) continue;
        for (auto metadata_field : metadata) {
          od::field m;
          std::string_view m_name, rv;
          if (std::move(metadata_field).get(m) != simdjson::SUCCESS ||
              m.unescaped_key().get(m_name) != simdjson::SUCCESS) {
            return false;
          }
          if (m_name == "resourceVersion" && m.value().get_string().get(rv) == simdjson::SUCCESS) {
            out->resource_version = std::string(rv);
          }
        }
      }
      // The object was read to its end: raw_json() gives its text from '{' to the next token.
      std::string_view text;
      if (object.raw_json().get(text) != simdjson::SUCCESS) return false;
      out->object = ClosedObjectText(text);
      if (out->object.empty()) return false;
      has_object = true;
    }
  }
  // Nothing may follow the event.
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return false;
  return has_type && has_object;
}

// The API error an ERROR event's Status object reports; its code is read from `code` when the
// Status has no reason the error parser knows.
ApiError WatchErrorOf(std::string_view object) {
  HttpResponse as_response;
  as_response.body = std::string(object);
  ApiError error = ParseApiError(as_response);
  if (error.code == 0) {
    nlohmann::json status = nlohmann::json::parse(object.begin(), object.end(),
                                                  /*cb=*/nullptr, /*allow_exceptions=*/false);
    if (status.is_object() && status.contains("code") && status["code"].is_number_integer()) {
      error.code = status["code"].get<int>();
    }
  }
  return error;
}

// The resource version the watch started from is too old: list again.
bool Expired(const ApiError& error) {
  return error.code == 410 || error.reason == "Expired" || error.reason == "Gone";
}

// ADDED, MODIFIED, DELETED; nullopt for a type from the future (skipped).
std::optional<runtime::WatchEventType> ObjectEventType(std::string_view type) {
  if (type == "ADDED") return runtime::WatchEventType::kAdded;
  if (type == "MODIFIED") return runtime::WatchEventType::kModified;
  if (type == "DELETED") return runtime::WatchEventType::kDeleted;
  return std::nullopt;
}

}  // namespace

void WatchSink::ListPage(std::vector<nlohmann::json> items) {
  if (pending_.empty()) {
    pending_ = std::move(items);
    return;
  }
  for (nlohmann::json& item : items) pending_.push_back(std::move(item));
}

absl::Status WatchSink::ApplyRaw(runtime::WatchEventType type, absl::string_view object_json) {
  nlohmann::json object = nlohmann::json::parse(object_json.begin(), object_json.end(),
                                                /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return absl::DataLossError(
        absl::StrCat("watch event object is not JSON: ", object_json.substr(0, 200)));
  }
  Apply(type, object);
  return absl::OkStatus();
}

Watcher::Watcher(RestClient* client, WatchSink* sink, WatcherOptions options)
    : client_(client), sink_(sink), options_(std::move(options)) {
  if (options_.idle_timeout <= absl::ZeroDuration()) {
    options_.idle_timeout = absl::Seconds(options_.timeout_seconds) + absl::Seconds(30);
  }
  if (!options_.uniform) {
    options_.uniform = [this] {
      absl::MutexLock lock(&mu_);
      return absl::Uniform<double>(gen_, 0.0, 1.0);
    };
  }
}

void Watcher::Stop() {
  std::shared_ptr<Cancellation> current;
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    current = current_;
  }
  if (current) current->Cancel();
}

bool Watcher::stopping() const {
  absl::MutexLock lock(&mu_);
  return stop_;
}

bool Watcher::HasSynced() const {
  absl::MutexLock lock(&mu_);
  return synced_;
}

bool Watcher::WaitForSync(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  struct Arg {
    const bool* synced;
    const bool* stop;
  };
  Arg arg{&synced_, &stop_};
  const absl::Condition done(
      +[](Arg* a) { return *a->synced || *a->stop; }, &arg);
  while (!synced_ && !stop_ && options_.clock->Now() < deadline) {
    options_.clock->AwaitWithDeadline(&mu_, done, deadline);
  }
  return synced_;
}

WatcherStats Watcher::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::Status Watcher::last_error() const {
  absl::MutexLock lock(&mu_);
  return last_error_;
}

std::string Watcher::resource_version() const {
  absl::MutexLock lock(&mu_);
  return rv_;
}

void Watcher::RecordFailure(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  ++stats_.failures;
  last_error_ = status;
}

bool Watcher::Wait(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  const absl::Time deadline = options_.clock->Now() + d;
  while (!stop_ && options_.clock->Now() < deadline) {
    options_.clock->AwaitWithDeadline(&mu_, absl::Condition(&stop_), deadline);
  }
  return !stop_;
}

absl::Status Watcher::List() {
  ListOptions list_options;
  list_options.label_selector = options_.label_selector;
  list_options.field_selector = options_.field_selector;
  list_options.limit = options_.page_size;
  // Pages go to the sink as they arrive (a relist of 20,000 objects never sits in memory as JSON
  // all at once).
  sink_->BeginList();
  absl::StatusOr<std::string> resource_version =
      sink_->TakesRawPages()
          ? client_->ListPagesRaw(
                options_.collection, list_options,
                [this](RawListPage page) { sink_->ListPageRaw(page); },
                [this] { sink_->BeginList(); })
          : client_->ListPages(
                options_.collection, list_options,
                [this](ObjectList page) { sink_->ListPage(std::move(page.items)); },
                [this] { sink_->BeginList(); });
  if (!resource_version.ok()) return resource_version.status();
  resource_version_ = *std::move(resource_version);
  sink_->EndList();
  absl::MutexLock lock(&mu_);
  ++stats_.lists;
  synced_ = true;
  rv_ = resource_version_;
  return absl::OkStatus();
}

// One watch request's reading state: the parser and buffers reused line after line, and what the
// lines said.
struct Watcher::WatchPass {
  od::parser parser;
  std::string buffer;
  Envelope event;
  bool progressed = false;
  bool gone = false;  // the server said the resource version is too old
  absl::Status stream_error;
  int64_t undecodable = 0;
};

bool Watcher::ReadLine(WatchPass* pass, absl::string_view line) {
  // Size and nesting first (input_limits.h), before any parser or decoder sees the event.
  if (absl::Status s =
          limits::CheckJsonText(line, absl::StrCat("watch event of ", options_.collection.Path()),
                                limits::kMaxWatchEventBytes);
      !s.ok()) {
    ++pass->undecodable;
    pass->stream_error = absl::DataLossError(s.message());
    return false;
  }
  Envelope& event = pass->event;
  if (!ReadEnvelope(&pass->parser, &pass->buffer, line, &event)) {
    ++pass->undecodable;
    pass->stream_error = absl::DataLossError(
        absl::StrCat("watch event is not {type, object}: ", line.substr(0, 200)));
    return false;  // a corrupt stream cannot be trusted further: resume from the last version
  }
  if (event.type == "ERROR") {
    const ApiError error = WatchErrorOf(event.object);
    if (Expired(error)) {
      pass->gone = true;
    } else {
      pass->stream_error = ApiErrorStatus(error, "watch", options_.collection.Path());
    }
    return false;
  }
  const bool bookmark = event.type == "BOOKMARK";
  if (!bookmark) {
    const std::optional<runtime::WatchEventType> type = ObjectEventType(event.type);
    if (!type.has_value()) {
      ++pass->undecodable;
      return true;  // an event type from the future: skip it
    }
    absl::Status applied =
        sink_->ApplyRaw(*type, absl::string_view(event.object.data(), event.object.size()));
    if (!applied.ok()) {
      ++pass->undecodable;
      pass->stream_error = std::move(applied);
      return false;  // as a corrupt line
    }
  }
  pass->progressed = true;
  if (!event.resource_version.empty()) resource_version_ = event.resource_version;
  absl::MutexLock lock(&mu_);
  ++(bookmark ? stats_.bookmarks : stats_.events);
  rv_ = resource_version_;
  return true;
}

Watcher::WatchEnd Watcher::WatchOnce(bool* progressed) {
  auto cancel = std::make_shared<Cancellation>();
  {
    absl::MutexLock lock(&mu_);
    if (stop_) return WatchEnd::kStopped;
    current_ = cancel;
    ++stats_.watches;
  }
  WatchOptions watch;
  watch.label_selector = options_.label_selector;
  watch.field_selector = options_.field_selector;
  watch.resource_version = resource_version_;
  watch.allow_bookmarks = true;
  watch.timeout_seconds = options_.timeout_seconds;
  watch.idle_timeout = options_.idle_timeout;

  WatchPass pass;
  absl::Status status = client_->Watch(
      options_.collection, watch,
      [this, &pass](absl::string_view line) { return ReadLine(&pass, line); }, cancel.get());
  if (pass.progressed) *progressed = true;
  {
    absl::MutexLock lock(&mu_);
    current_.reset();
    stats_.undecodable += pass.undecodable;
    if (stop_) return WatchEnd::kStopped;
  }
  if (pass.gone || apierrors::IsGone(status)) return WatchEnd::kGone;
  if (!pass.stream_error.ok()) {
    RecordFailure(pass.stream_error);
    return WatchEnd::kFailed;
  }
  if (!status.ok()) {
    RecordFailure(status);
    return WatchEnd::kFailed;
  }
  return WatchEnd::kClosed;
}

void Watcher::Run() {
  runtime::Backoff backoff(options_.backoff, options_.uniform);
  bool need_list = true;
  while (!stopping()) {
    if (need_list) {
      absl::Status listed = List();
      if (!listed.ok()) {
        if (stopping()) break;
        RecordFailure(listed);
        if (!Wait(backoff.Next())) break;
        continue;
      }
      need_list = false;
      backoff.Reset();  // the server answers again
    }
    bool progressed = false;
    const WatchEnd end = WatchOnce(&progressed);
    if (progressed) backoff.Reset();
    switch (end) {
      case WatchEnd::kStopped:
        return;
      case WatchEnd::kGone: {
        // The version to resume from was compacted away: list again. Right away after a watch
        // that made progress; after a backoff when even a fresh list's version was gone.
        need_list = true;
        {
          absl::MutexLock lock(&mu_);
          ++stats_.relists_gone;
        }
        if (progressed) continue;
        break;
      }
      case WatchEnd::kClosed:
        // The server ended the stream (timeoutSeconds, restart): resume at once if it was
        // delivering; a stream that ends without a word every time is not hammered.
        if (progressed) continue;
        break;
      case WatchEnd::kFailed:
        break;
    }
    if (!Wait(backoff.Next())) break;
  }
}

}  // namespace gpuprofile::kube
