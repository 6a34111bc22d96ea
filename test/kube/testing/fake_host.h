// File: test/kube/testing/fake_host.h
// In-memory FileSystem, Environment and ProcessRunner for configuration tests.
// Thread-safety: thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "controller/kube/host.h"

namespace gpuprofile::kube::testing {

class FakeFileSystem final : public FileSystem {
 public:
  void Write(const std::string& path, std::string text) {
    absl::MutexLock lock(&mu_);
    files_[path] = std::move(text);
  }
  void Remove(const std::string& path) {
    absl::MutexLock lock(&mu_);
    files_.erase(path);
  }
  int reads(const std::string& path) const {
    absl::MutexLock lock(&mu_);
    auto it = reads_.find(path);
    return it == reads_.end() ? 0 : it->second;
  }
  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    absl::MutexLock lock(&mu_);
    ++reads_[path];
    auto it = files_.find(path);
    if (it == files_.end()) {
      return absl::NotFoundError(absl::StrCat(path, ": No such file or directory"));
    }
    return it->second;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> files_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> reads_ ABSL_GUARDED_BY(mu_);
};

class FakeEnvironment final : public Environment {
 public:
  void Set(const std::string& name, std::string value) {
    absl::MutexLock lock(&mu_);
    vars_[name] = std::move(value);
  }
  std::optional<std::string> Get(const std::string& name) override {
    absl::MutexLock lock(&mu_);
    auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::string> vars_ ABSL_GUARDED_BY(mu_);
};

class FakeProcessRunner final : public ProcessRunner {
 public:
  struct Call {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env;
    std::string Env(const std::string& name) const {
      std::string value;
      for (const auto& [k, v] : env) {
        if (k == name) value = v;
      }
      return value;
    }
  };
  using Script = std::function<absl::StatusOr<ProcessResult>(const Call&)>;

  void SetScript(Script script) {
    absl::MutexLock lock(&mu_);
    script_ = std::move(script);
  }
  std::vector<Call> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  absl::StatusOr<ProcessResult> Run(const std::vector<std::string>& argv,
                                    const std::vector<std::pair<std::string, std::string>>& env,
                                    absl::Duration timeout) override {
    Script script;
    Call call{argv, env};
    {
      absl::MutexLock lock(&mu_);
      calls_.push_back(call);
      script = script_;
    }
    if (!script) return absl::NotFoundError("no script");
    return script(call);
  }

 private:
  mutable absl::Mutex mu_;
  Script script_ ABSL_GUARDED_BY(mu_);
  std::vector<Call> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube::testing
