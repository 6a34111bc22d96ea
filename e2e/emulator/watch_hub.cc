// File: e2e/emulator/watch_hub.cc
#include "e2e/emulator/watch_hub.h"

#include <algorithm>
#include <utility>

#include "e2e/emulator/conversion.h"

namespace gpuprofile::e2e {

bool WatchHub::Matches(const Watcher& w, const nlohmann::json& wire) const {
  if (!w.spec.ns.empty() && NamespaceOf(wire) != w.spec.ns) return false;
  return MatchesLabels(w.spec.labels, wire) && MatchesFields(w.spec.fields, wire);
}

void WatchHub::Send(Watcher& w, const char* type, const nlohmann::json& object, bool live) {
  nlohmann::json event = {{"type", type}, {"object", object}};
  w.queue->Push(std::make_shared<const std::string>(event.dump() + "\n"), live);
}

void WatchHub::Fail(std::shared_ptr<StreamSink> sink, const nlohmann::json& status) {
  if (shut_down_) {
    delivery_.Open(std::move(sink))->CloseNow();
    return;
  }
  nlohmann::json event = {{"type", "ERROR"}, {"object", status}};
  std::shared_ptr<WatchQueue> queue = delivery_.Open(std::move(sink));
  queue->Push(std::make_shared<const std::string>(event.dump() + "\n"), false);
  queue->Close();
}

void WatchHub::Open(WatchSpec spec, std::shared_ptr<StreamSink> sink,
                    const std::vector<StoreEvent>& replay, const std::vector<ObjectPtr>& initial,
                    absl::Time now) {
  if (shut_down_) {
    delivery_.Open(std::move(sink))->CloseNow();
    return;
  }
  auto w = std::make_unique<Watcher>();
  w->spec = std::move(spec);
  w->queue = delivery_.Open(std::move(sink));
  w->next_bookmark = now + bookmark_interval_;
  for (const ObjectPtr& o : initial) {
    nlohmann::json wire = FromStorage(w->spec.type, w->spec.version, *o);
    if (Matches(*w, wire)) Send(*w, "ADDED", wire, false);
  }
  watchers_.push_back(std::move(w));
  Watcher& added = *watchers_.back();
  for (const StoreEvent& e : replay) {
    if (e.storage_key == added.spec.type.storage_key) Deliver(added, e, false);
  }
}

void WatchHub::Deliver(Watcher& w, const StoreEvent& e, bool live, EventCache* cache) {
  EventCache local;
  if (!cache) cache = &local;
  const std::string& version = w.spec.version;
  auto wire_it = cache->wire.find(version);
  if (wire_it == cache->wire.end()) {
    wire_it = cache->wire.emplace(version, FromStorage(w.spec.type, version, *e.object)).first;
  }
  const nlohmann::json& wire = wire_it->second;
  bool now_matches = Matches(w, wire);
  bool before = false;
  if (e.previous) {
    auto prev_it = cache->previous.find(version);
    if (prev_it == cache->previous.end()) {
      prev_it =
          cache->previous.emplace(version, FromStorage(w.spec.type, version, *e.previous)).first;
    }
    before = Matches(w, prev_it->second);
  }
  auto send = [&](const char* type) {
    std::string key = std::string(type) + " " + version;
    auto line = cache->lines.find(key);
    if (line == cache->lines.end()) {
      nlohmann::json event = {{"type", type}, {"object", wire}};
      line =
          cache->lines.emplace(key, std::make_shared<const std::string>(event.dump() + "\n")).first;
    }
    w.queue->Push(line->second, live);
  };
  if (e.type == "ADDED" && now_matches) send("ADDED");
  if (e.type == "DELETED" && before) send("DELETED");
  if (e.type == "MODIFIED") {
    if (before && now_matches) send("MODIFIED");
    if (before && !now_matches) send("DELETED");
    if (!before && now_matches) send("ADDED");
  }
}

void WatchHub::Dispatch(const StoreEvent& e) {
  EventCache cache;
  for (auto& w : watchers_) {
    if (e.storage_key != w->spec.type.storage_key || !w->queue->alive()) continue;
    Deliver(*w, e, true, &cache);
  }
}

void WatchHub::Tick(absl::Time now, uint64_t current_rv) {
  for (auto& w : watchers_) {
    if (!w->queue->alive()) continue;
    if (now >= w->spec.deadline) {
      w->queue->Close();  // after the events already queued
      continue;
    }
    if (w->spec.bookmarks && now >= w->next_bookmark) {
      w->next_bookmark = now + bookmark_interval_;
      Send(*w, "BOOKMARK",
           {{"kind", w->spec.type.kind},
            {"apiVersion", w->spec.type.ApiVersion(w->spec.version)},
            {"metadata",
             {{"resourceVersion", std::to_string(current_rv)}, {"creationTimestamp", nullptr}}}},
           true);
    }
  }
  watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(),
                                 [](const auto& w) {
                                   if (w->queue->alive()) return false;
                                   w->queue->Close();  // a no-op unless the client went away
                                   return true;
                                 }),
                  watchers_.end());
}

void WatchHub::CloseAll() {
  for (auto& w : watchers_) w->queue->CloseNow();
  watchers_.clear();
}

void WatchHub::Shutdown() {
  shut_down_ = true;
  CloseAll();
}

}  // namespace gpuprofile::e2e
