// File: controller/kube/watcher.h
// Keeps a cache equal to the server's content of one collection, as kube-rs' watcher and
// client-go's reflector do:
//   1. list every page (limit / continue); hand the whole content to the sink (Replace), which
//      makes objects deleted while disconnected disappear; the collection is now synced;
//   2. watch from the list's resourceVersion with allowWatchBookmarks and a server-side
//      timeoutSeconds; hand every event to the sink (Apply) and remember the last
//      resourceVersion seen (bookmarks included);
//   3. when the stream ends (server timeout, dropped connection, idle timeout: nothing for
//      idle_timeout), watch again from the last resourceVersion, so nothing is missed and nothing
//      is listed again;
//   4. when the server says that version is gone (HTTP 410, or an ERROR event with code 410:
//      compacted history), list again from scratch (back to 1);
//   5. between failures, wait runtime::Backoff (kube-rs' 0.8 s doubling to 30 s, jittered); a
//      successful list or a watch that delivered events resets it. A stream that ends cleanly
//      after delivering events is resumed at once; one that delivered nothing waits first.
// Stop() ends the loop: an open stream is cancelled and a backoff wait cut short.
//
// WatchSink receives JSON; kube::Reflector<T> (reflector.h) decodes it into a runtime::Store<T>
// and tells handlers; kube::Informer runs a Watcher feeding one.
//
// Watch events are not parsed into a DOM: the watcher reads only the envelope of each line with
// simdjson (type, object.metadata.resourceVersion, and an ERROR's Status) and hands the object's
// JSON text to WatchSink::ApplyRaw. Its default parses the text with nlohmann::json and calls
// Apply, so sinks that only implement Apply work unchanged; a sink with a faster decoder
// overrides ApplyRaw (a Reflector with a raw decoder does). A line whose envelope is not
// {"type": string, "object": object}, or whose object the sink reports as not JSON, counts as
// undecodable and ends the stream (resumed from the last version seen).
//
// Thread-safety: Run() runs on one thread (the sink is called only from it); Stop(), HasSynced(),
// stats() and last_error() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/http_transport.h"
#include "controller/kube/raw_list.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/backoff.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/store.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // The whole content after a (re)list; items carry apiVersion and kind.
  virtual void Replace(std::vector<nlohmann::json> items) = 0;
  // A (re)list as it arrives, page by page: BeginList, ListPage for each page in order (after
  // BeginList again if the list restarts), then EndList once every page is in. The content must
  // change only at EndList (a list that fails part-way changes nothing). Sinks that keep large
  // collections override these to decode each page as it comes instead of holding every page's
  // JSON; the defaults collect the items and call Replace.
  virtual void BeginList() { pending_.clear(); }
  virtual void ListPage(std::vector<nlohmann::json> items);
  virtual void EndList() { Replace(std::exchange(pending_, {})); }
  // Sinks that decode objects from their JSON text return true, and then get each page of a
  // (re)list as text (ListPageRaw) instead of ListPage.
  virtual bool TakesRawPages() const { return false; }
  virtual void ListPageRaw(const RawListPage& page) { (void)page; }
  // One watch event (never BOOKMARK or ERROR; those are the watcher's).
  virtual void Apply(runtime::WatchEventType type, const nlohmann::json& object) = 0;
  // One watch event as the JSON text of its object (valid for the duration of the call). Returns
  // DataLoss when the text is not JSON (the watcher then distrusts the stream); an object that is
  // JSON but does not decode is the sink's to skip, with OK. The default parses the text with
  // nlohmann::json and calls Apply.
  virtual absl::Status ApplyRaw(runtime::WatchEventType type, absl::string_view object_json);

 private:
  std::vector<nlohmann::json> pending_;  // the default BeginList / ListPage / EndList
};

struct WatcherOptions {
  ResourcePath collection;  // no name; namespace_name empty for all namespaces
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
  // The server ends each watch after this long (client-go picks 5-10 minutes).
  int64_t timeout_seconds = 300;
  // A stream with nothing (not even a bookmark) for this long is considered dead. Zero:
  // timeout_seconds + 30 s (the server ends the stream first, unless the connection is dead).
  absl::Duration idle_timeout = absl::ZeroDuration();
  runtime::BackoffOptions backoff;  // kube-rs' defaults: 0.8 s -> 30 s, jitter 1
  runtime::Clock* clock = runtime::RealClock::Default();
  // Jitter source; null: a process-seeded generator.
  runtime::Backoff::UniformSource uniform;
};

struct WatcherStats {
  int64_t lists = 0;         // completed (re)lists
  int64_t relists_gone = 0;  // relists caused by 410
  int64_t watches = 0;       // watch streams opened
  int64_t events = 0;        // ADDED / MODIFIED / DELETED applied
  int64_t bookmarks = 0;
  int64_t failures = 0;     // failed lists or watches (then backoff)
  int64_t undecodable = 0;  // lines or objects that did not decode
};

class Watcher {
 public:
  // `client` and `sink` must outlive the watcher.
  Watcher(RestClient* client, WatchSink* sink, WatcherOptions options);
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // The list/watch loop; returns after Stop().
  void Run();
  // Idempotent; may be called before Run (which then returns at once).
  void Stop();

  bool HasSynced() const;
  // Blocks until synced or stopped or `deadline` (on the watcher's clock); returns HasSynced().
  bool WaitForSync(absl::Time deadline);
  WatcherStats stats() const;
  // The last failure (OK when none yet), for logs and readiness messages.
  absl::Status last_error() const;
  std::string resource_version() const;

 private:
  enum class WatchEnd { kClosed, kGone, kFailed, kStopped };

  absl::Status List();
  WatchEnd WatchOnce(bool* progressed);
  struct WatchPass;
  // One line of the watch stream; false ends the request (watcher.cc says when).
  bool ReadLine(WatchPass* pass, absl::string_view line);
  // Waits `d` or until Stop(); false when stopping.
  bool Wait(absl::Duration d);
  bool stopping() const;
  void RecordFailure(const absl::Status& status);

  RestClient* const client_;
  WatchSink* const sink_;
  WatcherOptions options_;
  std::string resource_version_;  // the Run thread's; copied to rv_ for readers

  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<Cancellation> current_ ABSL_GUARDED_BY(mu_);
  WatcherStats stats_ ABSL_GUARDED_BY(mu_);
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  std::string rv_ ABSL_GUARDED_BY(mu_);
  absl::BitGen gen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube
