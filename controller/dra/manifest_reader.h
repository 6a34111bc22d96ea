// File: controller/dra/manifest_reader.h
// Reads Kubernetes manifests the way `kubectl apply -f` / `kubectl get -o yaml|json` users write
// them: files or directories (recursively; `.yaml`, `.yml` and `.json` files, in sorted order for
// deterministic output), multi-document YAML (`---`), JSON, and lists (`kind: List` or any
// `<Kind>List` with `items`, which are flattened). Every object comes back as nlohmann::json.
//
// YAML is converted to JSON as Kubernetes does (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1 plain
// scalar resolution): unquoted `40Gi` is a string, `1` an integer, `1.5` a float, `true`/`yes`/`on`
// a bool, `~`/`null`/empty a null, while any quoted scalar stays a string. Anchors, aliases and
// merge keys (`<<`) are resolved; duplicate keys in one mapping are an error. Empty documents are
// skipped.
//
// Hostile input fails fast with a clear error (the limits and why: controller/core/input_limits.h):
// files over limits::kMaxManifestFileBytes are refused before they are read; YAML whose anchors
// and aliases would materialise more than limits::YamlNodeBudget(size) nodes (an alias bomb),
// values nested deeper than limits::kMaxNestingDepth (YAML or JSON), more than
// limits::kMaxYamlDocumentsPerFile documents or limits::kMaxManifestObjectsPerFile objects in one
// file stop that file's reading with an error naming the file, the document and the position.
//
// Errors are absl::Status values (never exceptions): InvalidArgument for malformed input, NotFound
// for missing paths, the mapped errno for other I/O failures. Messages name the file, the document
// (1-based) and, where the parser gives one, the line and column (1-based). When several inputs
// have problems, every problem is reported, one per line.
//
// ParseManifests is pure. ReadManifests reads the filesystem (it is the adapter `render` and
// `cel match` use). Thread-compatible: no shared state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

struct ManifestObject {
  // The path the object was read from (as given, or found under a given directory), or the name
  // passed to ParseManifests.
  std::string file;
  // 0-based index of the document in the file's YAML stream (empty documents are counted, so the
  // index matches what a reader counts); always 0 for JSON.
  int document_index = 0;
  // The object, with `apiVersion` and `kind` strings (list items inherit them from a typed list).
  nlohmann::json object;
  // 0-based index in the enclosing list's `items` when the object came from a list, else -1.
  int item_index = -1;

  // "config/fleet.yaml (document 2)" or "list.json (document 1, items[3])", for messages.
  std::string Location() const;
  // `ResourceSlice "a100-node-1-gpu.nvidia.com-7kq2x"` (or `ResourceSlice <unnamed>`), for
  // messages.
  std::string Describe() const;
};

// Parses in-memory manifests. `name` is used in messages and as ManifestObject::file; its
// extension picks the format: `.json` → JSON; `.yaml`/`.yml` → YAML; anything else (stdin, a
// heredoc) → JSON when the text starts with `{` and parses as JSON, else YAML.
absl::StatusOr<std::vector<ManifestObject>> ParseManifests(std::string_view text,
                                                           std::string name);

// Reads every path in order: a file is read whatever its extension; a directory is walked
// recursively, taking `.yaml`, `.yml` and `.json` files sorted by path. Returns all objects in
// input order, or one status listing every problem.
absl::StatusOr<std::vector<ManifestObject>> ReadManifests(const std::vector<std::string>& paths);

// The steps of ReadManifests, for loaders that treat some files differently (manifest_loader.h).
// ReadManifests is, for each path: ListManifestFiles, then ReadManifestFile and AppendManifests
// for each file; a loader doing the same gets the same objects and the same messages.

// Appends the files ReadManifests reads for `path`: the path itself when it is not a directory,
// else the `.yaml`/`.yml`/`.json` files under it, sorted. NotFound when the path does not exist;
// when listing a directory fails part-way, the files found so far are appended and the error is
// returned.
absl::Status ListManifestFiles(const std::string& path, std::vector<std::string>* files);

// Reads a whole file, reserving `spare_capacity` bytes beyond its end (for parsers that read
// past the end). Errors: the mapped errno, with the path in the message.
absl::StatusOr<std::string> ReadManifestFile(const std::string& path, size_t spare_capacity = 0);

// Parses `text` as ParseManifests does, appending the objects to `out` and one message per
// problem to `errors` (each naming `name`).
void AppendManifests(std::string_view text, const std::string& name,
                     std::vector<ManifestObject>* out, std::vector<std::string>* errors);

}  // namespace gpuprofile::dra
