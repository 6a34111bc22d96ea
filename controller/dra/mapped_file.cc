// File: controller/dra/mapped_file.cc
#include "controller/dra/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "controller/dra/file_descriptor.h"

namespace gpuprofile::dra {

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path, size_t padding,
                                            size_t max_bytes) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot open"));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file with a size"));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (absl::Status s = limits::CheckSize(size, max_bytes, path, "the file"); !s.ok()) return s;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t mapped = (size + padding + page - 1) / page * page;
  // Reserve the whole range as zero pages first, then lay the file over its start: the pages
  // past the file's last one stay zero, so the padding is readable whatever the file's size.
  void* base = ::mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": cannot reserve memory to map"));
  }
  // MAP_POPULATE maps the cached pages at once instead of one fault at a time.
  if (::mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd.get(), 0) ==
      MAP_FAILED) {
    ::munmap(base, mapped);
    return absl::FailedPreconditionError(absl::StrCat(path, ": cannot map"));
  }
  return MappedFile(static_cast<char*>(base), size, mapped);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Release();
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { Release(); }

void MappedFile::Release() {
  if (base_ != nullptr) ::munmap(base_, mapped_);
  base_ = nullptr;
  size_ = 0;
  mapped_ = 0;
}

}  // namespace gpuprofile::dra
