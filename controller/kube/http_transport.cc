// File: controller/kube/http_transport.cc
#include "controller/kube/http_transport.h"

#include "absl/strings/match.h"

namespace gpuprofile::kube {

std::string HttpResponse::Header(absl::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

void Cancellation::Cancel() {
  std::map<int64_t, std::function<void()>> callbacks;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return;
    cancelled_ = true;
    callbacks.swap(callbacks_);
  }
  for (auto& [id, callback] : callbacks) callback();
}

bool Cancellation::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

int64_t Cancellation::Register(std::function<void()> callback) {
  {
    absl::MutexLock lock(&mu_);
    if (!cancelled_) {
      const int64_t id = next_id_++;
      callbacks_.emplace(id, std::move(callback));
      return id;
    }
  }
  callback();
  return 0;
}

void Cancellation::Unregister(int64_t id) {
  absl::MutexLock lock(&mu_);
  callbacks_.erase(id);
}

}  // namespace gpuprofile::kube
