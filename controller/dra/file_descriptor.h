// File: controller/dra/file_descriptor.h
// A file descriptor closed when it goes out of scope, for the readers that open files
// themselves (mapped_file.h, slice_list_file.h).
// Thread-compatible; neither copyable nor movable.
#pragma once

#include <unistd.h>

namespace gpuprofile::dra {

class FileDescriptor {
 public:
  // Takes `fd` (a negative one, as open() returns on failure, holds nothing).
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace gpuprofile::dra
