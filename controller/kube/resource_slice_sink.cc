// File: controller/kube/resource_slice_sink.cc
#include "controller/kube/resource_slice_sink.h"

#include <utility>

#include "absl/status/statusor.h"

namespace gpuprofile::kube {

std::string ResourceSliceKey(const dra::ResourceSlice& slice) { return slice.name; }

std::unique_ptr<runtime::Store<dra::ResourceSlice>> NewResourceSliceStore(
    std::map<std::string, runtime::Store<dra::ResourceSlice>::IndexFunc> indexers) {
  return std::make_unique<runtime::Store<dra::ResourceSlice>>(&ResourceSliceKey,
                                                              std::move(indexers));
}

ResourceSliceSink::ResourceSliceSink(runtime::Store<dra::ResourceSlice>* store,
                                     ResourceSliceSinkOptions options)
    : store_(store), options_(std::move(options)) {}

void ResourceSliceSink::Skip(const absl::Status& status) {
  undecodable_.fetch_add(1, std::memory_order_relaxed);
  if (options_.on_undecodable) options_.on_undecodable(status);
}

void ResourceSliceSink::Replace(std::vector<nlohmann::json> items) {
  BeginList();
  ListPage(std::move(items));
  EndList();
}

void ResourceSliceSink::ListPage(std::vector<nlohmann::json> items) {
  for (nlohmann::json& item : items) {
    absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(item);
    nlohmann::json().swap(item);  // the item's document is not needed any more
    if (!slice.ok()) {
      Skip(slice.status());
      continue;
    }
    listed_.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(slice)));
  }
}

void ResourceSliceSink::EndList() {
  std::vector<ResourceSlicePtr> objects = std::exchange(listed_, {});
  std::vector<ResourceSlicePtr> observed;
  if (options_.on_replace) observed = objects;
  std::vector<ResourceSlicePtr> removed = store_->Replace(std::move(objects));
  if (options_.on_replace) options_.on_replace(observed, removed);
}

void ResourceSliceSink::Record(runtime::WatchEventType type, ResourceSlicePtr slice) {
  ResourceSlicePtr before = store_->Apply({type, slice});
  if (options_.on_event) options_.on_event(type, std::move(slice), std::move(before));
}

void ResourceSliceSink::Apply(runtime::WatchEventType type, const nlohmann::json& object) {
  absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(object);
  if (!slice.ok()) return Skip(slice.status());
  Record(type, std::make_shared<const dra::ResourceSlice>(*std::move(slice)));
}

absl::Status ResourceSliceSink::ApplyRaw(runtime::WatchEventType type,
                                         absl::string_view object_json) {
  absl::StatusOr<dra::ResourceSlice> slice = decoder_.Decode(object_json);
  if (!slice.ok()) {
    // Not JSON: the stream is corrupt, which is the watcher's to handle.
    if (absl::IsDataLoss(slice.status())) return slice.status();
    Skip(slice.status());
    return absl::OkStatus();
  }
  Record(type, std::make_shared<const dra::ResourceSlice>(*std::move(slice)));
  return absl::OkStatus();
}

}  // namespace gpuprofile::kube
