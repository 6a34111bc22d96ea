// File: test/cel/url_library_test.cc
// Kubernetes URL library: Go net/url ParseRequestURI validation and the accessors.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace url_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterUrlLibrary});
  return *lib;
}
Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  return Lib().Call(fn, id, std::move(args));
}
using testing::D;
using testing::Eval;
using testing::I;
using testing::L;
using testing::S;
using testing::Show;

Value Url(const std::string& s) { return Call("url", "string_to_url", {S(s)}); }

std::string Get(const std::string& url, const char* fn, const char* id) {
  Value u = Url(url);
  if (u.is_error()) return Show(u);
  return Show(Call(fn, id, {u}));
}

TEST(UrlLibraryTest, Accessors) {
  EXPECT_EQ(Get("https://example.com/path", "getScheme", "url_get_scheme"), "https");
  EXPECT_EQ(Get("HTTPS://example.com/", "getScheme", "url_get_scheme"), "https");
  EXPECT_EQ(Get("/path", "getScheme", "url_get_scheme"), "");
  EXPECT_EQ(Get("https://example.com:80/", "getHost", "url_get_host"), "example.com:80");
  EXPECT_EQ(Get("https://[::1]:80/", "getHost", "url_get_host"), "[::1]:80");
  EXPECT_EQ(Get("https://[::1]:80/", "getHostname", "url_get_hostname"), "::1");
  EXPECT_EQ(Get("https://example.com:80/", "getHostname", "url_get_hostname"), "example.com");
  EXPECT_EQ(Get("https://example.com:80/", "getPort", "url_get_port"), "80");
  EXPECT_EQ(Get("https://example.com/", "getPort", "url_get_port"), "");
  EXPECT_EQ(Get("/path", "getHost", "url_get_host"), "");
  EXPECT_EQ(Get("https://example.com/path", "getEscapedPath", "url_get_escaped_path"), "/path");
  EXPECT_EQ(Get("https://example.com/path with spaces/", "getEscapedPath",
                "url_get_escaped_path"),
            "/path%20with%20spaces/");
  EXPECT_EQ(Get("https://example.com/a%2Fb", "getEscapedPath", "url_get_escaped_path"),
            "/a%2Fb");
  EXPECT_EQ(Get("https://example.com", "getEscapedPath", "url_get_escaped_path"), "");
  EXPECT_EQ(Get("https://example.com/p#frag", "getEscapedPath", "url_get_escaped_path"), "/p");
  EXPECT_EQ(Get("https://example.com/path?k1=a&k2=b&k2=c", "getQuery", "url_get_query"),
            Value::Map([] {
              auto m = std::make_shared<HashMapValue>();
              m->Insert(S("k1"), Value::List({S("a")}));
              m->Insert(S("k2"), Value::List({S("b"), S("c")}));
              return m;
            }()).DebugString());
  EXPECT_EQ(Get("https://example.com/path?key with spaces=value+x", "getQuery", "url_get_query"),
            Value::Map([] {
              auto m = std::make_shared<HashMapValue>();
              m->Insert(S("key with spaces"), Value::List({S("value x")}));
              return m;
            }()).DebugString());
  EXPECT_EQ(Get("https://example.com/path?", "getQuery", "url_get_query"),
            Value::Map(std::make_shared<HashMapValue>()).DebugString());
}

TEST(UrlLibraryTest, ValidationFollowsParseRequestURI) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"https://example.com", true}, {"/absolute/path", true}, {"mailto:someone", true},
      {"example.com", false},        {"", false},              {"./relative", false},
      {"https://exa mple.com", false}, {"https://example.com:8a/", false},
      {"https://example.com/%zz", false}, {"*", true}, {"https://a\nb", false},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(Call("isURL", "is_url_string", {S(in)}).IsTrue(), want) << in;
  }
  EXPECT_EQ(Show(Url("example.com")),
            "error: URL parse error during conversion from string: parse \"example.com\": invalid "
            "URI for request");
  EXPECT_EQ(Show(Url("")),
            "error: URL parse error during conversion from string: parse \"\": empty url");
  EXPECT_EQ(Show(Url("https://example.com:8a/")),
            "error: URL parse error during conversion from string: parse "
            "\"https://example.com:8a/\": invalid port \":8a\" after host");
  EXPECT_EQ(Show(Url("https://example.com/%zz")),
            "error: URL parse error during conversion from string: parse "
            "\"https://example.com/%zz\": invalid URL escape \"%zz\"");
  EXPECT_EQ(Show(Url(":foo")),
            "error: URL parse error during conversion from string: parse \":foo\": missing "
            "protocol scheme");
}

TEST(UrlLibraryTest, GatesAndExpressions) {
  Lib().ExpectGates(0, "Kubernetes URL");
  EXPECT_EQ(Url("https://a/").TypeName(), "kubernetes.URL");
  EXPECT_EQ(Eval("url('https://example.com:8443/x').getPort() == '8443'"), "true");
  EXPECT_EQ(Eval("isURL('not a url')"), "false");
}
}  // namespace
}  // namespace url_library_test
}  // namespace gpuprofile::cel::internal
