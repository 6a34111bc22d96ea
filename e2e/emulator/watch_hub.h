// File: e2e/emulator/watch_hub.h
// Open watches: each gets the store's events for its resource, converted to the version it asked
// for and filtered by namespace, label and field selector (an object that stops matching is sent
// as DELETED, one that starts matching as ADDED, as the watch cache does), plus BOOKMARK events
// when asked, and is closed at its timeoutSeconds, when the client goes away, or on demand.
// Events are filtered, converted and serialized here (once per event and served version), then
// handed to each watch's WatchQueue: the writes to the clients happen on WatchDelivery's sender
// threads, so a slow or dead client never holds up the caller.
// Thread-compatible: the API server calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "e2e/emulator/http_types.h"
#include "e2e/emulator/object_store.h"
#include "e2e/emulator/resource_registry.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/watch_delivery.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct WatchSpec {
  ResourceType type;  // a copy: the registry may change while the watch is open
  std::string version;
  std::string ns;  // empty: all namespaces
  std::vector<LabelRequirement> labels;
  std::vector<FieldRequirement> fields;
  bool bookmarks = false;
  absl::Time deadline = absl::InfiniteFuture();
};

class WatchHub {
 public:
  explicit WatchHub(absl::Duration bookmark_interval, DeliveryOptions delivery = {})
      : bookmark_interval_(bookmark_interval), delivery_(delivery) {}
  ~WatchHub() { CloseAll(); }

  // Opens a watch on `sink`: sends `initial` (already in the watch's version: ADDED events or a
  // replay), then every matching future event.
  void Open(WatchSpec spec, std::shared_ptr<StreamSink> sink, const std::vector<StoreEvent>& replay,
            const std::vector<ObjectPtr>& initial, absl::Time now);
  // Sends one ERROR event with `status` and closes the stream (410 for compacted versions).
  void Fail(std::shared_ptr<StreamSink> sink, const nlohmann::json& status);

  void Dispatch(const StoreEvent& event);
  // Bookmarks, timeouts and dead clients.
  void Tick(absl::Time now, uint64_t current_rv);
  // Ends every open watch now, dropping undelivered events (the client sees the stream end and
  // must re-watch).
  void CloseAll();
  // CloseAll, and from now on every watch ends as soon as it opens. For the process's
  // shutdown: a client that re-watches at once (as reflectors do) would otherwise get a stream
  // nothing ever ends, and closing the HTTP listener waits for every open stream.
  void Shutdown();
  size_t size() const { return watchers_.size(); }

 private:
  struct Watcher {
    WatchSpec spec;
    std::shared_ptr<WatchQueue> queue;
    absl::Time next_bookmark;
  };
  bool Matches(const Watcher& w, const nlohmann::json& wire) const;
  void Send(Watcher& w, const char* type, const nlohmann::json& object, bool live);
  // Conversions and serialized lines of one event, shared by the watchers it goes to (keys:
  // served version; "<type> <version>" for lines).
  struct EventCache {
    std::map<std::string, nlohmann::json> wire;
    std::map<std::string, nlohmann::json> previous;
    std::map<std::string, WatchLine> lines;
  };
  // `live`: a new event (bounded queue), not a replay.
  void Deliver(Watcher& w, const StoreEvent& event, bool live, EventCache* cache = nullptr);

  absl::Duration bookmark_interval_;
  WatchDelivery delivery_;  // destroyed after watchers_ (declared before it)
  std::vector<std::unique_ptr<Watcher>> watchers_;
  bool shut_down_ = false;
};

}  // namespace gpuprofile::e2e
