// File: controller/dra/mapped_file.h
// A regular file mapped read-only into memory, for the commands that read large manifests
// (render, explain): the text is the kernel's page cache itself, neither zero-filled nor copied
// into the process, which on a 74 MB `kubectl get resourceslices -o json` is most of the cost of
// reading it (docs/performance.md).
//
// `padding` bytes past the text's end are readable and zero, as simdjson requires of its input.
//
// The one crash this allows (docs/style.md): a file that another process truncates while it is
// mapped ends the process with SIGBUS when the missing pages are read. Only the command-line
// readers map files; the operator never does.
//
// Thread-compatible; move-only.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {

class MappedFile {
 public:
  // Maps `path` with `padding` readable zero bytes after it. Errors:
  //  - ReadManifestFile's (the errno, with the path) when the file cannot be opened;
  //  - InvalidArgument, worded as ReadManifestFile words it, when the file is over `max_bytes`;
  //  - FailedPrecondition when the file is not a regular file of known, nonzero size, or the
  //    mapping fails: the caller reads it the ordinary way instead.
  static absl::StatusOr<MappedFile> Open(const std::string& path, size_t padding,
                                         size_t max_bytes);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's content (empty once released).
  absl::string_view text() const { return absl::string_view(base_, size_); }

  // Unmaps the file; text() is empty from here on.
  void Release();

 private:
  MappedFile(char* base, size_t size, size_t mapped) : base_(base), size_(size), mapped_(mapped) {}

  char* base_ = nullptr;
  size_t size_ = 0;    // the file's bytes
  size_t mapped_ = 0;  // the whole mapping: the file, the padding, rounded up to pages
};

}  // namespace gpuprofile::dra
