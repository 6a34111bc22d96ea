// File: controller/kube/watcher.cc
#include "controller/kube/watcher.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/kube/api_error.h"

namespace gpuprofile::kube {
namespace {

std::string ResourceVersionOf(const nlohmann::json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto rv = meta->find("resourceVersion");
  return rv != meta->end() && rv->is_string() ? rv->get<std::string>() : "";
}

}  // namespace

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
  const absl::Condition done(+[](Arg* a) { return *a->synced || *a->stop; }, &arg);
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
  absl::StatusOr<ObjectList> list = client_->ListAll(options_.collection, list_options);
  if (!list.ok()) return list.status();
  resource_version_ = list->resource_version;
  sink_->Replace(std::move(list->items));
  absl::MutexLock lock(&mu_);
  ++stats_.lists;
  synced_ = true;
  rv_ = resource_version_;
  return absl::OkStatus();
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

  bool gone = false;
  absl::Status stream_error;
  int64_t undecodable = 0;
  auto on_line = [&](absl::string_view line) -> bool {
    nlohmann::json event = nlohmann::json::parse(line.begin(), line.end(), nullptr,
                                                 /*allow_exceptions=*/false);
    auto type_it = event.is_object() ? event.find("type") : event.end();
    auto object_it = event.is_object() ? event.find("object") : event.end();
    if (type_it == event.end() || !type_it->is_string() || object_it == event.end() ||
        !object_it->is_object()) {
      ++undecodable;
      stream_error = absl::DataLossError(
          absl::StrCat("watch event is not {type, object}: ", line.substr(0, 200)));
      return false;  // a corrupt stream cannot be trusted further: resume from the last version
    }
    const std::string& type = type_it->get_ref<const std::string&>();
    const nlohmann::json& object = *object_it;
    if (type == "ERROR") {
      HttpResponse as_response;
      as_response.body = object.dump();
      ApiError error = ParseApiError(as_response);
      if (error.code == 0 && object.contains("code") && object["code"].is_number_integer()) {
        error.code = object["code"].get<int>();
      }
      if (error.code == 410 || error.reason == "Expired" || error.reason == "Gone") {
        gone = true;
      } else {
        stream_error = ApiErrorStatus(error, "watch", options_.collection.Path());
      }
      return false;
    }
    const std::string rv = ResourceVersionOf(object);
    const bool bookmark = type == "BOOKMARK";
    if (!bookmark) {
      runtime::WatchEventType t;
      if (type == "ADDED") {
        t = runtime::WatchEventType::kAdded;
      } else if (type == "MODIFIED") {
        t = runtime::WatchEventType::kModified;
      } else if (type == "DELETED") {
        t = runtime::WatchEventType::kDeleted;
      } else {
        ++undecodable;
        return true;  // an event type from the future: skip it
      }
      sink_->Apply(t, object);
    }
    *progressed = true;
    if (!rv.empty()) resource_version_ = rv;
    absl::MutexLock lock(&mu_);
    ++(bookmark ? stats_.bookmarks : stats_.events);
    rv_ = resource_version_;
    return true;
  };
  absl::Status status = client_->Watch(options_.collection, watch, on_line, cancel.get());
  {
    absl::MutexLock lock(&mu_);
    current_.reset();
    stats_.undecodable += undecodable;
    if (stop_) return WatchEnd::kStopped;
  }
  if (gone || apierrors::IsGone(status)) return WatchEnd::kGone;
  if (!stream_error.ok()) {
    RecordFailure(stream_error);
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
