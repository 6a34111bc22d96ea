// File: test/cel/attribute_paths_test.cc
// Program::ReadPaths: which parts of a variable a compiled program reads.
#include "controller/cel/attribute_paths.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cel/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {

// Readable failures: {a.b, c}.
void PrintTo(const AttributePath& path, std::ostream* os) {
  *os << (path.presence_only ? "has[" : "[") << absl::StrJoin(path.qualifiers, ".") << "]";
}

namespace attribute_paths_test {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

AttributePath P(std::vector<std::string> qualifiers) { return {std::move(qualifiers)}; }
// A presence test of the path.
AttributePath Has(std::vector<std::string> qualifiers) {
  return {std::move(qualifiers), /*presence_only=*/true};
}

std::shared_ptr<const Environment> Env() {
  return Environment::Standard({{"self", Type::Map(Type::String(), Type::Dyn())},
                                {"other", Type::Int()},
                                {"labels", Type::Map(Type::String(), Type::String())}});
}

std::optional<std::vector<AttributePath>> Reads(const std::string& expression,
                                                const std::string& variable = "self") {
  auto program = Compile(expression, Env());
  EXPECT_TRUE(program.ok()) << expression << ": " << program.status();
  if (!program.ok()) return std::nullopt;
  return (*program)->ReadPaths(variable);
}

TEST(AttributePathsTest, ConstantQualifiersFormOnePath) {
  struct Case {
    std::string expression;
    std::vector<AttributePath> paths;
  };
  const std::vector<Case> cases = {
      {"self.spec.replicas > 0", {P({"spec", "replicas"})}},
      {"self['spec']['replicas'] > 0", {P({"spec", "replicas"})}},
      {"has(self.metadata.name)", {P({"metadata", "name"})}},
      {"self.?spec.orValue(1) == 1", {P({"spec"})}},
      {"self[?'a'].b.orValue(1) == 1", {P({"a", "b"})}},
      // `in` over a map reads one key; self.labels is dyn, so there it reads the whole value.
      {"'app' in self.labels", {P({"labels"})}},
      // Sorted and unique.
      {"self.b == 1 && self.a == 2 && self.b != 3", {P({"a"}), P({"b"})}},
      {"other > 1", {}},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(Reads(c.expression), Optional(c.paths)) << c.expression;
  }
  EXPECT_THAT(Reads("'app' in labels && labels.tier == 'a'", "labels"),
              Optional(ElementsAre(Has({"app"}), P({"tier"}))));
}

// `'k' in m` and `has(m.k)` over a map read only whether the entry is there; a path also read
// for its value is a value read once.
TEST(AttributePathsTest, PresenceTestsOfMapEntriesAreMarked) {
  EXPECT_THAT(Reads("'app' in labels", "labels"), Optional(ElementsAre(Has({"app"}))));
  EXPECT_THAT(Reads("has(labels.app)", "labels"), Optional(ElementsAre(Has({"app"}))));
  EXPECT_THAT(Reads("'app' in labels && labels.app == 'x'", "labels"),
              Optional(ElementsAre(P({"app"}))));
  EXPECT_THAT(Reads("labels.app == 'x' || has(labels.app) || has(labels.tier)", "labels"),
              Optional(ElementsAre(P({"app"}), Has({"tier"}))));
  // self.metadata is dyn, not a map: has() there is read as the value, as before.
  EXPECT_THAT(Reads("has(self.metadata.name)"), Optional(ElementsAre(P({"metadata", "name"}))));
  // A presence test of an entry under a computed key reads the map before it.
  EXPECT_THAT(Reads("'a' in self.m[string(other)]"), Optional(ElementsAre(P({"m"}))));
}

TEST(AttributePathsTest, ComputedQualifiersAndWholeUsesEndThePath) {
  // A computed key reads the whole map before it; `self` used whole is the empty path.
  EXPECT_THAT(Reads("self.m[string(other)] == 1"), Optional(ElementsAre(P({"m"}))));
  EXPECT_THAT(Reads("self.items.size() > 0"), Optional(ElementsAre(P({"items"}))));
  EXPECT_THAT(Reads("self == {}"), Optional(ElementsAre(P({}))));
  EXPECT_THAT(Reads("self.items.exists(i, i == 1)"), Optional(ElementsAre(P({"items"}))));
  // `in` over a value not typed as a map reads the whole value.
  EXPECT_THAT(Reads("'x' in self.list"), Optional(ElementsAre(P({"list"}))));
}

TEST(AttributePathsTest, LocalsOfTheSameNameAreNotReads) {
  EXPECT_THAT(Reads("[1, 2].all(self, self > 0)"), Optional(ElementsAre()));
  EXPECT_THAT(Reads("[self.a].all(self, self == 1)"), Optional(ElementsAre(P({"a"}))));
}

TEST(AttributePathsTest, UnknownWithoutTypeCheckingOrForUndeclaredVariables) {
  EXPECT_EQ(Reads("self.a == 1", "nope"), std::nullopt);
  CompileOptions unchecked;
  unchecked.type_check = false;
  auto program = Compile("self.a == 1", Env(), unchecked);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ((*program)->ReadPaths("self"), std::nullopt);
}

}  // namespace
}  // namespace attribute_paths_test
}  // namespace gpuprofile::cel
