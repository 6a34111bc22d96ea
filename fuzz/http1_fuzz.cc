// File: fuzz/http1_fuzz.cc
// libFuzzer target for the socket transport's HTTP/1.1 response reader (controller/kube/
// http1_codec.h): the input is what a server sends on one connection. Up to three responses are
// read from it, each body split into streamed lines as a watch would be. Besides crashes,
// sanitizer reports, leaks and hangs, it checks the reader's promise that framing does not depend
// on how the bytes arrive: reading the input in one piece and one byte at a time gives the same
// statuses, headers, bodies, lines and errors. A broken promise aborts.
//
// Run by scripts/fuzz.sh; fuzz/http1_corpus holds seed responses (lengths, chunked, trailers,
// interim responses, keep-alive pairs).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "controller/kube/http1_codec.h"

namespace {

using gpuprofile::kube::ByteSource;
using gpuprofile::kube::LineCallback;
using gpuprofile::kube::LineSplitter;
using gpuprofile::kube::ResponseHead;
using gpuprofile::kube::ResponseReader;

class Source final : public ByteSource {
 public:
  Source(const uint8_t* data, size_t size, size_t step) : data_(data), size_(size), step_(step) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::min({size, step_, size_ - pos_});
    std::copy_n(data_ + pos_, n, buffer);
    pos_ += n;
    return n;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t step_;
  size_t pos_ = 0;
};

// Everything read, as one string to compare.
std::string ReadAll(const uint8_t* data, size_t size, size_t step) {
  Source source(data, size, step);
  ResponseReader reader(&source);
  std::string out;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<ResponseHead> head = reader.ReadHead(/*head_request=*/false);
    if (!head.ok()) return out + "|head error: " + head.status().ToString();
    out += "|" + std::to_string(head->status) + (head->keep_alive ? " keep" : " close");
    for (const auto& [k, v] : head->headers) out += "|" + k + "=" + v;
    LineCallback on_line = [&](absl::string_view line) {
      out += "|line " + std::string(line);
      return true;
    };
    LineSplitter lines(&on_line, 4096);
    std::string line_error;
    absl::Status body = reader.ReadBody(*head, 1 << 20, [&](absl::string_view piece) {
      out += "|data " + std::to_string(piece.size());
      absl::StatusOr<bool> go_on = lines.Add(piece);
      if (!go_on.ok()) line_error = go_on.status().ToString();
      return go_on.ok();
    });
    if (!line_error.empty()) return out + "|line error: " + line_error;
    if (!body.ok()) return out + "|body error: " + body.ToString();
    absl::StatusOr<bool> last = lines.Finish();
    if (!last.ok()) return out + "|line error: " + last.status().ToString();
    if (!head->keep_alive) break;
  }
  return out;
}

// The pieces differ with the step; the framing must not.
std::string WithoutPieces(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 6, "|data ") == 0) {
      i = s.find('|', i + 1);
      if (i == std::string::npos) break;
      continue;
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string whole = WithoutPieces(ReadAll(data, size, SIZE_MAX));
  const std::string bytewise = WithoutPieces(ReadAll(data, size, 1));
  if (whole != bytewise) {
    std::fprintf(stderr, "framing depends on the reads:\n%s\n%s\n", whole.c_str(),
                 bytewise.c_str());
    std::abort();
  }
  return 0;
}
