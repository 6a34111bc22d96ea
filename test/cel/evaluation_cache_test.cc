// File: test/cel/evaluation_cache_test.cc
// The per-evaluation memo of attribute paths (controller/cel/internal/interpreter.cc): a path
// repeated in one expression is looked up once, a presence check `'k' in P` and the read it
// guards `P.k` share one lookup, and none of it changes a result -- values, errors (missing keys,
// wrong types) and what && / || absorb stay those of plain evaluation, checked and unchecked.
//
// The inputs are counting maps, so that each test can see how many lookups an evaluation made.
// Only paths through an index are memoised (`m['a'].x`): a chain of names (`m.a.x`) may be a
// qualified variable name and is resolved as one; the counting tests use the index form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {
namespace evaluation_cache_test {
namespace {

using ::testing::HasSubstr;

// A string-keyed map that counts the lookups made on it. `stores_values` says whether it answers
// FindStringRef / FindMemberRef (as device maps do) or only FindString (as literal maps do);
// `absent` is what it reads absent keys as, without making them members (as a device's attribute
// domains read unknown domains as an empty map).
class CountingMap final : public MapValue {
 public:
  CountingMap(std::vector<std::pair<std::string, Value>> entries, bool stores_values,
              std::optional<Value> absent = std::nullopt)
      : entries_(std::move(entries)), stores_values_(stores_values), absent_(std::move(absent)) {}

  int lookups() const { return lookups_; }

  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    ++lookups_;
    if (const Value* v = Entry(key)) return *v;
    return absent_;
  }
  const Value* FindStringRef(absl::string_view key) const override {
    if (!stores_values_) return nullptr;
    ++lookups_;
    if (const Value* v = Entry(key)) return v;
    return absent_ ? &*absent_ : nullptr;
  }
  bool Contains(const Value& key) const override {
    ++lookups_;
    return key.kind() == ValueKind::kString && Entry(key.string_value()) != nullptr;
  }
  bool FindMemberRef(absl::string_view key, const Value** value) const override {
    if (!stores_values_) return false;
    ++lookups_;
    *value = Entry(key);
    return true;
  }
  std::vector<Value> Keys() const override {
    std::vector<Value> out;
    for (const auto& [k, v] : entries_) out.push_back(Value::String(k));
    return out;
  }

 private:
  const Value* Entry(absl::string_view key) const {
    for (const auto& [k, v] : entries_) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  std::vector<std::pair<std::string, Value>> entries_;
  bool stores_values_;
  std::optional<Value> absent_;
  mutable int lookups_ = 0;  // single-threaded tests only
};

// m = {a: {x: 1, y: 2}, d: {x: 1} reading absent keys as 0, l: ['x'], s: 'x'}; the inner maps
// are returned so that a test can count their lookups.
struct Input {
  std::shared_ptr<CountingMap> m, a, d;
  Value value;
};

Input MakeInput(bool stores_values, bool a_has_x = true) {
  Input in;
  std::vector<std::pair<std::string, Value>> a_entries = {{"y", Value::Int(2)}};
  if (a_has_x) a_entries.insert(a_entries.begin(), {"x", Value::Int(1)});
  in.a = std::make_shared<CountingMap>(std::move(a_entries), stores_values);
  in.d = std::make_shared<CountingMap>(
      std::vector<std::pair<std::string, Value>>{{"x", Value::Int(1)}}, stores_values,
      Value::Int(0));
  in.m = std::make_shared<CountingMap>(
      std::vector<std::pair<std::string, Value>>{
          {"a", Value::Map(in.a)},
          {"d", Value::Map(in.d)},
          {"l", Value::List({Value::String("x")})},
          {"s", Value::String("x")},
      },
      stores_values);
  in.value = Value::Map(in.m);
  return in;
}

std::shared_ptr<const Program> CompileOrDie(const std::string& expr, bool type_check) {
  CompileOptions options;
  options.type_check = type_check;
  auto program = Compile(expr, Environment::Standard({{"m", Type::Dyn()}}), options);
  EXPECT_TRUE(program.ok()) << expr << ": " << program.status();
  return program.ok() ? *program : nullptr;
}

Value Eval(const std::string& expr, const Value& m, bool type_check = true) {
  std::shared_ptr<const Program> program = CompileOrDie(expr, type_check);
  if (program == nullptr) return Value::Error("does not compile");
  return program->Evaluate({m});
}

struct Case {
  std::string expr;
  std::string want;  // Value::DebugString() of the result, or "error:<substring>"
};

// The same results whether or not the maps store their values (the memo only applies when they
// do), type-checked or not.
class ResultTest : public ::testing::TestWithParam<Case> {};

TEST_P(ResultTest, SameWithAndWithoutStoredValues) {
  const Case& c = GetParam();
  for (bool stores_values : {true, false}) {
    for (bool type_check : {true, false}) {
      Input in = MakeInput(stores_values);
      Value v = Eval(c.expr, in.value, type_check);
      const std::string where = c.expr + " (stores_values=" + std::to_string(stores_values) +
                                ", type_check=" + std::to_string(type_check) + ")";
      if (c.want.rfind("error:", 0) == 0) {
        ASSERT_TRUE(v.is_error()) << where << " = " << v.DebugString();
        EXPECT_THAT(std::string(v.error_message()), HasSubstr(c.want.substr(6))) << where;
      } else {
        EXPECT_EQ(v.DebugString(), c.want) << where;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Semantics, ResultTest,
    ::testing::Values(
        // Repeated paths.
        Case{"m.a.x == 1 && m.a.y == 2", "true"}, Case{"m.a.x + m.a.y", "3"},
        Case{"m.a['x'] + m.a.y + m['a'].x", "4"},
        // A presence check guarding a read, in select and index form.
        Case{"'x' in m.a && m.a.x == 1", "true"}, Case{"'x' in m.a && m.a['x'] == 1", "true"},
        Case{"'x' in m['a'] && m['a']['x'] == 1", "true"},
        // The read before the check, and the check repeated.
        Case{"m.a.x == 1 && 'x' in m.a && 'x' in m.a", "true"},
        // A missing key: the check is false; the read is an error that && / || may absorb.
        Case{"'z' in m.a", "false"}, Case{"'z' in m.a && m.a.z == 1", "false"},
        Case{"'z' in m.a || m.a.z == 1", "error:no such key: z"},
        Case{"m.a.z == 1 && 'z' in m.a", "false"},
        Case{"m.a.z == 1 || 'x' in m.a", "true"},
        Case{"m.a.z == 1 || 'z' in m.a", "error:no such key: z"},
        Case{"'z' in m.a ? m.a.z : m.a['z']", "error:no such key: z"},
        // A map that reads absent keys as a default: not members, yet readable.
        Case{"'z' in m.d", "false"}, Case{"'z' in m.d || m.d.z == 0", "true"},
        Case{"!('z' in m.d) && m.d['z'] == 0 && 'x' in m.d && m.d.x == 1", "true"},
        // Not a map: membership in a list; field selection on a string is an error.
        Case{"'x' in m.l && m.l[0] == 'x'", "true"}, Case{"'y' in m.l", "false"},
        Case{"'x' in m.s && m.s.x == 1", "error:no such overload"},
        Case{"'x' in m.s || m.s.x == 1", "error:no such overload"},
        Case{"m.s.x == 1 || 'x' in m.a", "true"},
        Case{"m.s.x == 1 && 'x' in m.s", "error:does not support field selection"},
        // A missing path below the checked map.
        Case{"'x' in m.b && m.b.x == 1", "error:no such key: b"},
        Case{"'x' in m.a.b || m.a.b.x == 1", "error:no such key: b"},
        // The same through an index, where the memo applies.
        Case{"'z' in m['a'] && m['a'].z == 1", "false"},
        Case{"'z' in m['a'] || m['a'].z == 1", "error:no such key: z"},
        Case{"m['a'].z == 1 && 'z' in m['a']", "false"},
        Case{"m['a'].z == 1 || 'x' in m['a']", "true"},
        Case{"m['a']['z'] == 1 || 'z' in m['a']", "error:no such key: z"},
        Case{"'z' in m['d'] || m['d'].z == 0", "true"},
        Case{"!('z' in m['d']) && m['d']['z'] == 0 && 'x' in m['d'] && m['d'].x == 1", "true"},
        Case{"'x' in m['l'] && m['l'][0] == 'x'", "true"},
        Case{"'x' in m['s'] && m['s'].x == 1", "error:no such overload"},
        Case{"m['s'].x == 1 && 'x' in m['s']", "error:does not support field selection"},
        Case{"m['s']['x'] == 1 && 'x' in m['s']", "error:no such overload"},
        Case{"'x' in m['b'] && m['b'].x == 1", "error:no such key: b"},
        Case{"'x' in m['a']['b'] || m['a']['b'].x == 1", "error:no such key: b"},
        // Paths below a value that is not a map, and through a prefix built rather than borrowed.
        Case{"m['a']['x'] + m['a'].y + m['a'].x", "4"},
        Case{"m['a'].x.y == 1", "error:does not support field selection"},
        Case{"m['a']['x']['y'] == 1", "error:no such overload"},
        Case{"m['a'].x.y == 1 || m['a']['x'] == 1", "true"},
        // Comprehensions rebinding a name are not paths of the input.
        Case{"[{'x': 5}].all(m, 'x' in m && m.x == 5) && 'x' in m.a && m.a.x == 1", "true"},
        Case{"m.a.exists(k, k == 'x') && 'x' in m.a && m.a.x == 1", "true"},
        Case{"[{'a': {'x': 5}}].all(m, 'x' in m['a'] && m['a'].x == 5) && 'x' in m['a'] && "
             "m['a'].x == 1",
             "true"}));

TEST(EvaluationCacheTest, RepeatedPathIsLookedUpOncePerEvaluation) {
  Input in = MakeInput(/*stores_values=*/true);
  std::shared_ptr<const Program> p = CompileOrDie("m['a'].x == 1 && m['a'].y == 2", true);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->Evaluate({in.value}).IsTrue());
  EXPECT_EQ(in.m->lookups(), 1);  // m['a'], once
  EXPECT_EQ(in.a->lookups(), 2);  // x and y
  EXPECT_TRUE(p->Evaluate({in.value}).IsTrue());
  EXPECT_EQ(in.m->lookups(), 2);  // once more: nothing is kept between evaluations
}

TEST(EvaluationCacheTest, PresenceCheckAndReadShareOneLookup) {
  for (const char* expr : {"'x' in m['a'] && m['a'].x == 1", "'x' in m['a'] && m['a']['x'] == 1",
                           "m['a'].x == 1 && 'x' in m['a']"}) {
    Input in = MakeInput(/*stores_values=*/true);
    std::shared_ptr<const Program> p = CompileOrDie(expr, true);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(p->Evaluate({in.value}).IsTrue()) << expr;
    EXPECT_EQ(in.a->lookups(), 1) << expr;
  }
}

TEST(EvaluationCacheTest, CheckWithoutReadIsAPlainMembershipTest) {
  Input in = MakeInput(/*stores_values=*/true);
  std::shared_ptr<const Program> p = CompileOrDie("'x' in m['a'] && m['a'].y == 2", true);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->Evaluate({in.value}).IsTrue());
  EXPECT_EQ(in.a->lookups(), 2);  // x's membership, then y
}

TEST(EvaluationCacheTest, MapsWithoutStoredValuesAreAskedEachTime) {
  Input in = MakeInput(/*stores_values=*/false);
  std::shared_ptr<const Program> p = CompileOrDie("'x' in m['a'] && m['a'].x == 1", true);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->Evaluate({in.value}).IsTrue());
  EXPECT_EQ(in.m->lookups(), 1);  // m['a'] is still read once (the built value is kept)
  EXPECT_EQ(in.a->lookups(), 2);  // Contains, then FindString
}

TEST(EvaluationCacheTest, EachEvaluationSeesItsOwnInput) {
  std::shared_ptr<const Program> p = CompileOrDie("'x' in m['a'] && m['a'].x == 1", true);
  ASSERT_NE(p, nullptr);
  Input with_x = MakeInput(/*stores_values=*/true, /*a_has_x=*/true);
  Input without_x = MakeInput(/*stores_values=*/true, /*a_has_x=*/false);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(p->Evaluate({with_x.value}).IsTrue());
    EXPECT_TRUE(p->Evaluate({without_x.value}).IsFalse());
  }
  std::shared_ptr<const Program> read = CompileOrDie("m['a'].x == 1 || 'x' in m['a']", true);
  ASSERT_NE(read, nullptr);
  EXPECT_TRUE(read->Evaluate({with_x.value}).IsTrue());
  Value v = read->Evaluate({without_x.value});
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_EQ(v.error_message(), "no such key: x");
}

// Paths of several keys whose prefixes are cached too: each key is looked up once, whichever
// prefix an evaluation reaches first.
TEST(EvaluationCacheTest, NestedPrefixesAreEachLookedUpOnce) {
  auto b = std::make_shared<CountingMap>(
      std::vector<std::pair<std::string, Value>>{{"x", Value::Int(1)}}, true);
  auto n = std::make_shared<CountingMap>(
      std::vector<std::pair<std::string, Value>>{{"b", Value::Map(b)}}, true);
  auto m = std::make_shared<CountingMap>(
      std::vector<std::pair<std::string, Value>>{{"n", Value::Map(n)}}, true);
  std::shared_ptr<const Program> p = CompileOrDie(
      "size(m['n']) == 1 && m['n']['b'].x == 1 && 'x' in m['n']['b'] && m['n']['b']['x'] == 1 "
      "&& !('y' in m['n']['b'])",
      true);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->Evaluate({Value::Map(m)}).IsTrue());
  EXPECT_EQ(m->lookups(), 1);
  EXPECT_EQ(n->lookups(), 1);
  EXPECT_EQ(b->lookups(), 2);  // x (checked and read twice), y
}

TEST(EvaluationCacheTest, UnboundVariableIsAnErrorOnEveryPath) {
  std::shared_ptr<const Program> p =
      CompileOrDie("'x' in m['a'] || m['a'].x == 1 || m['a']['y'] == 2", true);
  ASSERT_NE(p, nullptr);
  Value v = p->Evaluate(absl::Span<const Value>());
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_EQ(v.error_message(), "no such attribute: m");
  // A single key below the variable, not cached.
  std::shared_ptr<const Program> single = CompileOrDie("m['q'] == 1", true);
  ASSERT_NE(single, nullptr);
  v = single->Evaluate(absl::Span<const Value>());
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_EQ(v.error_message(), "no such attribute: m");
}

TEST(EvaluationCacheTest, VariableThatIsNotAMap) {
  for (const char* expr : {"m['a'] == 1", "m.a == 1", "'x' in m['a'] || m['a'].x == 1"}) {
    std::shared_ptr<const Program> p = CompileOrDie(expr, true);
    ASSERT_NE(p, nullptr);
    Value v = p->Evaluate({Value::Int(1)});
    EXPECT_TRUE(v.is_error()) << expr << " = " << v.DebugString();
  }
  std::shared_ptr<const Program> p = CompileOrDie("m['a'] == 1", true);
  ASSERT_NE(p, nullptr);
  Value v = p->Evaluate({Value::List({Value::Int(1)})});
  ASSERT_TRUE(v.is_error()) << v.DebugString();
  EXPECT_THAT(std::string(v.error_message()), HasSubstr("no such overload"));
}

}  // namespace
}  // namespace evaluation_cache_test
}  // namespace gpuprofile::cel
