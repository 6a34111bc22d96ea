// File: controller/dra/slice_list_file.cc
#include "controller/dra/slice_list_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "controller/core/input_limits.h"
#include "controller/dra/file_descriptor.h"
#include "controller/dra/list_runs.h"

namespace gpuprofile::dra {
namespace {

// Reads exactly `n` bytes at `offset` into `out`; false on an error or a short file.
bool ReadAt(int fd, size_t offset, size_t n, char* out) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    offset += static_cast<size_t>(got);
    n -= static_cast<size_t>(got);
  }
  return true;
}

// One run at a time, between brackets, read into one buffer that slides along the file: each
// byte is read once, and only what a run's window read past the run's end (about 64 KiB) is
// moved to the buffer's front for the next run. The run is bracketed in place: "[" over the
// byte before it (the comma that ended the previous run, or a spare byte) and "]" over the
// comma that ends it.
class RunReader {
 public:
  RunReader(int fd, const ListLayout& layout)
      : fd_(fd), layout_(layout), begin_(layout.first), start_(layout.first), end_(layout.first) {}

  NextRun Next(absl::string_view* run) {
    Restore();
    if (begin_ >= layout_.close) return NextRun::kEnd;
    const std::optional<size_t> found = FindRunEnd(
        layout_, begin_, kListRunBytes, [this](size_t length) -> std::optional<absl::string_view> {
          if (!Fill(std::min(layout_.close, begin_ + length))) return std::nullopt;
          return absl::string_view(At(begin_), end_ - begin_);
        });
    if (!found) return NextRun::kUnreadable;
    size_t end = *found;
    if (end == absl::string_view::npos) {
      // The last run, or one whose item ends too far: the run goes on to the items' end.
      if (!Fill(layout_.close)) return NextRun::kUnreadable;
      end = layout_.close;
    }
    // "[" just before the run, "]" at its end, zeros after (saved for the next run).
    Room(end + 1 + kFastDecoderPadding);
    At(begin_)[-1] = '[';
    saved_at_ = end;
    std::memcpy(saved_, At(end), sizeof(saved_));
    *At(end) = ']';
    std::memset(At(end) + 1, 0, kFastDecoderPadding);
    *run = absl::string_view(At(begin_) - 1, end - begin_ + 2);
    begin_ = end == layout_.close ? end : end + 1;  // past the comma
    return NextRun::kRun;
  }

 private:
  // Where the file's byte at `offset` is in the buffer; buffer_[0] is a spare byte for "[".
  char* At(size_t offset) { return buffer_.get() + 1 + (offset - start_); }

  // The bytes the previous run's "]" and padding covered, back as they were in the file.
  void Restore() {
    if (saved_at_ == kNone) return;
    std::memcpy(At(saved_at_), saved_, sizeof(saved_));
    saved_at_ = kNone;
  }

  // The buffer holds the file from begin_ up to `until`: what it holds from begin_ on is moved
  // to its front, and the rest is read.
  bool Fill(size_t until) {
    if (until <= end_) return true;
    if (begin_ > start_) {
      std::memmove(buffer_.get() + 1, At(begin_), end_ - begin_);
      start_ = begin_;
    }
    Room(until + 1 + kFastDecoderPadding);
    if (!ReadAt(fd_, end_, until - end_, At(end_))) return false;
    end_ = until;
    return true;
  }

  // Room in the buffer up to (not including) the file offset `limit`, keeping its content.
  void Room(size_t limit) {
    const size_t need = 1 + (limit - start_);
    if (need <= capacity_) return;
    const size_t grown_size = std::max(need, capacity_ * 2);
    std::unique_ptr<char[]> grown(new char[grown_size]);
    if (capacity_ > 0) std::memcpy(grown.get(), buffer_.get(), 1 + (end_ - start_));
    buffer_ = std::move(grown);
    capacity_ = grown_size;
  }

  static constexpr size_t kNone = ~size_t{0};
  const int fd_;
  const ListLayout& layout_;
  size_t begin_;  // the next run's first byte (file offset)
  size_t start_;  // the file offset of buffer_[1]
  size_t end_;    // the buffer holds the file's [start_, end_)
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  char saved_[kFastDecoderPadding + 1];
  size_t saved_at_ = kNone;
};

}  // namespace

FastDecodeResult FastDecodeSliceListFile(const std::string& path, const AttributeDemand& demand) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < kListRunsFromBytes || size > limits::kMaxManifestFileBytes) return {};
  std::string head(std::min(size, kListHeadBytes), '\0');
  std::string tail(std::min(size, kListTailBytes), '\0');
  if (!ReadAt(fd.get(), 0, head.size(), head.data()) ||
      !ReadAt(fd.get(), size - tail.size(), tail.size(), tail.data())) {
    return {};
  }
  const std::optional<ListLayout> layout = FindListLayout(head, tail, size);
  if (!layout) return {};
  RunReader reader(fd.get(), *layout);
  return FastDecodeSliceRuns(
      layout->envelope, [&reader](absl::string_view* run) { return reader.Next(run); }, demand);
}

}  // namespace gpuprofile::dra
