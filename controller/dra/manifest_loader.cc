// File: controller/dra/manifest_loader.cc
#include "controller/dra/manifest_loader.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "controller/core/check.h"
#include "controller/core/input_limits.h"
#include "controller/dra/list_runs.h"
#include "controller/dra/mapped_file.h"
#include "controller/dra/slice_fast_decoder.h"
#include "controller/dra/slice_list_file.h"

namespace gpuprofile::dra {
namespace {

// Files from this size on are mapped (mapped_file.h) rather than read: the copy is what costs on
// a fleet's slice list, while a small file's copy costs less than mapping it.
constexpr size_t kMapFilesFromBytes = size_t{1} << 20;

// How far into a file ResourceSlices are looked for before it is set aside: kubectl's and the
// API server's lists name the kind in their first item's first lines.
constexpr size_t kSliceKindWithinBytes = 4096;

// What one file gave: decoded slices (fast path) or objects (strict path).
struct FileResult {
  std::string name;
  bool fast = false;
  bool set_aside = false;  // a JSON file of ResourceSlices, not read yet
  std::vector<LoadedSlice> slices;
  std::vector<ManifestObject> objects;
};

// Files whose text may be JSON, as ParseManifests decides: `.json`, or any extension but
// `.yaml`/`.yml` when the text starts with `{`.
bool MayBeJson(const std::string& file, absl::string_view text) {
  const std::string ext = absl::AsciiStrToLower(std::filesystem::path(file).extension().string());
  if (ext == ".json") return true;
  if (ext == ".yaml" || ext == ".yml") return false;
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != absl::string_view::npos && text[first] == '{';
}

// A JSON file whose first bytes name ResourceSlices (a list of them, or one).
bool LooksLikeSliceFile(const std::string& file, absl::string_view text) {
  return MayBeJson(file, text) &&
         absl::StrContains(text.substr(0, kSliceKindWithinBytes), "\"ResourceSlice");
}

bool IsRegularFile(const std::string& file) {
  std::error_code ec;
  return std::filesystem::is_regular_file(file, ec);
}

// A regular file of at least kListRunsFromBytes: one FastDecodeSliceListFile may read in runs.
// Smaller files (most manifests) are not opened for it.
bool IsLargeRegularFile(const std::string& file) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(file, ec);
  return !ec && size >= kListRunsFromBytes;
}

// The first kSliceKindWithinBytes of a file (fewer when it is shorter; empty when it cannot be
// read, which the full read then reports). Deciding to set a file aside from its head alone
// spares mapping, and unmapping, a fleet's whole slice list twice.
std::string ReadHead(const std::string& file) {
  std::string head(kSliceKindWithinBytes, '\0');
  std::ifstream in(file, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(in ? head.size() : static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

// A view of the object's own text: valid while the object is.
absl::string_view SliceName(const ManifestObject& object) {
  if (!IsResourceSlice(object.object)) return "";
  auto meta = object.object.find("metadata");
  if (meta == object.object.end() || !meta->is_object()) return "";
  auto name = meta->find("name");
  return name != meta->end() && name->is_string() ? name->get_ref<const std::string&>()
                                                  : absl::string_view();
}

class Loader {
 public:
  explicit Loader(bool set_slice_files_aside) : set_slice_files_aside_(set_slice_files_aside) {}

  void Load(const std::string& path) {
    std::vector<std::string> files;
    if (absl::Status listed = ListManifestFiles(path, &files); !listed.ok()) IoError(listed);
    for (const std::string& file : files) {
      FileResult result;
      result.name = file;
      if (ReadFile(AttributeDemand(), &result)) results_.push_back(std::move(result));
    }
  }

  // Moves out the objects read so far, remembering the names of the ResourceSlices among them.
  absl::StatusOr<std::vector<ManifestObject>> TakeObjects() {
    if (!errors_.empty()) return absl::Status(code_, absl::StrJoin(errors_, "\n"));
    std::vector<ManifestObject> out;
    for (FileResult& result : results_) {
      for (ManifestObject& o : result.objects) {
        if (absl::string_view name = SliceName(o); !name.empty()) {
          names_taken_.emplace_back(name);
        }
        out.push_back(std::move(o));
      }
      result.objects.clear();
    }
    return out;
  }

  void LoadSetAside(const AttributeDemand& demand) {
    set_slice_files_aside_ = false;
    for (FileResult& file : results_) {
      if (!file.set_aside) continue;
      FileResult result;
      result.name = file.name;
      if (ReadFile(demand, &result)) {
        file = std::move(result);
      } else {
        file.set_aside = false;  // nothing to keep (the error is recorded)
      }
    }
  }

  absl::StatusOr<LoadedManifests> Finish() {
    if (errors_.empty()) StrictIfNameShared();
    if (!errors_.empty()) return absl::Status(code_, absl::StrJoin(errors_, "\n"));
    LoadedManifests out;
    for (FileResult& result : results_) {
      for (LoadedSlice& s : result.slices) out.slices.push_back(std::move(s));
      for (ManifestObject& o : result.objects) out.objects.push_back(std::move(o));
    }
    return out;
  }

 private:
  void IoError(const absl::Status& status) {
    if (code_ == absl::StatusCode::kOk) code_ = status.code();
    errors_.emplace_back(status.message());
  }

  // Reads the file named result->name into *result. False when it gives nothing to keep: it
  // could not be read, or it breaks a limit (the error is recorded).
  bool ReadFile(const AttributeDemand& demand, FileResult* result) {
    const std::string& file = result->name;
    // Only a regular file can be read again: a pipe (`-f <(kubectl get ...)`) is decoded now.
    if (set_slice_files_aside_ && IsRegularFile(file)) {
      if (LooksLikeSliceFile(file, ReadHead(file))) {
        result->set_aside = true;
        return true;
      }
    } else if (IsLargeRegularFile(file) && MayBeJson(file, ReadHead(file))) {
      // A large list as kubectl prints it, read a run of items at a time (slice_list_file.h).
      if (FastDecodeResult decoded = FastDecodeSliceListFile(file, demand); decoded.handled) {
        return KeepDecoded(std::move(decoded), result);
      }
    }
    MappedFile mapped;
    std::string read;
    absl::string_view text;
    if (absl::Status opened = Open(file, &mapped, &read, &text); !opened.ok()) {
      IoError(opened);
      return false;
    }
    if (MayBeJson(file, text)) {
      FastDecodeResult decoded = FastDecodeSliceJson(
          text,
          [&] {
            mapped.Release();
            std::string().swap(read);
            text = absl::string_view();
          },
          demand);
      if (decoded.handled) return KeepDecoded(std::move(decoded), result);
      if (decoded.text_released) {
        absl::StatusOr<std::string> again = ReadManifestFile(file);
        if (!again.ok()) {
          IoError(again.status());
          return false;
        }
        read = *std::move(again);
        text = read;
      }
    }
    Strict(text, result);
    return true;
  }

  // The slices the fast path decoded from the file named result->name, into *result. False
  // when they break the limit per file (the error is recorded).
  bool KeepDecoded(FastDecodeResult decoded, FileResult* result) {
    if (decoded.slices.size() > limits::kMaxManifestObjectsPerFile) {
      // As the strict path words it (input_limits.h).
      if (code_ == absl::StatusCode::kOk) code_ = absl::StatusCode::kInvalidArgument;
      errors_.push_back(
          absl::StrCat(result->name, " (document 1, items[", limits::kMaxManifestObjectsPerFile,
                       "]): the file holds more than ", limits::kMaxManifestObjectsPerFile,
                       " objects, the limit per file; split it"));
      return false;
    }
    result->fast = true;
    for (FastDecodedSlice& d : decoded.slices) {
      result->slices.push_back({result->name, 0, d.item_index, std::move(d.slice)});
    }
    return true;
  }

  // Gives the file's content in *text, kFastDecoderPadding readable bytes after it: mapped when
  // the file is large (and can be), else read into *read.
  static absl::Status Open(const std::string& file, MappedFile* mapped, std::string* read,
                           absl::string_view* text) {
    std::error_code ec;
    if (const uintmax_t size = std::filesystem::file_size(file, ec);
        !ec && size >= kMapFilesFromBytes) {
      absl::StatusOr<MappedFile> m =
          MappedFile::Open(file, kFastDecoderPadding, limits::kMaxManifestFileBytes);
      if (m.ok()) {
        *mapped = *std::move(m);
        *text = mapped->text();
        return absl::OkStatus();
      }
      // Not mappable after all (it changed meanwhile, or mmap failed): read it.
      if (m.status().code() != absl::StatusCode::kFailedPrecondition) return m.status();
    }
    absl::StatusOr<std::string> contents = ReadManifestFile(file, kFastDecoderPadding);
    if (!contents.ok()) return contents.status();
    *read = *std::move(contents);
    *text = *read;
    return absl::OkStatus();
  }

  void Strict(absl::string_view text, FileResult* result) {
    const size_t before = errors_.size();
    AppendManifests(std::string_view(text.data(), text.size()), result->name, &result->objects,
                    &errors_);
    if (errors_.size() != before && code_ == absl::StatusCode::kOk) {
      code_ = absl::StatusCode::kInvalidArgument;
    }
  }

  // A fast-decoded slice whose name is read again (same file or another) is read the strict
  // way, so that BuildInventory compares the objects as it always has.
  void StrictIfNameShared() {
    // The names are views of the slices and objects, which stay as they are until every file
    // has its verdict.
    absl::flat_hash_map<absl::string_view, int> count;
    for (const std::string& name : names_taken_) ++count[name];
    for (const FileResult& result : results_) {
      for (const LoadedSlice& s : result.slices) ++count[s.slice.name];
      for (const ManifestObject& o : result.objects) {
        if (absl::string_view name = SliceName(o); !name.empty()) ++count[name];
      }
    }
    std::vector<FileResult*> shared;
    for (FileResult& result : results_) {
      if (result.fast &&
          std::any_of(result.slices.begin(), result.slices.end(),
                      [&](const LoadedSlice& s) { return count.at(s.slice.name) > 1; })) {
        shared.push_back(&result);
      }
    }
    for (FileResult* result_of_shared : shared) {
      FileResult& result = *result_of_shared;
      absl::StatusOr<std::string> text = ReadManifestFile(result.name);
      if (!text.ok()) {
        IoError(text.status());
        continue;
      }
      result.fast = false;
      result.slices.clear();
      Strict(*text, &result);
    }
  }

  bool set_slice_files_aside_;
  std::vector<FileResult> results_;
  std::vector<std::string> names_taken_;  // of the ResourceSlices TakeObjects gave away
  std::vector<std::string> errors_;
  absl::StatusCode code_ = absl::StatusCode::kOk;
};

}  // namespace

struct ManifestLoader::Impl {
  Loader loader{/*set_slice_files_aside=*/true};
};

std::string LoadedSlice::Location() const {
  std::string location = absl::StrCat(file, " (document ", document_index + 1);
  if (item_index >= 0) absl::StrAppend(&location, ", items[", item_index, "]");
  location += ")";
  return location;
}

absl::StatusOr<LoadedManifests> LoadManifests(const std::vector<std::string>& paths) {
  Loader loader(/*set_slice_files_aside=*/false);
  for (const std::string& path : paths) loader.Load(path);
  return loader.Finish();
}

ManifestLoader::ManifestLoader(std::vector<std::string> paths) : paths_(std::move(paths)) {}
ManifestLoader::~ManifestLoader() = default;

absl::StatusOr<std::vector<ManifestObject>> ManifestLoader::ReadAllButSliceFiles() {
  impl_ = std::make_unique<Impl>();
  for (const std::string& path : paths_) impl_->loader.Load(path);
  return impl_->loader.TakeObjects();
}

absl::StatusOr<LoadedManifests> ManifestLoader::ReadSliceFiles(const AttributeDemand& demand) {
  GPO_CHECK(impl_ != nullptr, "ReadSliceFiles before ReadAllButSliceFiles");
  impl_->loader.LoadSetAside(demand);
  return impl_->loader.Finish();
}

}  // namespace gpuprofile::dra
