// File: test/cel/format_library_test.cc
// Kubernetes format library: named formats and their validation messages.
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
namespace format_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterFormatLibrary});
  return *lib;
}
const FunctionRegistry& Registry() { return Lib().registry(); }
Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  return Lib().Call(fn, id, std::move(args));
}
using testing::D;
using testing::Eval;
using testing::I;
using testing::L;
using testing::S;
using testing::Show;

std::string Validate(const char* format, const std::string& s) {
  std::string fn = std::string("format.") + format;
  Value f = Call(fn, fn, {});
  if (f.is_error()) return Show(f);
  Value r = Call("validate", "format-validate", {f, S(s)});
  if (r.is_error()) return Show(r);
  if (!r.optional_has_value()) return "ok";
  return Show(r.optional_value());
}

// apimachinery's RegexError really writes "'my-name',  or '123-abc'" (comma, two spaces).
TEST(FormatLibraryTest, Dns1123Label) {
  EXPECT_EQ(Validate("dns1123Label", "my-label-name"), "ok");
  EXPECT_EQ(Validate("dns1123Label", "My_Label"),
            Value::List({S("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                           "characters or '-', and must start and end with an alphanumeric "
                           "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")})
                .DebugString());
  EXPECT_EQ(Validate("dns1123Label", "a.b"), Value::List({S("must not contain dots")}).DebugString());
  EXPECT_EQ(Validate("dns1123Label", std::string(64, 'a')),
            Value::List({S("must be no more than 63 characters")}).DebugString());
  EXPECT_EQ(Validate("dns1123LabelPrefix", "my-prefix-"), "ok");
  EXPECT_NE(Validate("dns1123Label", "my-prefix-"), "ok");
}

TEST(FormatLibraryTest, SubdomainQualifiedNameLabelValue) {
  EXPECT_EQ(Validate("dns1123Subdomain", "apiextensions.k8s.io"), "ok");
  EXPECT_EQ(Validate("dns1123Subdomain", "-bad.io"),
            Value::List({S("a lowercase RFC 1123 subdomain must consist of lower case "
                           "alphanumeric characters, '-' or '.', and must start and end with an "
                           "alphanumeric character (e.g. 'example.com', regex used for validation "
                           "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")})
                .DebugString());
  EXPECT_EQ(Validate("dns1123SubdomainPrefix", "mysubdomain.prefix.-"), "ok");
  EXPECT_EQ(Validate("dns1035Label", "1abc"),
            Value::List({S("a DNS-1035 label must consist of lower case alphanumeric characters "
                           "or '-', start with an alphabetic character, and end with an "
                           "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
                           "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")})
                .DebugString());
  EXPECT_EQ(Validate("qualifiedName", "apiextensions.k8s.io/v1beta1"), "ok");
  EXPECT_EQ(Validate("qualifiedName", "/name"),
            Value::List({S("prefix part must be non-empty")}).DebugString());
  EXPECT_EQ(Validate("qualifiedName", "a/b/c"),
            Value::List({S("a qualified name must consist of alphanumeric characters, '-', '_' or "
                           "'.', and must start and end with an alphanumeric character (e.g. "
                           "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                           "subdomain prefix and '/' (e.g. 'example.com/MyName')")})
                .DebugString());
  EXPECT_EQ(Validate("qualifiedName", "example.com/"),
            Value::List({S("name part must be non-empty"),
                         S("name part must consist of alphanumeric characters, '-', '_' or '.', "
                           "and must start and end with an alphanumeric character (e.g. 'MyName', "
                           " or 'my.name',  or '123-abc', regex used for validation is "
                           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")})
                .DebugString());
  EXPECT_EQ(Validate("labelValue", ""), "ok");
  EXPECT_EQ(Validate("labelValue", "my_value"), "ok");
  EXPECT_NE(Validate("labelValue", "-x"), "ok");
}

TEST(FormatLibraryTest, CrdFormats) {
  EXPECT_EQ(Validate("uri", "http://example.com"), "ok");
  EXPECT_EQ(Validate("uri", "example.com"),
            Value::List({S("parse \"example.com\": invalid URI for request")}).DebugString());
  EXPECT_EQ(Validate("uuid", "123e4567-e89b-12d3-a456-426614174000"), "ok");
  EXPECT_EQ(Validate("uuid", "123E4567-E89B-12D3-A456-426614174000"), "ok");
  EXPECT_EQ(Validate("uuid", "not-a-uuid"),
            Value::List({S("does not match the UUID format")}).DebugString());
  EXPECT_EQ(Validate("byte", "aGVsbG8="), "ok");
  EXPECT_EQ(Validate("byte", ""), "ok");
  EXPECT_EQ(Validate("byte", "aGVsbG8"), Value::List({S("invalid base64")}).DebugString());
  EXPECT_EQ(Validate("date", "2021-01-01"), "ok");
  EXPECT_EQ(Validate("date", "2021-02-29"), Value::List({S("invalid date")}).DebugString());
  EXPECT_EQ(Validate("date", "2024-02-29"), "ok");
  EXPECT_EQ(Validate("datetime", "2021-01-01T00:00:00Z"), "ok");
  EXPECT_EQ(Validate("datetime", "2021-01-01T00:00:00.5+01:00"), "ok");
  EXPECT_EQ(Validate("datetime", "2021-01-01T24:00:00Z"),
            Value::List({S("invalid datetime")}).DebugString());
}

TEST(FormatLibraryTest, NamedAndEquality) {
  Value named = Call("format.named", "format-named", {S("dns1123Label")});
  ASSERT_TRUE(named.kind() == ValueKind::kOptional && named.optional_has_value());
  EXPECT_TRUE(Equal(named.optional_value(), Call("format.dns1123Label", "format.dns1123Label", {}))
                  .IsTrue());
  EXPECT_TRUE(Equal(named.optional_value(), Call("format.uri", "format.uri", {})).IsFalse());
  Value none = Call("format.named", "format-named", {S("nope")});
  EXPECT_TRUE(none.kind() == ValueKind::kOptional && !none.optional_has_value());
  EXPECT_EQ(named.optional_value().TypeName(), "kubernetes.NamedFormat");
  for (const char* name : {"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName",
                           "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix",
                           "labelValue", "uri", "uuid", "byte", "date", "datetime"}) {
    EXPECT_NE(Registry().Find(std::string("format.") + name), nullptr) << name;
  }
}

TEST(FormatLibraryTest, GatesAndExpressions) {
  Lib().ExpectGates(31, "Kubernetes format");
  EXPECT_EQ(Eval("format.dns1123Label().validate('ok-name').hasValue()"), "false");
  EXPECT_EQ(Eval("format.named('uuid').hasValue()"), "true");
  EXPECT_EQ(Eval("format.dns1123Label().validate('Bad').value().size()"), "1");
}
}  // namespace
}  // namespace format_library_test
}  // namespace gpuprofile::cel::internal
