// File: controller/kube/controller_builder.h
// controller-runtime's builder, for this project's informers: wires change events of informers
// into a runtime::Controller's work queue as keys of the primary kind.
//   For(informer)               the object's own key ("namespace/name", or "name")
//   Owns(informer, kind, scope) the key of the object's controller owner of `kind` (owner
//                               references): by default the owner is in the object's namespace
//                               (or cluster-scoped when the object is); OwnerScope::kCluster for
//                               a cluster-scoped owner of namespaced objects (a GpuProfile owning
//                               ResourceClaimTemplates), whose key is its name alone
//   Watches(informer, map)      whatever keys `map` returns for the object (labels, fields, or
//                               "every primary object")
// Each of before/after is mapped (an update that moves an object between owners enqueues both).
// Call before starting the informers.
// Thread-safety: thread-compatible while building; the handlers it installs are thread-safe.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "controller/meta/object_meta.h"
#include "controller/kube/informer.h"
#include "controller/runtime/controller.h"
#include "controller/runtime/store.h"

namespace gpuprofile::kube {

// Where the owner named by an owner reference lives (an owner reference has no namespace).
enum class OwnerScope {
  kObjectNamespace,  // in the owned object's namespace (namespaced owners; cluster-scoped objects)
  kCluster,          // cluster-scoped
};

class ControllerBuilder {
 public:
  // `controller` must outlive the informers it is wired to.
  explicit ControllerBuilder(runtime::Controller* controller) : controller_(controller) {}

  template <typename T>
  ControllerBuilder& For(Informer<T>* informer, runtime::MetaFunc<T> meta) {
    return Watches<T>(informer, [meta = std::move(meta)](const T& object) {
      return std::vector<std::string>{runtime::MetaNamespaceKey(meta(object))};
    });
  }

  template <typename T>
  ControllerBuilder& Owns(Informer<T>* informer, runtime::MetaFunc<T> meta, std::string kind,
                          OwnerScope scope = OwnerScope::kObjectNamespace) {
    return Watches<T>(informer,
                      [meta = std::move(meta), kind = std::move(kind), scope](const T& object) {
                        std::vector<std::string> keys;
                        const meta::ObjectMeta& m = meta(object);
                        const meta::OwnerReference* owner = m.ControllerOwner();
                        if (owner == nullptr || owner->kind != kind) return keys;
                        meta::ObjectMeta owner_meta;
                        owner_meta.name = owner->name;
                        if (scope == OwnerScope::kObjectNamespace)
                          owner_meta.namespace_name = m.namespace_name;
                        keys.push_back(runtime::MetaNamespaceKey(owner_meta));
                        return keys;
                      });
  }

  template <typename T>
  ControllerBuilder& Watches(Informer<T>* informer,
                             std::function<std::vector<std::string>(const T&)> map,
                             bool urgent = false) {
    runtime::WorkQueue* queue = controller_->queue();
    informer->AddHandler([queue, map = std::move(map), urgent](const T* before, const T* after) {
      for (const T* object : {before, after}) {
        if (object == nullptr) continue;
        for (const std::string& key : map(*object)) {
          if (urgent) {
            queue->AddUrgent(key);
          } else {
            queue->Add(key);
          }
        }
      }
    });
    return *this;
  }

 private:
  runtime::Controller* const controller_;
};

}  // namespace gpuprofile::kube
