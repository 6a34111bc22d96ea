// File: test/explain/explain_testing.h
// Helpers the explain tests share: a ClusterView from manifest text (as `explain -f` reads it,
// on the newest release), and the codes and findings of a Diagnosis.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "controller/dra/manifest_reader.h"
#include "controller/explain/diagnosis.h"
#include "controller/explain/manifest_view.h"
#include "gtest/gtest.h"

namespace gpuprofile::explain::testing {

inline ClusterView ViewOfManifests(const std::string& text) {
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ParseManifests(text, "test.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  dra::LoadedManifests loaded;
  if (objects.ok()) loaded.objects = *std::move(objects);
  const KubeVersion kube = KubeVersion::Newest();
  absl::StatusOr<ManifestView> view =
      ViewFromManifests(std::move(loaded), kube, FeatureGates(kube));
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? view->view : ClusterView{};
}

inline std::vector<std::string> Codes(const Diagnosis& d) {
  std::vector<std::string> out;
  for (const Finding& f : d.findings) out.push_back(f.code);
  return out;
}

// The first finding with `code`, or nullptr.
inline const Finding* FindingOf(const Diagnosis& d, const std::string& code) {
  for (const Finding& f : d.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

}  // namespace gpuprofile::explain::testing
