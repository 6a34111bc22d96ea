// File: test/kube/http1_codec_test.cc
// The socket transport's HTTP/1.1 framing with scripted bytes: requests as written, responses
// read whole and split into the smallest reads, keep-alive rules, and every malformed or hostile
// response an error that says what was wrong.
#include "controller/kube/http1_codec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace http1_codec_test {
namespace {

// Hands out `bytes` at most `step` bytes per Read, then the end of the stream.
class ScriptedSource final : public ByteSource {
 public:
  explicit ScriptedSource(std::string bytes, size_t step = SIZE_MAX)
      : bytes_(std::move(bytes)), step_(step) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::min({size, step_, bytes_.size() - pos_});
    std::copy_n(bytes_.data() + pos_, n, buffer);
    pos_ += n;
    return n;
  }

 private:
  std::string bytes_;
  size_t step_;
  size_t pos_ = 0;
};

struct Read {
  ResponseHead head;
  std::string body;
};

absl::StatusOr<Read> ReadOne(ResponseReader& reader, uint64_t max_body = 1 << 20,
                             bool head_request = false) {
  Read out;
  absl::StatusOr<ResponseHead> head = reader.ReadHead(head_request);
  if (!head.ok()) return head.status();
  out.head = *head;
  absl::Status s = reader.ReadBody(*head, max_body, [&](absl::string_view piece) {
    out.body.append(piece.data(), piece.size());
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

TEST(SerializeRequestTest, WritesTheRequestLineHostHeadersAndBody) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/api/v1/namespaces/default/configmaps?fieldManager=x";
  r.headers = {{"Authorization", "Bearer t"}, {"Accept", "application/json"}};
  r.body = "{}";
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeRequest(r, "10.0.0.1:6443", "/k8s/c1"));
  EXPECT_EQ(bytes,
            "POST /k8s/c1/api/v1/namespaces/default/configmaps?fieldManager=x HTTP/1.1\r\n"
            "Host: 10.0.0.1:6443\r\nAuthorization: Bearer t\r\nAccept: application/json\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
}

TEST(SerializeRequestTest, KeepsTheCallersContentTypeAndFramesItself) {
  HttpRequest r;
  r.method = "PATCH";
  r.path = "/x";
  r.headers = {{"Content-Type", "application/merge-patch+json"},
               {"Content-Length", "99"},
               {"Host", "evil"},
               {"Connection", "close"}};
  r.body = "{\"a\":1}";
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeRequest(r, "h", ""));
  EXPECT_EQ(bytes,
            "PATCH /x HTTP/1.1\r\nHost: h\r\nContent-Type: application/merge-patch+json\r\n"
            "Content-Length: 7\r\n\r\n{\"a\":1}");
  HttpRequest get;
  get.path = "/y";
  get.headers = {{"Content-Type", "application/json"}};
  ASSERT_OK_AND_ASSIGN(bytes, SerializeRequest(get, "h", ""));
  EXPECT_EQ(bytes, "GET /y HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST(SerializeRequestTest, RefusesWhatWouldBreakTheFraming) {
  HttpRequest r;
  r.path = "/a b";
  EXPECT_EQ(SerializeRequest(r, "h", "").status().code(), absl::StatusCode::kInvalidArgument);
  r.path = "no-slash";
  EXPECT_EQ(SerializeRequest(r, "h", "").status().code(), absl::StatusCode::kInvalidArgument);
  r.path = "/ok\r\nX: y";
  EXPECT_EQ(SerializeRequest(r, "h", "").status().code(), absl::StatusCode::kInvalidArgument);
  r.path = "/ok";
  r.headers = {{"X-Injected", "v\r\nEvil: 1"}};
  absl::Status s = SerializeRequest(r, "h", "").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("X-Injected"), absl::string_view::npos) << s;
  r.headers = {{"Bad Name", "v"}};
  EXPECT_EQ(SerializeRequest(r, "h", "").status().code(), absl::StatusCode::kInvalidArgument);
  r.headers.clear();
  r.method = "GE T";
  EXPECT_EQ(SerializeRequest(r, "h", "").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ResponseReaderTest, ContentLengthBodyInOneByteReadsThenTheNextResponse) {
  const std::string two =
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n"
      "{\"kind\":\"A\"}\n"
      "HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}";
  for (size_t step : {size_t{1}, size_t{7}, SIZE_MAX}) {
    ScriptedSource source(two, step);
    ResponseReader reader(&source);
    ASSERT_OK_AND_ASSIGN(Read first, ReadOne(reader));
    EXPECT_EQ(first.head.status, 201);
    EXPECT_TRUE(first.head.keep_alive);
    EXPECT_EQ(first.body, "{\"kind\":\"A\"}\n");
    ASSERT_EQ(first.head.headers.size(), 2u);
    EXPECT_EQ(first.head.headers[0].first, "Content-Type");
    EXPECT_EQ(first.head.headers[0].second, "application/json");
    ASSERT_OK_AND_ASSIGN(Read second, ReadOne(reader));
    EXPECT_EQ(second.head.status, 404);
    EXPECT_EQ(second.body, "{}");
    EXPECT_FALSE(reader.has_buffered());
  }
}

TEST(ResponseReaderTest, ChunkedWithExtensionsAndTrailers) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\n\r\n";
  for (size_t step : {size_t{1}, size_t{3}, SIZE_MAX}) {
    ScriptedSource source(response, step);
    ResponseReader reader(&source);
    ASSERT_OK_AND_ASSIGN(Read r, ReadOne(reader));
    EXPECT_EQ(r.head.framing, BodyFraming::kChunked);
    EXPECT_EQ(r.body, "hello, world!!!");
    EXPECT_FALSE(reader.has_buffered());
  }
}

TEST(ResponseReaderTest, BodiesThatEndWithTheConnectionOrNotAtAll) {
  ScriptedSource until_close("HTTP/1.1 200 OK\r\n\r\nall of it");
  ResponseReader a(&until_close);
  ASSERT_OK_AND_ASSIGN(Read r, ReadOne(a));
  EXPECT_EQ(r.head.framing, BodyFraming::kUntilClose);
  EXPECT_FALSE(r.head.keep_alive);
  EXPECT_EQ(r.body, "all of it");

  ScriptedSource no_content("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n");
  ResponseReader b(&no_content);
  ASSERT_OK_AND_ASSIGN(r, ReadOne(b));
  EXPECT_EQ(r.head.framing, BodyFraming::kNone);
  EXPECT_TRUE(r.body.empty());

  ScriptedSource head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
  ResponseReader c(&head);
  ASSERT_OK_AND_ASSIGN(r, ReadOne(c, 100, /*head_request=*/true));
  EXPECT_TRUE(r.body.empty());
}

TEST(ResponseReaderTest, InterimResponsesAreSkippedAndCloseIsHonoured) {
  ScriptedSource source(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\n"
      "Content-Length: 1\r\n\r\nx");
  ResponseReader reader(&source);
  ASSERT_OK_AND_ASSIGN(Read r, ReadOne(reader));
  EXPECT_EQ(r.head.status, 200);
  EXPECT_FALSE(r.head.keep_alive);
  EXPECT_EQ(r.body, "x");

  ScriptedSource old("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");
  ResponseReader http10(&old);
  ASSERT_OK_AND_ASSIGN(r, ReadOne(http10));
  EXPECT_FALSE(r.head.keep_alive);
  ScriptedSource old_kept("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n");
  ResponseReader http10_kept(&old_kept);
  ASSERT_OK_AND_ASSIGN(r, ReadOne(http10_kept));
  EXPECT_TRUE(r.head.keep_alive);
}

// Each malformed response is an Unavailable error whose message names the problem.
TEST(ResponseReaderTest, MalformedAndHostileResponsesAreClearErrors) {
  struct Case {
    std::string bytes;
    std::string says;
    uint64_t max_body = 1 << 20;
  };
  const std::vector<Case> cases = {
      {"", "closed before any response"},
      {"SSH-2.0-OpenSSH\r\n\r\n", "bad status line"},
      {"HTTP/1.1 2000 OK\r\n\r\n", "bad status line"},
      {"HTTP/1.1 20 OK\r\n\r\n", "bad status line"},
      {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "bad header line"},
      {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
       "bad Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       "bad Content-Length"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "unsupported Transfer"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "closed in the middle"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", "larger than 5 bytes", 5},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n",
       "bad chunk size"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n0123456789\r\n0\r\n\r\n",
       "longer than its size"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n6\r\n012345\r\n",
       "larger than 10 bytes", 10},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc", "closed in the middle"},
      {"HTTP/1.1 200 OK\r\nX: " + std::string(300 * 1024, 'a') + "\r\n\r\n", "too long"},
      {"HTTP/1.1 200 OK\r\n" + std::string(300 * 1024, 'a'), "too long"},
  };
  for (const Case& c : cases) {
    for (size_t step : {size_t{1}, SIZE_MAX}) {
      if (step == 1 && c.bytes.size() > 4096) continue;  // the same path, only slower
      ScriptedSource source(c.bytes, step);
      ResponseReader reader(&source);
      absl::StatusOr<Read> r = ReadOne(reader, c.max_body);
      ASSERT_FALSE(r.ok()) << c.bytes.substr(0, 80);
      EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
      EXPECT_NE(r.status().message().find(c.says), absl::string_view::npos)
          << c.bytes.substr(0, 80) << " -> " << r.status();
    }
  }
}

TEST(ResponseReaderTest, StoppingEarlyLeavesTheRestUnread) {
  ScriptedSource source("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabcdef", 2);
  ResponseReader reader(&source);
  ASSERT_OK_AND_ASSIGN(ResponseHead head, reader.ReadHead(false));
  std::string got;
  ASSERT_OK(reader.ReadBody(head, 100, [&](absl::string_view piece) {
    got.append(piece.data(), piece.size());
    return false;
  }));
  EXPECT_EQ(got.size(), 2u);
}

std::vector<std::string> Split(const std::vector<std::string>& pieces, size_t max_line,
                               absl::Status* error = nullptr, int stop_after = -1) {
  std::vector<std::string> lines;
  LineCallback on_line = [&](absl::string_view line) {
    lines.emplace_back(line);
    return stop_after < 0 || static_cast<int>(lines.size()) < stop_after;
  };
  LineSplitter splitter(&on_line, max_line);
  for (const std::string& piece : pieces) {
    absl::StatusOr<bool> go_on = splitter.Add(piece);
    if (!go_on.ok()) {
      if (error) *error = go_on.status();
      return lines;
    }
    if (!*go_on) return lines;
  }
  absl::StatusOr<bool> last = splitter.Finish();
  if (!last.ok() && error) *error = last.status();
  return lines;
}

TEST(LineSplitterTest, LinesAcrossPiecesWithoutCrAndEmptyLines) {
  EXPECT_EQ(Split({"{\"a\"", ":1}\r\n\n{\"b\":2}\n", "\r\n{\"c\"", ":3}"}, 100),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}));
  EXPECT_EQ(Split({"one\ntwo\nthree\n"}, 100, nullptr, 2),
            (std::vector<std::string>{"one", "two"}));
}

TEST(LineSplitterTest, ALineLongerThanTheLimitIsAnError) {
  absl::Status error;
  std::vector<std::string> lines = Split({"ok\n", "0123456789", "0123456789\n"}, 15, &error);
  EXPECT_EQ(lines, std::vector<std::string>{"ok"});
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(error.message().find("longer than 15 bytes"), absl::string_view::npos) << error;
  absl::Status single;
  Split({std::string(20, 'x')}, 15, &single);
  EXPECT_EQ(single.code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace http1_codec_test
}  // namespace gpuprofile::kube
