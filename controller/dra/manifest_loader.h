// File: controller/dra/manifest_loader.h
// Reads manifests like ReadManifests (same paths, same files, same order, same errors), but
// decodes JSON files of ResourceSlices on the way (slice_fast_decoder.h) instead of keeping a
// JSON document per slice: a 40,000-device `kubectl get resourceslices -o json` then costs its
// devices, not a DOM several times the file's size.
//
// Every other file, and every JSON file the fast path does not handle, is parsed by the strict
// path (AppendManifests), whose objects come back in `objects` exactly as ReadManifests returns
// them, ResourceSlices among them included. Hand both to BuildInventory(slices, objects).
//
// Reads the filesystem; thread-compatible (no shared state).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/dra/attribute_demand.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"

namespace gpuprofile::dra {

// A ResourceSlice decoded by the fast path, with where it was read from.
struct LoadedSlice {
  std::string file;
  int document_index = 0;  // as ManifestObject (always 0: JSON)
  int item_index = -1;     // as ManifestObject
  ResourceSlice slice;

  // As ManifestObject::Location(): "fleet/slices.json (document 1, items[3])".
  std::string Location() const;
};

struct LoadedManifests {
  // The objects of every file the fast path did not decode, in input order.
  std::vector<ManifestObject> objects;
  // The ResourceSlices of the files it decoded, in input order. No slice here shares its name
  // with another slice read (here or in `objects`): files where that happens are read the strict
  // way, so that BuildInventory can tell identical copies from conflicts by their JSON.
  std::vector<LoadedSlice> slices;
};

// Reads every path (files, directories) as ReadManifests does; a `.json` file (or a file of
// another extension whose text starts with `{`, except `.yaml`/`.yml`) is tried on the fast path
// first. Errors: exactly ReadManifests' status for the same paths, limits included (a file over
// limits::kMaxManifestFileBytes is refused before it is read; see manifest_reader.h).
absl::StatusOr<LoadedManifests> LoadManifests(const std::vector<std::string>& paths);

// LoadManifests in two steps, for a caller that learns from the other objects which device
// attributes it will read (render: the profiles' selectors say so), and so need not build the
// rest (attribute_demand.h):
//  1. ReadAllButSliceFiles reads every file except those set aside: regular JSON files whose
//     first 4 KiB name ResourceSlices (a pipe cannot be read twice: it is decoded whole here,
//     every attribute kept). It returns the objects read, files in order, or every error so
//     far.
//  2. ReadSliceFiles reads the files set aside, handing `demand` to the fast path, and returns
//     what LoadManifests would return minus the objects step 1 returned.
// A file set aside that turns out to hold anything the fast path does not decode (other kinds,
// a slice it leaves to the strict path, a slice name read twice) comes back in `objects` after
// the rest, complete: a caller that must see such objects in input order reads the paths again
// with LoadManifests. Errors are those of LoadManifests, possibly in another order.
class ManifestLoader {
 public:
  explicit ManifestLoader(std::vector<std::string> paths);
  ~ManifestLoader();

  absl::StatusOr<std::vector<ManifestObject>> ReadAllButSliceFiles();
  // After ReadAllButSliceFiles (once).
  absl::StatusOr<LoadedManifests> ReadSliceFiles(const AttributeDemand& demand);

 private:
  struct Impl;
  std::vector<std::string> paths_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuprofile::dra
