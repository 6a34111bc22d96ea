// File: e2e/tests/raw_http_client.cc
#include "e2e/tests/raw_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpuprofile::e2e::testing {
namespace {

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Parses the status line and headers at the start of `raw`; returns the header length (0 when
// incomplete).
size_t ParseHead(const std::string& raw, int* status, std::map<std::string, std::string>* headers) {
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  std::vector<std::string> lines = absl::StrSplit(raw.substr(0, end), "\r\n");
  if (lines.empty()) return 0;
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  if (first.size() >= 2) absl::SimpleAtoi(first[1], status);
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    (*headers)[name] = value;
  }
  return end + 4;
}

// Decodes complete chunks from `raw` into `out`; returns false when the final chunk was seen.
bool DecodeChunked(std::string& raw, std::string& out) {
  for (;;) {
    size_t line_end = raw.find("\r\n");
    if (line_end == std::string::npos) return true;
    size_t size = std::strtoul(raw.substr(0, line_end).c_str(), nullptr, 16);
    if (raw.size() < line_end + 2 + size + 2) return true;
    if (size == 0) {
      raw.clear();
      return false;
    }
    out += raw.substr(line_end + 2, size);
    raw.erase(0, line_end + 2 + size + 2);
  }
}

}  // namespace

nlohmann::json RawResponse::Json() const { return nlohmann::json::parse(body, nullptr, false); }

RawHttpClient::RawHttpClient(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  size_t colon = rest.rfind(':');
  host_ = rest.substr(0, colon);
  port_ = std::atoi(rest.substr(colon + 1).c_str());
}

int RawHttpClient::Connect() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

RawResponse RawHttpClient::Request(const std::string& method, const std::string& path,
                                   const std::string& body, const std::string& content_type,
                                   const std::string& accept) {
  RawResponse response;
  int fd = Connect();
  if (fd < 0) return response;
  std::string request = absl::StrCat(method, " ", path, " HTTP/1.1\r\nHost: ", host_, ":", port_,
                                     "\r\nAccept: ", accept, "\r\nConnection: close\r\n");
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    absl::StrAppend(&request, "Content-Type: ", content_type, "\r\nContent-Length: ", body.size(),
                    "\r\n");
  }
  absl::StrAppend(&request, "\r\n", body);
  if (!SendAll(fd, request)) {
    ::close(fd);
    return response;
  }
  std::string raw;
  size_t head = 0;
  char buf[65536];
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  for (;;) {
    if (head == 0) head = ParseHead(raw, &response.status, &response.headers);
    if (head > 0) {
      std::string rest = raw.substr(head);
      if (response.Header("transfer-encoding") == "chunked") {
        std::string decoded;
        if (!DecodeChunked(rest, decoded)) {
          response.body = decoded;
          break;
        }
      } else if (!response.Header("content-length").empty()) {
        size_t length = std::strtoul(response.Header("content-length").c_str(), nullptr, 10);
        if (rest.size() >= length) {
          response.body = rest.substr(0, length);
          break;
        }
      }
    }
    pollfd p{fd, POLLIN, 0};
    int wait = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (wait <= 0 || ::poll(&p, 1, wait) <= 0) break;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      if (head > 0) response.body = raw.substr(head);
      break;
    }
    raw.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return response;
}

std::unique_ptr<LineStream> RawHttpClient::Stream(const std::string& path) {
  int fd = Connect();
  if (fd < 0) return nullptr;
  std::string request = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: ", host_, ":", port_,
                                     "\r\nAccept: application/json\r\n\r\n");
  if (!SendAll(fd, request)) {
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<LineStream>(fd, "");
}

LineStream::LineStream(int fd, std::string buffered) : fd_(fd), raw_(std::move(buffered)) {
  Fill(absl::Now() + absl::Seconds(10));
}

LineStream::~LineStream() { ::close(fd_); }

bool LineStream::Fill(absl::Time deadline) {
  char buf[65536];
  for (;;) {
    if (!headers_done_) {
      std::map<std::string, std::string> headers;
      size_t head = ParseHead(raw_, &status_, &headers);
      if (head > 0) {
        headers_done_ = true;
        chunked_ = headers["transfer-encoding"] == "chunked";
        raw_.erase(0, head);
        DecodeChunks();
        return true;
      }
    }
    if (ended_) return false;
    pollfd p{fd_, POLLIN, 0};
    int wait = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (wait <= 0 || ::poll(&p, 1, wait) <= 0) return false;
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) {
      ended_ = true;
      if (!chunked_) decoded_ += raw_;
      return false;
    }
    raw_.append(buf, static_cast<size_t>(n));
    if (headers_done_) {
      DecodeChunks();
      return true;
    }
  }
}

bool LineStream::DecodeChunks() {
  if (!chunked_) {
    decoded_ += raw_;
    raw_.clear();
    return true;
  }
  if (!DecodeChunked(raw_, decoded_)) ended_ = true;
  return true;
}

std::optional<std::string> LineStream::NextLine(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    size_t nl = decoded_.find('\n');
    if (nl != std::string::npos) {
      std::string line = decoded_.substr(0, nl);
      decoded_.erase(0, nl + 1);
      return line;
    }
    if (ended_ || absl::Now() >= deadline) return std::nullopt;
    if (!Fill(deadline) && ended_ && decoded_.find('\n') == std::string::npos) return std::nullopt;
  }
}

std::optional<nlohmann::json> LineStream::NextEvent(absl::Duration timeout) {
  std::optional<std::string> line = NextLine(timeout);
  if (!line) return std::nullopt;
  return nlohmann::json::parse(*line, nullptr, false);
}

}  // namespace gpuprofile::e2e::testing
