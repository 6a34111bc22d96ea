// File: e2e/emulator/list_schema.cc
#include "e2e/emulator/list_schema.h"

#include <utility>

#include "absl/base/const_init.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace gpuprofile::e2e {

const TypeNode& DefaultType() {
  static const TypeNode* const kDefault = new TypeNode();
  return *kDefault;
}

namespace {

// What structured-merge-diff deduces for a value without a schema below a map: every key a map
// entry, lists atomic.
const TypeNode& DeducedType() {
  static const TypeNode* const kDeduced = [] {
    auto* n = new TypeNode();
    n->elements = n;
    return n;
  }();
  return *kDeduced;
}

class Builder {
 public:
  explicit Builder(ObjectSchema* schema) : s_(schema) {}

  TypeNode* Object() { return s_->NewNode(); }
  // map[string]string and the like: entries, values leaves.
  const TypeNode* StringMap(bool atomic = false) {
    TypeNode* n = Object();
    n->elements = &DefaultType();
    n->atomic_map = atomic;
    return n;
  }
  const TypeNode* Set() {
    TypeNode* n = Object();
    n->list_type = ListType::kSet;
    return n;
  }
  const TypeNode* MapList(std::vector<std::string> keys, const TypeNode* items = nullptr) {
    TypeNode* n = Object();
    n->list_type = ListType::kMap;
    n->keys = std::move(keys);
    n->items = items;
    return n;
  }
  const TypeNode* AtomicStruct() {
    TypeNode* n = Object();
    n->atomic_map = true;
    return n;
  }

  const TypeNode* ObjectMeta() {
    if (meta_) return meta_;
    TypeNode* n = Object();
    n->fields["labels"] = StringMap();
    n->fields["annotations"] = StringMap();
    n->fields["finalizers"] = Set();
    n->fields["ownerReferences"] = MapList({"uid"});
    meta_ = n;
    return n;
  }
  // metav1.LabelSelector is +structType=atomic.
  const TypeNode* LabelSelector() { return AtomicStruct(); }

  const TypeNode* Container() {
    TypeNode* n = Object();
    n->fields["env"] = MapList({"name"});
    n->fields["ports"] = MapList({"containerPort", "protocol"});
    n->fields["volumeMounts"] = MapList({"mountPath"});
    n->fields["volumeDevices"] = MapList({"devicePath"});
    TypeNode* resources = Object();
    resources->fields["limits"] = StringMap();
    resources->fields["requests"] = StringMap();
    resources->fields["claims"] = MapList({"name"});
    n->fields["resources"] = resources;
    return n;
  }
  const TypeNode* PodSpec() {
    TypeNode* n = Object();
    const TypeNode* container = Container();
    n->fields["containers"] = MapList({"name"}, container);
    n->fields["initContainers"] = MapList({"name"}, container);
    n->fields["ephemeralContainers"] = MapList({"name"}, container);
    n->fields["volumes"] = MapList({"name"});
    n->fields["imagePullSecrets"] = MapList({"name"});
    n->fields["nodeSelector"] = StringMap(/*atomic=*/true);
    n->fields["hostAliases"] = MapList({"ip"});
    n->fields["topologySpreadConstraints"] = MapList({"topologyKey", "whenUnsatisfiable"});
    n->fields["resourceClaims"] = MapList({"name"});
    return n;
  }
  const TypeNode* PodTemplateSpec() {
    TypeNode* n = Object();
    n->fields["metadata"] = ObjectMeta();
    n->fields["spec"] = PodSpec();
    return n;
  }

 private:
  ObjectSchema* s_;
  const TypeNode* meta_ = nullptr;
};

std::shared_ptr<const ObjectSchema> BuildBuiltin(const std::string& group,
                                                 const std::string& kind) {
  auto schema = std::make_shared<ObjectSchema>();
  Builder b(schema.get());
  TypeNode* root = b.Object();
  root->fields["metadata"] = b.ObjectMeta();
  TypeNode* spec = b.Object();
  TypeNode* status = b.Object();
  bool has_spec = false;
  bool has_status = false;
  if (group == "apps" && kind == "Deployment") {
    spec->fields["selector"] = b.LabelSelector();
    spec->fields["template"] = b.PodTemplateSpec();
    status->fields["conditions"] = b.MapList({"type"});
    has_spec = has_status = true;
  } else if (group.empty() && kind == "Pod") {
    root->fields["spec"] = b.PodSpec();
    status->fields["conditions"] = b.MapList({"type"});
    has_status = true;
  } else if (group.empty() && kind == "Service") {
    spec->fields["ports"] = b.MapList({"port", "protocol"});
    spec->fields["selector"] = b.StringMap(/*atomic=*/true);
    has_spec = true;
  } else if (group == "policy" && kind == "PodDisruptionBudget") {
    spec->fields["selector"] = b.LabelSelector();
    status->fields["conditions"] = b.MapList({"type"});
    status->fields["disruptedPods"] = b.StringMap();
    has_spec = has_status = true;
  } else if (group.empty() && kind == "ConfigMap") {
    root->fields["data"] = b.StringMap();
    root->fields["binaryData"] = b.StringMap();
  } else if (group.empty() && kind == "ResourceQuota") {
    spec->fields["hard"] = b.StringMap();
    status->fields["hard"] = b.StringMap();
    status->fields["used"] = b.StringMap();
    has_spec = has_status = true;
  } else if (group.empty() && kind == "Node") {
    spec->fields["podCIDRs"] = b.Set();
    status->fields["conditions"] = b.MapList({"type"});
    status->fields["capacity"] = b.StringMap();
    status->fields["allocatable"] = b.StringMap();
    has_spec = has_status = true;
  } else if (group == "resource.k8s.io" && kind == "ResourceClaim") {
    // spec.devices.requests/constraints/config are +listType=atomic (the default).
    status->fields["reservedFor"] = b.MapList({"uid"});
    status->fields["devices"] = b.MapList({"driver", "device", "pool"});
    has_status = true;
  }
  // Namespace spec.finalizers, ClusterRole/Role rules, (Cluster)RoleBinding subjects, the DRA
  // lists (requests, selectors, config, constraints, tolerations, firstAvailable: +listType=atomic;
  // a slice's devices: assumed) and Event/Lease fields are atomic or plain: the default type.
  if (has_spec) root->fields["spec"] = spec;
  if (has_status) root->fields["status"] = status;
  schema->set_root(root);
  return schema;
}

const TypeNode* FromOpenApi(const nlohmann::json& s, ObjectSchema* out, int depth) {
  if (!s.is_object() || depth > 64) return &DefaultType();
  TypeNode* n = out->NewNode();
  bool has_properties = false;
  if (auto p = s.find("properties"); p != s.end() && p->is_object()) {
    has_properties = true;
    for (auto& [k, v] : p->items()) n->fields[k] = FromOpenApi(v, out, depth + 1);
  }
  if (auto ap = s.find("additionalProperties"); ap != s.end() && ap->is_object()) {
    n->elements = FromOpenApi(*ap, out, depth + 1);
  } else if (!has_properties && s.value("x-kubernetes-preserve-unknown-fields", false)) {
    n->elements = &DeducedType();
  }
  if (s.value("x-kubernetes-map-type", "") == "atomic") n->atomic_map = true;
  if (auto items = s.find("items"); items != s.end() && items->is_object()) {
    n->items = FromOpenApi(*items, out, depth + 1);
  }
  std::string list_type = s.value("x-kubernetes-list-type", "");
  if (list_type == "set") {
    n->list_type = ListType::kSet;
  } else if (list_type == "map") {
    n->list_type = ListType::kMap;
    if (auto keys = s.find("x-kubernetes-list-map-keys"); keys != s.end() && keys->is_array()) {
      for (const auto& k : *keys) {
        if (k.is_string()) n->keys.push_back(k.get<std::string>());
      }
    }
  }
  return n;
}

}  // namespace

const TypeNode& TypeNode::Field(const std::string& name, bool* declared) const {
  if (auto it = fields.find(name); it != fields.end()) {
    *declared = true;
    return *it->second;
  }
  if (elements) {
    *declared = false;
    return *elements;
  }
  *declared = true;
  return DefaultType();
}

const TypeNode& TypeNode::Item() const { return items ? *items : DefaultType(); }

TypeNode* ObjectSchema::NewNode() {
  nodes_.push_back(std::make_unique<TypeNode>());
  return nodes_.back().get();
}

std::shared_ptr<const ObjectSchema> BuiltinSchema(const std::string& group,
                                                  const std::string& kind) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* const cache =
      new absl::flat_hash_map<std::string, std::shared_ptr<const ObjectSchema>>();
  const std::string key = group + "/" + kind;
  absl::MutexLock lock(&mu);
  auto& slot = (*cache)[key];
  if (!slot) slot = BuildBuiltin(group, kind);
  return slot;
}

std::shared_ptr<const ObjectSchema> CustomResourceSchema(const nlohmann::json& open_api_v3) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* const cache =
      new absl::flat_hash_map<std::string, std::shared_ptr<const ObjectSchema>>();
  std::string key = open_api_v3.dump();
  absl::MutexLock lock(&mu);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  auto schema = std::make_shared<ObjectSchema>();
  Builder b(schema.get());
  const TypeNode* parsed = FromOpenApi(open_api_v3, schema.get(), 0);
  TypeNode* root = schema->NewNode();
  *root = *parsed;
  root->fields["metadata"] = b.ObjectMeta();
  schema->set_root(root);
  if (cache->size() >= 256) cache->clear();  // CRDs come and go in tests; stay bounded
  (*cache)[key] = schema;
  return schema;
}

}  // namespace gpuprofile::e2e
