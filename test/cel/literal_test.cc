// File: test/cel/literal_test.cc
#include "controller/cel/literal.h"

#include <string>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cel/value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {
namespace literal_test {
namespace {

TEST(LiteralTest, StringLiteralsEscapeTheQuoteBackslashAndControls) {
  struct Case {
    std::string text;
    char quote;
    std::string literal;
  };
  const std::vector<Case> cases = {
      {"gpu", '\'', "'gpu'"},
      {"it's", '\'', "'it\\'s'"},
      {"say \"x\"", '\'', "'say \"x\"'"},
      {"say \"x\"", '"', "\"say \\\"x\\\"\""},
      {"a\\b\n\r\t", '\'', "'a\\\\b\\n\\r\\t'"},
      {std::string("\x01\x7f", 2), '\'', "'\\x01\\x7f'"},
      {"\xc3\xa9", '\'', "'\xc3\xa9'"},  // UTF-8 passes through
  };
  for (const Case& c : cases) EXPECT_EQ(StringLiteral(c.text, c.quote), c.literal) << c.text;
  EXPECT_EQ(BytesLiteral("a\xc3\""), "b\"a\\xc3\\\"\"");
}

// Every literal reads back as the text it was written for.
TEST(LiteralTest, StringLiteralsRoundTripThroughTheParser) {
  const auto env = Environment::Standard();
  for (const std::string& text : {std::string("plain"), std::string("q'uo\"te"),
                                  std::string("\\ \n \t \x1f \x7f"), std::string("caf\xc3\xa9")}) {
    for (char quote : {'\'', '"'}) {
      auto program = Compile(StringLiteral(text, quote), env);
      ASSERT_TRUE(program.ok()) << program.status();
      const Value value = (*program)->Evaluate(MapActivation());
      ASSERT_EQ(value.kind(), ValueKind::kString) << StringLiteral(text, quote);
      EXPECT_EQ(value.string_value(), text);
    }
  }
}

TEST(LiteralTest, FieldNamesAreIdentifiersThatAreNotReserved) {
  for (const char* name : {"memory", "_x", "productName", "a1"}) {
    EXPECT_TRUE(IsFieldName(name)) << name;
  }
  for (const char* name : {"", "1a", "a-b", "a.b", "true", "in", "null", "namespace", "while"}) {
    EXPECT_FALSE(IsFieldName(name)) << name;
  }
  EXPECT_TRUE(IsReservedWord("package"));
  EXPECT_FALSE(IsReservedWord("in"));
}

}  // namespace
}  // namespace literal_test
}  // namespace gpuprofile::cel
