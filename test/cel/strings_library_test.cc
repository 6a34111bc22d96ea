// File: test/cel/strings_library_test.cc
// cel-go strings extension v2: calls the registered overloads by id, with cel-go's expected
// results and error messages, plus a few end-to-end expressions.
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace strings_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterStringsLibrary});
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

// Renders a result for comparison: strings raw, errors as "error: <msg>", others DebugString.

struct Case {
  const char* fn;
  const char* id;
  std::vector<Value> args;
  std::string want;
};

TEST(StringsLibraryTest, MemberFunctions) {
  const std::vector<Case> cases = {
      {"charAt", "string_char_at_int", {S("hello"), I(4)}, "o"},
      {"charAt", "string_char_at_int", {S("hello"), I(5)}, ""},
      {"charAt", "string_char_at_int", {S("hello"), I(-1)}, "error: index out of range: -1"},
      {"charAt", "string_char_at_int", {S("hello"), I(6)}, "error: index out of range: 6"},
      {"charAt", "string_char_at_int", {S("πέντε"), I(1)}, "έ"},
      {"indexOf", "string_index_of_string", {S("hello mellow"), S("")}, "0"},
      {"indexOf", "string_index_of_string", {S("hello mellow"), S("ello")}, "1"},
      {"indexOf", "string_index_of_string", {S("hello mellow"), S("jello")}, "-1"},
      {"indexOf", "string_index_of_string_int", {S("hello mellow"), S(""), I(2)}, "2"},
      {"indexOf", "string_index_of_string_int", {S("hello mellow"), S("ello"), I(2)}, "7"},
      {"indexOf", "string_index_of_string_int", {S("hello mellow"), S("ello"), I(20)},
       "error: index out of range: 20"},
      {"indexOf", "string_index_of_string", {S("ta©o©αT"), S("©α")}, "4"},
      {"indexOf", "string_index_of_string", {S(""), S("a")}, "error: index out of range: 0"},
      {"lastIndexOf", "string_last_index_of_string", {S("hello mellow"), S("")}, "12"},
      {"lastIndexOf", "string_last_index_of_string", {S("hello mellow"), S("ello")}, "7"},
      {"lastIndexOf", "string_last_index_of_string", {S("hello mellow"), S("jello")}, "-1"},
      {"lastIndexOf", "string_last_index_of_string_int", {S("hello mellow"), S("ello"), I(6)},
       "1"},
      {"lastIndexOf", "string_last_index_of_string_int", {S("hello mellow"), S("ello"), I(-1)},
       "error: index out of range: -1"},
      {"lastIndexOf", "string_last_index_of_string", {S(""), S("a")},
       "error: index out of range: -1"},
      {"lastIndexOf", "string_last_index_of_string", {S("ta©o©αT"), S("©")}, "4"},
      {"lowerAscii", "string_lower_ascii", {S("TacoCÆt Xii")}, "tacocÆt xii"},
      {"upperAscii", "string_upper_ascii", {S("TacoCÆt Xii")}, "TACOCÆT XII"},
      {"replace", "string_replace_string_string", {S("hello hello"), S("he"), S("we")},
       "wello wello"},
      {"replace", "string_replace_string_string_int", {S("hello hello"), S("he"), S("we"), I(1)},
       "wello hello"},
      {"replace", "string_replace_string_string_int", {S("hello hello"), S("he"), S("we"), I(0)},
       "hello hello"},
      {"replace", "string_replace_string_string_int",
       {S("hello hello"), S("he"), S("we"), I(-1)}, "wello wello"},
      {"replace", "string_replace_string_string", {S("ab"), S(""), S("-")}, "-a-b-"},
      {"split", "string_split_string", {S("hello hello hello"), S(" ")},
       "[\"hello\", \"hello\", \"hello\"]"},
      {"split", "string_split_string_int", {S("hello hello hello"), S(" "), I(0)}, "[]"},
      {"split", "string_split_string_int", {S("hello hello hello"), S(" "), I(1)},
       "[\"hello hello hello\"]"},
      {"split", "string_split_string_int", {S("hello hello hello"), S(" "), I(2)},
       "[\"hello\", \"hello hello\"]"},
      {"split", "string_split_string", {S("ab"), S("")}, "[\"a\", \"b\"]"},
      {"split", "string_split_string", {S(""), S(",")}, "[\"\"]"},
      {"substring", "string_substring_int", {S("tacocat"), I(4)}, "cat"},
      {"substring", "string_substring_int", {S("tacocat"), I(7)}, ""},
      {"substring", "string_substring_int", {S("tacocat"), I(-1)}, "error: index out of range: -1"},
      {"substring", "string_substring_int_int", {S("tacocat"), I(0), I(4)}, "taco"},
      {"substring", "string_substring_int_int", {S("tacocat"), I(2), I(1)},
       "error: invalid substring range. start: 2, end: 1"},
      {"substring", "string_substring_int_int", {S("tacocat"), I(0), I(8)},
       "error: index out of range: 8"},
      {"substring", "string_substring_int_int", {S("ta©o©αT"), I(2), I(6)}, "©o©α"},
      {"trim", "string_trim", {S(" \ttrim\n\u00a0")}, "trim"},
      {"trim", "string_trim", {S("\u200btrim")}, "\u200btrim"},  // zero-width space stays
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Show(Call(c.fn, c.id, c.args)), c.want) << c.id;
  }
}

TEST(StringsLibraryTest, JoinAndQuote) {
  Value list = Value::List({S("hello"), S("mellow")});
  EXPECT_EQ(Show(Call("join", "list_join", {list})), "hellomellow");
  EXPECT_EQ(Show(Call("join", "list_join_string", {list, S(" ")})), "hello mellow");
  EXPECT_EQ(Show(Call("join", "list_join", {Value::List(std::vector<Value>{})})), "");
  EXPECT_TRUE(Call("join", "list_join", {Value::List({S("a"), I(1)})}).is_error());
  EXPECT_EQ(Show(Call("strings.quote", "strings_quote", {S("two escape sequences \a\n")})),
            "\"two escape sequences \\a\\n\"");
  EXPECT_EQ(Show(Call("strings.quote", "strings_quote", {S("single-quote with \"double quote\"")})),
            "\"single-quote with \\\"double quote\\\"\"");
  EXPECT_EQ(Show(Call("strings.quote", "strings_quote", {S("filler \x9f")})),
            "\"filler \uFFFD\"");
}

struct FormatCase {
  const char* format;
  std::vector<Value> args;
  std::string want;
};

TEST(StringsLibraryTest, Format) {
  auto map = std::make_shared<HashMapValue>();
  map->Insert(S("key1"), Value::Bytes("xyz"));
  map->Insert(S("key5"), Value::Null());
  map->Insert(S("key2"), Value::Duration(absl::Hours(2)));
  map->Insert(S("key4"), Value::Bool(true));
  map->Insert(S("key3"), Value::Double(2.71828));
  auto keys = std::make_shared<HashMapValue>();
  keys->Insert(S("strKey"), S("x"));
  keys->Insert(Value::Bool(true), I(42));
  keys->Insert(I(6), Value::Duration(absl::Seconds(422)));
  const absl::Time ts = absl::FromUnixSeconds(1675467080);  // 2023-02-03T23:31:20Z
  const std::vector<FormatCase> cases = {
      {"no substitution", {}, "no substitution"},
      {"str is %s and some more", {S("filler")}, "str is filler and some more"},
      {"%% and also %%", {}, "% and also %"},
      {"%%%s%%", {S("text")}, "%text%"},
      {"%d %d %d, %s %s %s", {I(1), I(2), I(3), S("A"), S("B"), S("C")}, "1 2 3, A B C"},
      {"%.3f", {Value::Double(1.2345)}, "1.234"},
      {"%f", {Value::Double(2.71828)}, "2.718280"},
      {"%f", {Value::Double(1234567.5)}, "1,234,567.500000"},
      {"%f", {S("NaN")}, "NaN"},
      {"%f", {S("Infinity")}, "∞"},
      {"%f", {S("-Infinity")}, "-∞"},
      {"%.6e", {Value::Double(1052.032911275)}, "1.052033\u202f\u00d7\u202f10\u2070\u00b3"},
      {"%e", {Value::Double(2.71828)}, "2.718280\u202f\u00d7\u202f10\u2070\u2070"},
      {"this is 5 in binary: %b", {I(5)}, "this is 5 in binary: 101"},
      {"%b", {Value::Uint(64)}, "1000000"},
      {"%b", {Value::Bool(true)}, "1"},
      {"%o", {I(11)}, "13"},
      {"%o", {Value::Uint(65535)}, "177777"},
      {"%x", {I(30)}, "1e"},
      {"%X", {I(30)}, "1E"},
      {"%x", {I(-255)}, "-ff"},
      {"%X", {Value::Uint(6000)}, "1770"},
      {"%x", {S("Hello world!")}, "48656c6c6f20776f726c6421"},
      {"%X", {Value::Bytes("byte string")}, "6279746520737472696E67"},
      {"%d", {Value::Uint(64)}, "64"},
      {"null: %s", {Value::Null()}, "null: null"},
      {"some bytes: %s", {Value::Bytes("xyz")}, "some bytes: xyz"},
      {"type is %s", {Value::Type("string")}, "type is string"},
      {"%s", {Value::Timestamp(ts)}, "2023-02-03T23:31:20Z"},
      {"%s", {Value::Duration(absl::Seconds(6347))}, "6347s"},
      {"%s", {Value::Double(64.2)}, "64.2"},
      {"%s", {Value::Double(1e6)}, "1e+06"},
      {"%s", {Value::Double(123456.0)}, "123456"},
      {"%s", {Value::Double(0.0001)}, "0.0001"},
      {"%s", {Value::Double(0.00001)}, "1e-05"},
      {"%s",
       {Value::List({S("abc"), Value::Double(3.14), Value::Null(), Value::List({I(9), I(8)}),
                     Value::Timestamp(ts)})},
       "[\"abc\", 3.140000, null, [9, 8], timestamp(\"2023-02-03T23:31:20Z\")]"},
      {"%s", {Value::Map(map)},
       "{\"key1\":b\"xyz\", \"key2\":duration(\"7200s\"), \"key3\":2.718280, \"key4\":true, "
       "\"key5\":null}"},
      {"%s", {Value::Map(keys)}, "{\"strKey\":\"x\", 6:duration(\"422s\"), true:42}"},
      {"%s", {Value::List({Value::Double(std::numeric_limits<double>::quiet_NaN())})},
       "[\"NaN\"]"},
      {"true bool: %s, false bool: %s", {Value::Bool(true), Value::Bool(false)},
       "true bool: true, false bool: false"},
      // Errors, worded as cel-go words them.
      {"%a", {I(1)}, "error: could not parse formatting clause: unrecognized formatting clause \"a\""},
      {"%d %d %d", {I(0), I(1)}, "error: index 2 out of range"},
      {"%", {}, "error: index 0 out of range"},
      {"%", {I(1)}, "error: unexpected end of string"},
      {"%.2", {Value::Double(1)},
       "error: could not parse formatting clause: error while parsing precision: could not find "
       "end of precision specifier"},
      {"string is %b", {S("abc")},
       "error: error during formatting: only integers and bools can be formatted as binary, was "
       "given string"},
      {"%d", {Value::Duration(absl::Minutes(30))},
       "error: error during formatting: decimal clause can only be used on integers, was given "
       "google.protobuf.Duration"},
      {"octal: %o", {S("a string")},
       "error: error during formatting: octal clause can only be used on integers, was given "
       "string"},
      {"double is %x", {Value::Double(0.5)},
       "error: error during formatting: only integers, byte buffers, and strings can be "
       "formatted as hex, was given double"},
      {"double is %E", {Value::Double(0.5)},
       "error: could not parse formatting clause: unrecognized formatting clause \"E\""},
      {"null: %d", {Value::Null()},
       "error: error during formatting: decimal clause can only be used on integers, was given "
       "null_type"},
      {"null: %e", {Value::Null()},
       "error: error during formatting: scientific clause can only be used on doubles, was given "
       "null_type"},
      {"null: %f", {Value::Null()},
       "error: error during formatting: fixed-point clause can only be used on doubles, was "
       "given null_type"},
  };
  for (const FormatCase& c : cases) {
    EXPECT_EQ(Show(Call("format", "string_format", {S(c.format), Value::List(c.args)})), c.want)
        << c.format;
  }
}

TEST(StringsLibraryTest, GatedAtKubernetes129) {
  for (const auto& [name, overloads] : Registry().functions()) {
    for (const Overload& o : overloads) {
      EXPECT_EQ(o.gate.introduced_minor, 29) << o.id;
      EXPECT_EQ(o.gate.library, "ext.Strings v2") << o.id;
    }
  }
  EXPECT_EQ(Registry().Find("reverse"), nullptr);  // strings version 3
}

TEST(StringsLibraryTest, Expressions) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"'hello'.charAt(1) == 'e'", "true"},
      {"'a,b'.split(',').join('-') == 'a-b'", "true"},
      {"'%s=%d'.format(['x', 1]) == 'x=1'", "true"},
      {"strings.quote('a\"b') == '\"a\\\\\"b\"'", "true"},
      {"'NVIDIA A100'.lowerAscii().indexOf('a100') == 7", "true"},
  };
  for (const auto& [expr, want] : cases) {
    auto program = Compile(expr, Environment::Standard());
    ASSERT_TRUE(program.ok()) << expr << ": " << program.status();
    EXPECT_EQ(Show((*program)->Evaluate(absl::Span<const Value>())), want) << expr;
  }
}

}  // namespace
}  // namespace strings_library_test
}  // namespace gpuprofile::cel::internal
