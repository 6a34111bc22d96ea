// File: test/cel/url_library_test.cc
// Kubernetes URL library: Go net/url ParseRequestURI validation and the accessors.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {
namespace {

const FunctionRegistry& Registry() {
  static const FunctionRegistry* r = [] {
    auto* reg = new FunctionRegistry();
    RegisterUrlLibrary(*reg);
    return reg;
  }();
  return *r;
}

Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  const std::vector<Overload>* overloads = Registry().Find(fn);
  if (overloads == nullptr) return Value::Error("test: function not found");
  for (const Overload& o : *overloads) {
    if (o.id != id) continue;
    if (o.params.size() != args.size()) return Value::Error("test: arity");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!o.params[i].AcceptsRuntime(args[i])) return Value::Error("test: kind");
    }
    return o.impl(args);
  }
  return Value::Error("test: overload not found");
}

Value S(std::string s) { return Value::String(std::move(s)); }

// Strings raw, errors as "error: <msg>", everything else as DebugString.
std::string Show(const Value& v) {
  if (v.is_error()) return "error: " + std::string(v.error_message());
  if (v.kind() == ValueKind::kString) return std::string(v.string_value());
  return v.DebugString();
}

// Compiles with every library and evaluates without variables.
std::string Eval(const std::string& expr) {
  auto program = Compile(expr, Environment::Standard());
  if (!program.ok()) return "compile error: " + std::string(program.status().message());
  return Show((*program)->Evaluate(absl::Span<const Value>()));
}

void ExpectGates(int minor, absl::string_view library_prefix) {
  for (const auto& [name, overloads] : Registry().functions()) {
    for (const Overload& o : overloads) {
      EXPECT_EQ(o.gate.introduced_minor, minor) << o.id;
      EXPECT_EQ(o.gate.library.rfind(std::string(library_prefix), 0), 0u) << o.id;
    }
  }
}

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
  ExpectGates(0, "Kubernetes URL");
  EXPECT_EQ(Url("https://a/").TypeName(), "kubernetes.URL");
  EXPECT_EQ(Eval("url('https://example.com:8443/x').getPort() == '8443'"), "true");
  EXPECT_EQ(Eval("isURL('not a url')"), "false");
}
}  // namespace
}  // namespace gpuprofile::cel
