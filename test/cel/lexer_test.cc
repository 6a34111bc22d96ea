// File: test/cel/lexer_test.cc
#include "controller/cel/internal/lexer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel::internal {
namespace lexer_test {
namespace {

using ::testing::HasSubstr;

// Kinds of all tokens but the final kEof.
std::vector<TokenKind> Kinds(absl::string_view text) {
  std::vector<LexError> errors;
  std::vector<Token> tokens = Tokenize(text, &errors);
  EXPECT_TRUE(errors.empty()) << text << ": " << errors[0].message;
  std::vector<TokenKind> kinds;
  for (const Token& t : tokens) {
    if (t.kind != TokenKind::kEof) kinds.push_back(t.kind);
  }
  return kinds;
}

// The single literal token in `text`, expecting no errors.
Token Single(absl::string_view text) {
  std::vector<LexError> errors;
  std::vector<Token> tokens = Tokenize(text, &errors);
  EXPECT_TRUE(errors.empty()) << text << ": " << (errors.empty() ? "" : errors[0].message);
  EXPECT_EQ(tokens.size(), 2u) << text;
  return tokens[0];
}

std::vector<LexError> Errors(absl::string_view text) {
  std::vector<LexError> errors;
  Tokenize(text, &errors);
  return errors;
}

TEST(LexerTest, EmptyInputIsOnlyEof) {
  std::vector<LexError> errors;
  std::vector<Token> tokens = Tokenize("", &errors);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kEof);
  EXPECT_TRUE(errors.empty());
}

TEST(LexerTest, Operators) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("== != < <= > >= && || ! - + * / % ? : . , ( ) [ ] { }"),
            (std::vector<K>{K::kEq,       K::kNe,       K::kLt,     K::kLe,      K::kGt,
                            K::kGe,       K::kAnd,      K::kOr,     K::kNot,     K::kMinus,
                            K::kPlus,     K::kStar,     K::kSlash,  K::kPercent, K::kQuestion,
                            K::kColon,    K::kDot,      K::kComma,  K::kLParen,  K::kRParen,
                            K::kLBracket, K::kRBracket, K::kLBrace, K::kRBrace}));
}

TEST(LexerTest, KeywordsAndIdentifiers) {
  using K = TokenKind;
  EXPECT_EQ(
      Kinds("true false null in _a1 inx trueish"),
      (std::vector<K>{K::kTrue, K::kFalse, K::kNull, K::kIn, K::kIdent, K::kIdent, K::kIdent}));
}

TEST(LexerTest, CommentsAndWhitespaceAreSkipped) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("a // comment + b\n\t\r\f+ b // end"),
            (std::vector<K>{K::kIdent, K::kPlus, K::kIdent}));
}

TEST(LexerTest, OffsetsAreBytePositions) {
  std::vector<LexError> errors;
  std::vector<Token> tokens = Tokenize("ab  <= 'x'", &errors);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].offset, 0);
  EXPECT_EQ(tokens[0].end, 2);
  EXPECT_EQ(tokens[1].offset, 4);
  EXPECT_EQ(tokens[1].end, 6);
  EXPECT_EQ(tokens[2].offset, 7);
  EXPECT_EQ(tokens[3].offset, 10);
}

struct NumberCase {
  const char* input;
  TokenKind kind;
  const char* text;
};

class LexerNumberTest : public ::testing::TestWithParam<NumberCase> {};

TEST_P(LexerNumberTest, Lexes) {
  Token t = Single(GetParam().input);
  EXPECT_EQ(t.kind, GetParam().kind) << GetParam().input;
  EXPECT_EQ(t.text, GetParam().text) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(Numbers, LexerNumberTest,
                         ::testing::Values(NumberCase{"0", TokenKind::kInt, "0"},
                                           NumberCase{"123", TokenKind::kInt, "123"},
                                           NumberCase{"0x1F", TokenKind::kInt, "0x1F"},
                                           NumberCase{"0XaB", TokenKind::kInt, "0XaB"},
                                           NumberCase{"1u", TokenKind::kUint, "1"},
                                           NumberCase{"0x1U", TokenKind::kUint, "0x1"},
                                           NumberCase{"1.5", TokenKind::kDouble, "1.5"},
                                           NumberCase{".5", TokenKind::kDouble, ".5"},
                                           NumberCase{"1e3", TokenKind::kDouble, "1e3"},
                                           NumberCase{"1.5E-3", TokenKind::kDouble, "1.5E-3"},
                                           NumberCase{"2e+10", TokenKind::kDouble, "2e+10"},
                                           NumberCase{".5e1", TokenKind::kDouble, ".5e1"}));

TEST(LexerTest, DotWithoutDigitsIsNotPartOfNumber) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("1.a"), (std::vector<K>{K::kInt, K::kDot, K::kIdent}));
  EXPECT_EQ(Kinds("1e"), (std::vector<K>{K::kInt, K::kIdent}));
}

struct StringCase {
  const char* input;
  TokenKind kind;
  std::string value;
};

class LexerStringTest : public ::testing::TestWithParam<StringCase> {};

TEST_P(LexerStringTest, Decodes) {
  Token t = Single(GetParam().input);
  EXPECT_EQ(t.kind, GetParam().kind) << GetParam().input;
  EXPECT_EQ(t.text, GetParam().value) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Strings, LexerStringTest,
    ::testing::Values(
        StringCase{R"('abc')", TokenKind::kString, "abc"},
        StringCase{R"("abc")", TokenKind::kString, "abc"},
        StringCase{R"("it's")", TokenKind::kString, "it's"},
        StringCase{R"('\a\b\f\n\r\t\v')", TokenKind::kString, "\a\b\f\n\r\t\v"},
        StringCase{R"('\\\'\"\?\`')", TokenKind::kString, "\\'\"?`"},
        StringCase{R"('\000\101\377')", TokenKind::kString, std::string("\0A\xC3\xBF", 4)},
        StringCase{R"('\x41\X42\xff')", TokenKind::kString, "AB\xC3\xBF"},
        StringCase{R"('\u00e9\U0001F600')", TokenKind::kString, "\xC3\xA9\xF0\x9F\x98\x80"},
        StringCase{"'h\xC3\xA9'", TokenKind::kString, "h\xC3\xA9"},
        StringCase{"'''a\n'b'\"c'''", TokenKind::kString, "a\n'b'\"c"},
        StringCase{"\"\"\"x\\ty\"\"\"", TokenKind::kString, "x\ty"},
        StringCase{R"(r'\n\x')", TokenKind::kString, "\\n\\x"},
        StringCase{R"(R"\")", TokenKind::kString, "\\"},
        StringCase{"r'''a\\'''", TokenKind::kString, "a\\"},
        StringCase{R"(b'abc')", TokenKind::kBytes, "abc"},
        StringCase{R"(B"\xff\000\377")", TokenKind::kBytes, std::string("\xff\0\xff", 3)},
        StringCase{"b'\xC3\xA9'", TokenKind::kBytes, "\xC3\xA9"},
        StringCase{R"(br'\xff')", TokenKind::kBytes, "\\xff"},
        StringCase{R"(BR"a")", TokenKind::kBytes, "a"},
        StringCase{"b'''x\ny'''", TokenKind::kBytes, "x\ny"},
        StringCase{"''", TokenKind::kString, ""}));

TEST(LexerTest, InvalidUtf8InStringBecomesReplacementCharacter) {
  Token t = Single("'\xff'");
  EXPECT_EQ(t.text, "\xEF\xBF\xBD");
}

struct ErrorCase {
  const char* input;
  int32_t offset;
  const char* message;
};

class LexerErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LexerErrorTest, Reports) {
  std::vector<LexError> errors = Errors(GetParam().input);
  ASSERT_FALSE(errors.empty()) << GetParam().input;
  EXPECT_EQ(errors[0].offset, GetParam().offset) << GetParam().input;
  EXPECT_THAT(errors[0].message, HasSubstr(GetParam().message)) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, LexerErrorTest,
    ::testing::Values(ErrorCase{"a @ b", 2, "Syntax error: token recognition error at: '@'"},
                      ErrorCase{"a = b", 2, "token recognition error at: '='"},
                      ErrorCase{"a & b", 2, "token recognition error at: '&'"},
                      ErrorCase{"a | b", 2, "token recognition error at: '|'"},
                      ErrorCase{"x\xE2\x82\xAC", 1, "token recognition error at: '\xE2\x82\xAC'"},
                      ErrorCase{"'abc", 0, "token recognition error at: ''abc'"},
                      ErrorCase{"'ab\ncd'", 0, "token recognition error at: ''ab'"},
                      ErrorCase{"'''abc''", 0, "token recognition error"},
                      ErrorCase{R"('\q')", 0, R"(token recognition error at: ''\q')"},
                      ErrorCase{R"('\x4')", 0, "token recognition error"},
                      ErrorCase{R"('\400')", 0, "token recognition error"},
                      ErrorCase{R"('\u12')", 0, "token recognition error"},
                      ErrorCase{R"('\uD800')", 1, "surrogate"},
                      ErrorCase{R"('\U0000DFFF')", 1, "surrogate"},
                      ErrorCase{R"('\U00110000')", 1, "out of range"},
                      ErrorCase{R"(b'\u0041')", 2, "not allowed in bytes"},
                      ErrorCase{R"(b'\U00000041')", 2, "not allowed in bytes"},
                      ErrorCase{"a \v b", 2, "token recognition error"},
                      ErrorCase{"`x`", 0, "token recognition error at: '`'"}));

TEST(LexerTest, BadEscapeYieldsOneErrorAndStillAToken) {
  std::vector<LexError> errors;
  std::vector<Token> tokens = Tokenize(R"('a\qb' + 1)", &errors);
  EXPECT_EQ(errors.size(), 1u);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kString);
  EXPECT_EQ(tokens[1].kind, TokenKind::kPlus);
}

TEST(LexerTest, ErrorsAreCapped) {
  std::vector<LexError> errors;
  Tokenize(std::string(5000, '#'), &errors, 10);
  EXPECT_EQ(errors.size(), 10u);
}

TEST(LexerTest, TokenKindNamesAreAntlrStyle) {
  EXPECT_EQ(TokenKindName(TokenKind::kRParen), "')'");
  EXPECT_EQ(TokenKindName(TokenKind::kIdent), "IDENTIFIER");
  EXPECT_EQ(TokenKindName(TokenKind::kEof), "<EOF>");
}

}  // namespace
}  // namespace lexer_test
}  // namespace gpuprofile::cel::internal
