// File: controller/reconciler/kueue_config_watch.cc
#include "controller/reconciler/kueue_config_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::reconciler {

KueueConfigWatch::KueueConfigWatch(kube::RestClient* client, kube::WatcherOptions watch,
                                   kueue::ConfigMapRef ref)
    : ref_(std::move(ref)) {
  watch.collection = kube::ResourcePath{"", "v1", "configmaps", ref_.namespace_name, "", ""};
  watch.label_selector.clear();
  watch.field_selector = absl::StrCat("metadata.name=", ref_.name);
  // A ConfigMap that does not parse is kept, with its error: the condition reports it.
  kube::Decoder<KueueConfigMapObject> decode = [ref = ref_](const nlohmann::json& object)
      -> absl::StatusOr<std::shared_ptr<const KueueConfigMapObject>> {
    auto decoded = std::make_shared<KueueConfigMapObject>();
    auto metadata = object.find("metadata");
    if (metadata == object.end()) {
      return absl::InvalidArgumentError(absl::StrCat(ref.Describe(), ": no metadata"));
    }
    absl::StatusOr<meta::ObjectMeta> meta = meta::DecodeObjectMeta(*metadata);
    if (!meta.ok()) return meta.status();
    decoded->metadata = *std::move(meta);
    decoded->config = kueue::ParseKueueConfigMap(object, ref);
    return std::shared_ptr<const KueueConfigMapObject>(std::move(decoded));
  };
  informer_ = std::make_unique<kube::Informer<KueueConfigMapObject>>(
      client, std::move(watch), std::move(decode),
      runtime::KeyByMeta<KueueConfigMapObject>(
          [](const KueueConfigMapObject& c) -> const meta::ObjectMeta& { return c.metadata; }));
}

void KueueConfigWatch::SetHandler(std::function<void()> on_change) {
  informer_->AddHandler(
      [on_change = std::move(on_change)](const KueueConfigMapObject*, const KueueConfigMapObject*) {
        on_change();
      });
}

absl::StatusOr<kueue::KueueConfig> KueueConfigWatch::Current() const {
  // The store first: handlers hear of a listed object before the watcher counts as synced.
  for (const auto& object : informer_->store().List()) {
    if (object->metadata.name == ref_.name) return object->config;
  }
  if (!informer_->HasSynced()) {
    const absl::Status last = informer_->watcher().last_error();
    return absl::UnavailableError(absl::StrCat(
        ref_.Describe(), ": not read yet",
        last.ok() ? std::string() : absl::StrCat(" (last error: ", last.message(), ")")));
  }
  return absl::NotFoundError(absl::StrCat(ref_.Describe(), ": not found"));
}

}  // namespace gpuprofile::reconciler
