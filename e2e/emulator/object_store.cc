// File: e2e/emulator/object_store.cc
#include "e2e/emulator/object_store.h"

#include <utility>

namespace gpuprofile::e2e {

std::string NamespaceOf(const nlohmann::json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto n = m->find("namespace");
  return n != m->end() && n->is_string() ? n->get<std::string>() : "";
}

std::string NameOf(const nlohmann::json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto n = m->find("name");
  return n != m->end() && n->is_string() ? n->get<std::string>() : "";
}

namespace {

// What the garbage collector and the namespace lifecycle act on.
bool GcRelevant(const nlohmann::json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return false;
  if (m->contains("deletionTimestamp")) return true;
  auto refs = m->find("ownerReferences");
  return refs != m->end() && refs->is_array() && !refs->empty();
}

bool IsDeleting(const nlohmann::json& object) {
  auto m = object.find("metadata");
  return m != object.end() && m->is_object() && m->contains("deletionTimestamp");
}

std::string UidOf(const nlohmann::json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto u = m->find("uid");
  return u != m->end() && u->is_string() ? u->get<std::string>() : "";
}

}  // namespace

void ObjectStore::Account(const nlohmann::json& object, int delta) {
  if (GcRelevant(object)) gc_relevant_ += delta;
  if (IsDeleting(object)) deleting_ += delta;
  const std::string uid = UidOf(object);
  if (uid.empty()) return;
  int& n = uids_[uid];
  n += delta;
  if (n <= 0) uids_.erase(uid);
}

ObjectPtr ObjectStore::Get(const std::string& key, const std::string& ns,
                           const std::string& name) const {
  auto b = objects_.find(key);
  if (b == objects_.end()) return nullptr;
  auto it = b->second.find({ns, name});
  return it == b->second.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> ObjectStore::List(
    const std::string& key, const std::string& ns,
    const std::optional<std::pair<std::string, std::string>>& after) const {
  std::vector<ObjectPtr> out;
  auto b = objects_.find(key);
  if (b == objects_.end()) return out;
  auto it = b->second.lower_bound({ns, ""});
  if (after && *after >= std::make_pair(ns, std::string())) it = b->second.upper_bound(*after);
  for (; it != b->second.end() && (ns.empty() || it->first.first == ns); ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::pair<std::string, ObjectPtr>> ObjectStore::All() const {
  std::vector<std::pair<std::string, ObjectPtr>> out;
  for (const auto& [key, bucket] : objects_) {
    for (const auto& [k, v] : bucket) out.emplace_back(key, v);
  }
  return out;
}

ObjectPtr ObjectStore::Create(const std::string& key, nlohmann::json object) {
  uint64_t rv = ++rv_;
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  auto ptr = std::make_shared<const nlohmann::json>(std::move(object));
  objects_[key][{NamespaceOf(*ptr), NameOf(*ptr)}] = ptr;
  Account(*ptr, +1);
  Record(StoreEvent{rv, "ADDED", key, ptr, nullptr});
  return ptr;
}

ObjectPtr ObjectStore::Update(const std::string& key, nlohmann::json object) {
  uint64_t rv = ++rv_;
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  auto ptr = std::make_shared<const nlohmann::json>(std::move(object));
  ObjectPtr& slot = objects_[key][{NamespaceOf(*ptr), NameOf(*ptr)}];
  ObjectPtr previous = slot;
  slot = ptr;
  if (previous) Account(*previous, -1);
  Account(*ptr, +1);
  Record(StoreEvent{rv, "MODIFIED", key, ptr, previous});
  return ptr;
}

ObjectPtr ObjectStore::Remove(const std::string& key, const std::string& ns,
                              const std::string& name) {
  auto b = objects_.find(key);
  if (b == objects_.end()) return nullptr;
  auto it = b->second.find({ns, name});
  if (it == b->second.end()) return nullptr;
  ObjectPtr previous = it->second;
  b->second.erase(it);
  Account(*previous, -1);
  uint64_t rv = ++rv_;
  nlohmann::json last = *previous;
  last["metadata"]["resourceVersion"] = std::to_string(rv);
  auto ptr = std::make_shared<const nlohmann::json>(std::move(last));
  Record(StoreEvent{rv, "DELETED", key, ptr, previous});
  return ptr;
}

void ObjectStore::Record(StoreEvent event) {
  history_.push_back(event);
  while (history_.size() > history_capacity_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
  if (listener_) listener_(event);
}

std::vector<StoreEvent> ObjectStore::EventsSince(const std::string& key, uint64_t after) const {
  std::vector<StoreEvent> out;
  for (const StoreEvent& e : history_) {
    if (e.rv > after && (key.empty() || e.storage_key == key)) out.push_back(e);
  }
  return out;
}

void ObjectStore::Compact() {
  // A new revision marks the compaction, so that every version handed out before it is too
  // old while a list made afterwards can still be watched from.
  history_.clear();
  compacted_rv_ = ++rv_;
}

void ObjectStore::Restore(uint64_t rv,
                          std::vector<std::pair<std::string, nlohmann::json>> objects) {
  objects_.clear();
  history_.clear();
  gc_relevant_ = 0;
  deleting_ = 0;
  uids_.clear();
  for (auto& [key, object] : objects) {
    auto ptr = std::make_shared<const nlohmann::json>(std::move(object));
    ObjectPtr& slot = objects_[key][{NamespaceOf(*ptr), NameOf(*ptr)}];
    if (slot) Account(*slot, -1);
    slot = ptr;
    Account(*ptr, +1);
  }
  rv_ = rv;
  compacted_rv_ = rv;
}

}  // namespace gpuprofile::e2e
