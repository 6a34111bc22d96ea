// File: controller/kube/http1_codec.cc
#include "controller/kube/http1_codec.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpuprofile::kube {
namespace {

constexpr size_t kReadSize = 64 * 1024;
constexpr size_t kMaxChunkLine = 4096;

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127 || c == ':' || c == '(' || c == ')' || c == ',' || c == '/' ||
        c == '"' || c == ';' || c == '=' || c == '\\') {
      return false;
    }
  }
  return true;
}

bool IsFieldValue(absl::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 32 && c != '\t') || u == 127) return false;
  }
  return true;
}

bool IsRequestTarget(absl::string_view s) {
  if (s.empty() || s.front() != '/') return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127) return false;
  }
  return true;
}

absl::Status Malformed(absl::string_view what) {
  return absl::UnavailableError(absl::StrCat("malformed HTTP response from the server: ", what));
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool ListsToken(absl::string_view value, absl::string_view token) {
  for (absl::string_view part : absl::StrSplit(value, ',')) {
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(part), token)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> SerializeRequest(const HttpRequest& request,
                                             absl::string_view host_header,
                                             absl::string_view path_prefix) {
  if (!IsToken(request.method)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid HTTP method \"", request.method, "\""));
  }
  const std::string target = absl::StrCat(path_prefix, request.path);
  if (!IsRequestTarget(target)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid request URL \"", request.path,
        "\": it must start with / and hold no spaces or control characters"));
  }
  std::string out;
  out.reserve(256 + request.body.size());
  absl::StrAppend(&out, request.method, " ", target, " HTTP/1.1\r\nHost: ", host_header, "\r\n");
  bool content_type = false;
  for (const auto& [key, value] : request.headers) {
    if (!IsToken(key) || !IsFieldValue(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid HTTP header \"", key, "\": names are tokens, values hold no CR or LF"));
    }
    if (absl::EqualsIgnoreCase(key, "Host") || absl::EqualsIgnoreCase(key, "Content-Length") ||
        absl::EqualsIgnoreCase(key, "Transfer-Encoding") ||
        absl::EqualsIgnoreCase(key, "Connection")) {
      continue;  // the transport frames the message itself
    }
    if (absl::EqualsIgnoreCase(key, "Content-Type")) {
      if (request.body.empty()) continue;
      content_type = true;
    }
    absl::StrAppend(&out, key, ": ", value, "\r\n");
  }
  if (!request.body.empty()) {
    if (!content_type) out += "Content-Type: application/json\r\n";
    absl::StrAppend(&out, "Content-Length: ", request.body.size(), "\r\n");
  } else if (request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    out += "Content-Length: 0\r\n";
  }
  out += "\r\n";
  out += request.body;
  return out;
}

absl::Status ResponseReader::Fill() {
  if (eof_) return Malformed("the connection closed in the middle of a response");
  if (pos_ == end_) {
    pos_ = end_ = 0;
  } else if (pos_ > 0 && buffer_.size() - end_ < kReadSize) {
    buffer_.erase(0, pos_);  // keeps the storage: only the unread bytes move
    buffer_.resize(buffer_.capacity());
    end_ -= pos_;
    pos_ = 0;
  }
  // The storage grows only for a line longer than what is free (bounded by the callers' limits);
  // resizing within the capacity does not reallocate.
  if (buffer_.size() - end_ < kReadSize) buffer_.resize(end_ + kReadSize);
  absl::StatusOr<size_t> n = source_->Read(buffer_.data() + end_, buffer_.size() - end_);
  if (!n.ok()) return n.status();
  if (*n == 0) {
    eof_ = true;
    return Malformed(received_any_ ? "the connection closed in the middle of a response"
                                   : "the connection closed before any response");
  }
  end_ += *n;
  received_any_ = true;
  return absl::OkStatus();
}

absl::StatusOr<absl::string_view> ResponseReader::ReadLine(size_t max_bytes,
                                                          absl::string_view what) {
  size_t scanned = pos_;
  for (;;) {
    const size_t nl = absl::string_view(buffer_.data(), end_).find('\n', scanned);
    if (nl != absl::string_view::npos) {
      if (nl - pos_ > max_bytes) return Malformed(absl::StrCat(what, " is too long"));
      absl::string_view line(buffer_.data() + pos_, nl - pos_);
      pos_ = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return line;
    }
    if (end_ - pos_ > max_bytes) return Malformed(absl::StrCat(what, " is too long"));
    scanned = end_;
    const size_t before = pos_;
    if (absl::Status s = Fill(); !s.ok()) return s;
    scanned -= before - pos_;  // Fill may have moved the unread bytes to the front
  }
}

absl::StatusOr<ResponseHead> ResponseReader::ReadHead(bool head_request) {
  for (;;) {
    ResponseHead head;
    size_t head_bytes = 0;
    absl::StatusOr<absl::string_view> line = ReadLine(kMaxHeadBytes, "the status line");
    if (!line.ok()) return line.status();
    head_bytes += line->size();
    // "HTTP/1.1 200 OK": version, a space, three digits, then an optional reason.
    if (line->size() < 12 || !absl::StartsWith(*line, "HTTP/1.") || (*line)[8] != ' ' ||
        (line->size() > 12 && (*line)[12] != ' ') ||
        !absl::SimpleAtoi(line->substr(9, 3), &head.status) || head.status < 100 ||
        head.status > 999) {
      return Malformed(absl::StrCat("bad status line \"", line->substr(0, 80), "\""));
    }
    const bool http10 = (*line)[7] == '0';
    head.keep_alive = !http10;
    bool chunked = false;
    bool has_length = false;
    for (;;) {
      absl::StatusOr<absl::string_view> field = ReadLine(kMaxHeadBytes, "the response head");
      if (!field.ok()) return field.status();
      head_bytes += field->size() + 2;
      if (head_bytes > kMaxHeadBytes) return Malformed("the response head is too long");
      if (field->empty()) break;
      const size_t colon = field->find(':');
      if (colon == absl::string_view::npos || !IsToken(field->substr(0, colon))) {
        return Malformed(absl::StrCat("bad header line \"", field->substr(0, 80), "\""));
      }
      std::string name(field->substr(0, colon));
      std::string value(absl::StripAsciiWhitespace(field->substr(colon + 1)));
      if (absl::EqualsIgnoreCase(name, "Content-Length")) {
        uint64_t length = 0;
        if (value.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(value[0])) ||
            !absl::SimpleAtoi(value, &length) || (has_length && length != head.content_length)) {
          return Malformed(absl::StrCat("bad Content-Length \"", value.substr(0, 40), "\""));
        }
        has_length = true;
        head.content_length = length;
      } else if (absl::EqualsIgnoreCase(name, "Transfer-Encoding")) {
        // Only chunked is understood, and it must come last (RFC 9112 §6.1).
        std::vector<absl::string_view> codings = absl::StrSplit(value, ',');
        const absl::string_view last = absl::StripAsciiWhitespace(codings.back());
        if (!absl::EqualsIgnoreCase(last, "chunked") || codings.size() > 1) {
          return Malformed(absl::StrCat("unsupported Transfer-Encoding \"", value, "\""));
        }
        chunked = true;
      } else if (absl::EqualsIgnoreCase(name, "Connection")) {
        if (ListsToken(value, "close")) head.keep_alive = false;
        if (http10 && ListsToken(value, "keep-alive")) head.keep_alive = true;
      }
      head.headers.emplace_back(std::move(name), std::move(value));
    }
    if (head.status < 200) continue;  // 100 Continue and friends: the real response follows
    if (head_request || head.status == 204 || head.status == 304) {
      head.framing = BodyFraming::kNone;
    } else if (chunked) {
      head.framing = BodyFraming::kChunked;
    } else if (has_length) {
      head.framing = head.content_length == 0 ? BodyFraming::kNone : BodyFraming::kContentLength;
    } else {
      head.framing = BodyFraming::kUntilClose;
      head.keep_alive = false;
    }
    return head;
  }
}

absl::Status ResponseReader::ReadBody(const ResponseHead& head, uint64_t max_bytes,
                                      const std::function<bool(absl::string_view)>& on_data) {
  auto too_big = [&] {
    return Malformed(absl::StrCat("the response body is larger than ", max_bytes, " bytes"));
  };
  switch (head.framing) {
    case BodyFraming::kNone:
      return absl::OkStatus();
    case BodyFraming::kChunked:
      return ReadChunked(max_bytes, on_data);
    case BodyFraming::kContentLength: {
      if (head.content_length > max_bytes) return too_big();
      uint64_t left = head.content_length;
      for (;;) {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(left, end_ - pos_));
        if (take > 0) {
          absl::string_view piece(buffer_.data() + pos_, take);
          pos_ += take;
          left -= take;
          if (!on_data(piece)) return absl::OkStatus();
        }
        if (left == 0) return absl::OkStatus();
        if (absl::Status s = Fill(); !s.ok()) return s;
      }
    }
    case BodyFraming::kUntilClose: {
      uint64_t total = 0;
      for (;;) {
        const size_t take = end_ - pos_;
        if (take > 0) {
          total += take;
          if (total > max_bytes) return too_big();
          absl::string_view piece(buffer_.data() + pos_, take);
          pos_ += take;
          if (!on_data(piece)) return absl::OkStatus();
        }
        if (eof_) return absl::OkStatus();
        absl::Status s = Fill();
        if (!s.ok() && !eof_) return s;  // the end of the stream ends this body
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ResponseReader::ReadChunked(uint64_t max_bytes,
                                         const std::function<bool(absl::string_view)>& on_data) {
  uint64_t total = 0;
  for (;;) {
    absl::StatusOr<absl::string_view> size_line = ReadLine(kMaxChunkLine, "a chunk size line");
    if (!size_line.ok()) return size_line.status();
    absl::string_view hex = absl::StripAsciiWhitespace(size_line->substr(0, size_line->find(';')));
    uint64_t size = 0;
    if (hex.empty() || hex.size() > 15) {
      return Malformed(absl::StrCat("bad chunk size \"", size_line->substr(0, 40), "\""));
    }
    for (char c : hex) {
      int digit = 0;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return Malformed(absl::StrCat("bad chunk size \"", size_line->substr(0, 40), "\""));
      }
      size = size * 16 + static_cast<uint64_t>(digit);
    }
    if (size == 0) {
      // Trailer fields (ignored) up to an empty line.
      size_t trailer_bytes = 0;
      for (;;) {
        absl::StatusOr<absl::string_view> trailer = ReadLine(kMaxHeadBytes, "the trailer");
        if (!trailer.ok()) return trailer.status();
        trailer_bytes += trailer->size() + 2;
        if (trailer_bytes > kMaxHeadBytes) return Malformed("the trailer is too long");
        if (trailer->empty()) return absl::OkStatus();
      }
    }
    total += size;
    if (total > max_bytes) {
      return Malformed(absl::StrCat("the response body is larger than ", max_bytes, " bytes"));
    }
    uint64_t left = size;
    while (left > 0) {
      if (pos_ == end_) {
        if (absl::Status s = Fill(); !s.ok()) return s;
      }
      const size_t take = static_cast<size_t>(std::min<uint64_t>(left, end_ - pos_));
      absl::string_view piece(buffer_.data() + pos_, take);
      pos_ += take;
      left -= take;
      if (!on_data(piece)) return absl::OkStatus();
    }
    // The chunk's data ends with CRLF (a bare LF is tolerated); anything else means the
    // chunk held more than its size said.
    for (bool seen_cr = false;;) {
      if (pos_ == end_) {
        if (absl::Status s = Fill(); !s.ok()) return s;
      }
      const char c = buffer_[pos_++];
      if (c == '\n') break;
      if (c != '\r' || seen_cr) return Malformed("a chunk is longer than its size says");
      seen_cr = true;
    }
  }
}

absl::StatusOr<bool> LineSplitter::Add(absl::string_view data) {
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    if (nl == absl::string_view::npos) {
      if (partial_.size() + data.size() > max_line_) {
        return Malformed(absl::StrCat("a streamed line is longer than ", max_line_, " bytes"));
      }
      partial_.append(data.data(), data.size());
      return true;
    }
    if (partial_.size() + nl > max_line_) {
      return Malformed(absl::StrCat("a streamed line is longer than ", max_line_, " bytes"));
    }
    bool go_on;
    if (partial_.empty()) {
      go_on = Deliver(data.substr(0, nl));
    } else {
      partial_.append(data.data(), nl);
      go_on = Deliver(partial_);
      partial_.clear();
    }
    if (!go_on) return false;
    data.remove_prefix(nl + 1);
  }
  return true;
}

absl::StatusOr<bool> LineSplitter::Finish() {
  if (partial_.empty()) return true;
  std::string last = std::move(partial_);
  partial_.clear();
  return Deliver(last);
}

bool LineSplitter::Deliver(absl::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return true;
  return (*on_line_)(line);
}

}  // namespace gpuprofile::kube
