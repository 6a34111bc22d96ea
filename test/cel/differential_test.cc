// File: test/cel/differential_test.cc
// Differential test: the project's CEL engine against @bufbuild/cel, an independent
// implementation, on ~2,000 generated selector-like expressions over ~50 generated devices.
//
// The generator is deterministic (fixed seed; $GPO_CEL_DIFFERENTIAL_SEED overrides it to explore).
// It writes <build dir>/cel-differential-in.json, runs tools/cel-spec/differential.mjs with the
// `node` found on PATH, reads <build dir>/cel-differential-out.json and evaluates the same
// expressions here, type-checked with `device` declared as map(string, dyn). Each result must be
// the same value (same kind, as in the conformance runner) or an error on both sides. Mismatches
// go to <build dir>/cel-differential-mismatches.txt.
//
// Devices are maps `{driver: string, attributes: {domain: {name: int|string|bool}},
// capacity: {domain: {name: int}}}`: only types both engines share (no quantity or semver).
//
// Needs: node on PATH and `npm ci` in tools/cel-spec (tools/cel-spec/prepare.sh BUILD_DIR).

// The build turns only test/<layer>/*_test.cc into executables; the shared conversion code lives
// in test/cel/conformance/ and is compiled into this test by inclusion.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/testing/test_paths.h"
#include "test/cel/conformance/value_json.h"

namespace gpuprofile::cel {
namespace differential_test {
namespace {

using conformance::Describe;
using conformance::ValueFromProtoJson;
using conformance::ValuesMatch;
using nlohmann::json;

constexpr uint64_t kDefaultSeed = 0x5eed'cafe'f00d'0001;
constexpr int kExpressions = 2000;
constexpr int kDevices = 50;
const std::string kScript = ::gpuprofile::testing::SourceDir() + "/tools/cel-spec/differential.mjs";
const std::string kModules =
    ::gpuprofile::testing::SourceDir() + "/tools/cel-spec/node_modules/@bufbuild/cel";
const std::string kInPath = ::gpuprofile::testing::BinaryDir() + "/cel-differential-in.json";
const std::string kOutPath = ::gpuprofile::testing::BinaryDir() + "/cel-differential-out.json";
const std::string kMismatchPath =
    ::gpuprofile::testing::BinaryDir() + "/cel-differential-mismatches.txt";

// ---- Deterministic randomness (splitmix64: the same sequence on every platform). ----

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
  int Uniform(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }
  bool Percent(int p) { return Uniform(100) < p; }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Uniform(static_cast<int>(N))];
  }

 private:
  uint64_t state_;
};

// ---- The device vocabulary. ----

constexpr const char* kDrivers[] = {"gpu.example.com", "nic.example.com", "fpga.acme.io",
                                    "gpu.nvidia.com", ""};
constexpr const char* kDomains[] = {"gpu.example.com", "nic.example.com", "dra.k8s.io",
                                    "missing.example.com"};  // the last never exists
// Attribute names and the kind of value they usually hold; "mixed" varies per device.
enum class AttrKind { kInt, kString, kBool, kMixed };
struct AttrName {
  const char* name;
  AttrKind kind;
};
constexpr AttrName kAttributes[] = {
    {"model", AttrKind::kString},  {"family", AttrKind::kString}, {"uuid", AttrKind::kString},
    {"index", AttrKind::kInt},     {"memoryGiB", AttrKind::kInt}, {"numaNode", AttrKind::kInt},
    {"healthy", AttrKind::kBool},  {"mig", AttrKind::kBool},      {"revision", AttrKind::kMixed},
    {"absent", AttrKind::kString},  // never set on any device
};
constexpr const char* kCapacities[] = {"memory", "cores", "slices", "bandwidth"};
constexpr const char* kStrings[] = {"a100",    "h100", "A100",  "ampere", "hopper", "gpu", "",
                                    "example", ".com", "gpu-0", "nvidia", "é",      "x y"};
constexpr int64_t kInts[] = {0,
                             1,
                             2,
                             3,
                             7,
                             8,
                             10,
                             16,
                             40,
                             80,
                             100,
                             1024,
                             -1,
                             -7,
                             4294967296,
                             4611686018427387904,
                             9223372036854775807,
                             -9223372036854775807};

json Str(absl::string_view s) { return json{{"stringValue", std::string(s)}}; }
json Int(int64_t i) { return json{{"int64Value", std::to_string(i)}}; }
json Entry(json key, json value) {
  return json{{"key", std::move(key)}, {"value", std::move(value)}};
}
json Map(json entries) { return json{{"mapValue", {{"entries", std::move(entries)}}}}; }

json GenerateDevice(Random& rng) {
  json attributes = json::array();
  json capacity = json::array();
  for (const char* domain : kDomains) {
    if (absl::string_view(domain) == "missing.example.com" || rng.Percent(15)) continue;
    json attrs = json::array();
    for (const AttrName& attr : kAttributes) {
      if (absl::string_view(attr.name) == "absent" || rng.Percent(12)) continue;
      AttrKind kind = attr.kind;
      if (kind == AttrKind::kMixed) kind = rng.Pick({AttrKind::kInt, AttrKind::kString});
      json value;
      switch (kind) {
        case AttrKind::kInt:
          value = Int(rng.Percent(80) ? rng.Uniform(200) - 20 : rng.Pick(kInts));
          break;
        case AttrKind::kString:
          value = Str(rng.Pick(kStrings));
          break;
        default:
          value = json{{"boolValue", rng.Percent(50)}};
      }
      attrs.push_back(Entry(Str(attr.name), std::move(value)));
    }
    attributes.push_back(Entry(Str(domain), Map(std::move(attrs))));
    if (rng.Percent(75)) {
      json caps = json::array();
      for (const char* name : kCapacities) {
        if (rng.Percent(20)) continue;
        caps.push_back(
            Entry(Str(name), Int(rng.Percent(90) ? rng.Uniform(1 << 20) : rng.Pick(kInts))));
      }
      capacity.push_back(Entry(Str(domain), Map(std::move(caps))));
    }
  }
  json entries = json::array();
  entries.push_back(Entry(Str("driver"), Str(rng.Pick(kDrivers))));
  entries.push_back(Entry(Str("attributes"), Map(std::move(attributes))));
  if (rng.Percent(90)) entries.push_back(Entry(Str("capacity"), Map(std::move(capacity))));
  return Map(std::move(entries));
}

// ---- The expression generator. ----
// Every expression is well-typed with `device` as map(string, dyn): attribute reads are dyn and
// may hold another kind at run time, or be missing, which both engines must report as errors.
class ExprGenerator {
 public:
  explicit ExprGenerator(Random& rng) : rng_(rng) {}

  // A selector-like expression: mostly bool, sometimes an int or string result.
  std::string Top() {
    const int roll = rng_.Uniform(100);
    if (roll < 85) return Bool(4);
    if (roll < 95) return IntExpr(3);
    return StrExpr(3);
  }

 private:
  std::string Quote(absl::string_view s) { return absl::StrCat("'", s, "'"); }
  // Mostly a domain devices may have; sometimes one no device has.
  std::string Domain() {
    constexpr int kReal = static_cast<int>(std::size(kDomains)) - 1;
    return Quote(rng_.Percent(8) ? kDomains[kReal] : kDomains[rng_.Uniform(kReal)]);
  }

  // device.attributes['d']['name'] or device.attributes['d'].name, of a name usually of `kind`.
  std::string Attribute(AttrKind kind) {
    std::vector<const char*> names;
    for (const AttrName& a : kAttributes) {
      if (a.kind == kind || a.kind == AttrKind::kMixed || rng_.Percent(5)) names.push_back(a.name);
    }
    const char* name = names[rng_.Uniform(static_cast<int>(names.size()))];
    const std::string domain = absl::StrCat("device.attributes[", Domain(), "]");
    return rng_.Percent(50) ? absl::StrCat(domain, "[", Quote(name), "]")
                            : absl::StrCat(domain, ".", name);
  }

  std::string Capacity() {
    return absl::StrCat("device.capacity[", Domain(), "][", Quote(rng_.Pick(kCapacities)), "]");
  }

  // `op(operand)`, except that a negation is never nested directly in another: @bufbuild/cel
  // folds `--x` and `!!x` to `x` without checking x's type (`!!'a'` is 'a'), where cel-go
  // reports "no such overload".
  std::string Negate(absl::string_view op, std::string operand) {
    if (absl::StartsWith(operand, "-") || absl::StartsWith(operand, "!")) return operand;
    return absl::StrCat(op, "(", operand, ")");
  }

  std::string IntLiteral() {
    if (rng_.Percent(3)) return "(-9223372036854775807 - 1)";
    if (rng_.Percent(2)) return "-9223372036854775808";
    return std::to_string(rng_.Pick(kInts));
  }

  std::string IntExpr(int depth) {
    if (!int_vars_.empty() && rng_.Percent(30))
      return int_vars_[rng_.Uniform(static_cast<int>(int_vars_.size()))];
    const int roll = depth <= 0 ? rng_.Uniform(3) : rng_.Uniform(12);
    switch (roll) {
      case 0:
        return IntLiteral();
      case 1:
        return Attribute(AttrKind::kInt);
      case 2:
        return Capacity();
      case 3:
      case 4: {
        static constexpr const char* kOps[] = {"+", "-", "*"};
        return absl::StrCat("(", IntExpr(depth - 1), " ", rng_.Pick(kOps), " ", IntExpr(depth - 1),
                            ")");
      }
      case 5: {
        // Divisors are literals: `MinInt64 % -1` is an overflow error in cel-go but 0 in
        // @bufbuild/cel, so -1 is left out of `%` (divide keeps it: both report overflow).
        static constexpr const char* kDivisors[] = {"0", "2", "3", "7", "-2", "10"};
        const bool mod = rng_.Percent(50);
        return absl::StrCat("(", IntExpr(depth - 1), mod ? " % " : " / ",
                            mod || rng_.Percent(80) ? rng_.Pick(kDivisors) : "-1", ")");
      }
      case 6:
        return Negate("-", IntExpr(depth - 1));
      case 7:
        return rng_.Percent(50) ? absl::StrCat("size(", StrExpr(depth - 1), ")")
                                : absl::StrCat(StrExpr(depth - 1), ".size()");
      case 8:
        return rng_.Percent(50) ? absl::StrCat("size(", ListExpr(depth - 1), ")")
                                : absl::StrCat("size(device.attributes[", Domain(), "])");
      case 9:
        return absl::StrCat("(", Bool(depth - 1), " ? ", IntExpr(depth - 1), " : ",
                            IntExpr(depth - 1), ")");
      case 10:
        return absl::StrCat("[", IntLiteral(), ", ", IntExpr(depth - 1), ", ", IntLiteral(), "][",
                            rng_.Uniform(4), "]");
      default:
        return absl::StrCat("int(", Quote(std::to_string(rng_.Pick(kInts))), ")");
    }
  }

  std::string StrExpr(int depth) {
    if (!str_vars_.empty() && rng_.Percent(30))
      return str_vars_[rng_.Uniform(static_cast<int>(str_vars_.size()))];
    const int roll = depth <= 0 ? rng_.Uniform(3) : rng_.Uniform(6);
    switch (roll) {
      case 0:
        return Quote(rng_.Pick(kStrings));
      case 1:
        return "device.driver";
      case 2:
        return Attribute(AttrKind::kString);
      case 3:
        return absl::StrCat("(", StrExpr(depth - 1), " + ", StrExpr(depth - 1), ")");
      case 4:
        return absl::StrCat("(", Bool(depth - 1), " ? ", StrExpr(depth - 1), " : ",
                            StrExpr(depth - 1), ")");
      default:
        return absl::StrCat("string(", IntExpr(depth - 1), ")");
    }
  }

  // A list of ints or of strings (`*is_int` says which).
  std::string ListExpr(int depth, bool* is_int = nullptr) {
    const bool ints = rng_.Percent(50);
    if (is_int != nullptr) *is_int = ints;
    std::vector<std::string> elements;
    const int n = rng_.Uniform(4);
    for (int i = 0; i < n; ++i) {
      elements.push_back(
          ints ? (rng_.Percent(70) ? IntLiteral() : IntExpr(depth - 1))
               : (rng_.Percent(70) ? Quote(rng_.Pick(kStrings)) : StrExpr(depth - 1)));
    }
    return absl::StrCat("[", absl::StrJoin(elements, ", "), "]");
  }

  std::string Compare(const std::string& a, const std::string& b) {
    static constexpr const char* kOps[] = {"==", "!=", "<", "<=", ">", ">="};
    return absl::StrCat(a, " ", rng_.Pick(kOps), " ", b);
  }

  // A macro over a literal list or over a map's keys, with a fresh iteration variable.
  std::string Macro(int depth) {
    static constexpr const char* kMacros[] = {"exists", "all", "exists_one", "filter", "map"};
    const std::string macro = rng_.Pick(kMacros);
    bool ints = false;
    std::string range;
    if (rng_.Percent(30)) {
      range = rng_.Percent(50) ? absl::StrCat("device.attributes[", Domain(), "]")
                               : "device.attributes";
    } else {
      range = ListExpr(depth - 1, &ints);
    }
    const std::string var = absl::StrCat("v", next_var_++);
    std::vector<std::string>& scope = ints ? int_vars_ : str_vars_;
    scope.push_back(var);
    std::string body =
        macro == "map" ? (ints ? IntExpr(depth - 1) : StrExpr(depth - 1)) : Bool(depth - 1);
    scope.pop_back();
    std::string call = absl::StrCat(range, ".", macro, "(", var, ", ", body, ")");
    if (macro == "filter" || macro == "map") {
      // Results of map/filter over a map's keys have no defined order: compare only sizes.
      return Compare(absl::StrCat("size(", call, ")"), std::to_string(rng_.Uniform(4)));
    }
    return call;
  }

  std::string Bool(int depth) {
    const int roll = depth <= 0 ? rng_.Uniform(5) : rng_.Uniform(22);
    switch (roll) {
      case 0:
        return rng_.Percent(50) ? "true" : "false";
      case 1:
        return Attribute(AttrKind::kBool);
      case 2:
        return absl::StrCat("device.driver == ", Quote(rng_.Pick(kDrivers)));
      case 3:
        return absl::StrCat(Domain(), " in device.attributes");
      case 4:
        return absl::StrCat(Quote(rng_.Pick(kAttributes).name), " in device.attributes[", Domain(),
                            "]");
      case 5:
        return absl::StrCat("has(device.attributes[", Domain(), "].", rng_.Pick(kAttributes).name,
                            ")");
      case 6:
        return rng_.Percent(50) ? "has(device.capacity)"
                                : absl::StrCat("has(device.capacity[", Domain(), "].",
                                               rng_.Pick(kCapacities), ")");
      case 7:
      case 8:
        return Compare(IntExpr(depth - 1), IntExpr(depth - 1));
      case 9:
        return Compare(StrExpr(depth - 1), StrExpr(depth - 1));
      case 10: {
        static constexpr const char* kFns[] = {"startsWith", "endsWith", "contains"};
        return absl::StrCat(StrExpr(depth - 1), ".", rng_.Pick(kFns), "(", StrExpr(depth - 1), ")");
      }
      case 11: {
        bool ints = false;
        const std::string list = ListExpr(depth - 1, &ints);
        return absl::StrCat(ints ? IntExpr(depth - 1) : StrExpr(depth - 1), " in ", list);
      }
      case 12:
      case 13:
        return absl::StrCat("(", Bool(depth - 1), " && ", Bool(depth - 1), ")");
      case 14:
      case 15:
        return absl::StrCat("(", Bool(depth - 1), " || ", Bool(depth - 1), ")");
      case 16:
        return Negate("!", Bool(depth - 1));
      case 17:
        return absl::StrCat("(", Bool(depth - 1), " ? ", Bool(depth - 1), " : ", Bool(depth - 1),
                            ")");
      case 18:
        return absl::StrCat("(", Bool(depth - 1), ") == (", Bool(depth - 1), ")");
      case 19: {
        // A guard, the idiom selectors use against missing attributes.
        const std::string domain = Domain();
        const char* name = rng_.Pick(kAttributes).name;
        return absl::StrCat("(", domain, " in device.attributes && ", Quote(name),
                            " in device.attributes[", domain, "] && ",
                            Compare(absl::StrCat("device.attributes[", domain, "].", name),
                                    rng_.Percent(50) ? IntExpr(depth - 1) : StrExpr(depth - 1)),
                            ")");
      }
      default:
        return Macro(depth);
    }
  }

  Random& rng_;
  int next_var_ = 0;
  std::vector<std::string> int_vars_;
  std::vector<std::string> str_vars_;
};

// ---- Running the reference. ----

std::string FindOnPath(absl::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string ShellQuote(absl::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

struct Comparison {
  int compared = 0;
  int both_errors = 0;
  int rejected = 0;  // compilations that failed (every device then counts)
  int mismatches = 0;
  std::string report;
};

// Compiles `expr` (type-checked or not) and compares its result on every device with the
// reference's results for it.
void CompareExpression(const std::shared_ptr<const Environment>& env, const std::string& expr,
                       bool type_check, const json& reference_results, const json& devices,
                       const std::vector<Value>& device_values, Comparison& c) {
  auto mismatch = [&](size_t device, const std::string& reference, const std::string& engine) {
    ++c.mismatches;
    absl::StrAppend(&c.report, "\nexpr:      ", expr, type_check ? "" : "   [unchecked]",
                    "\ndevice:    #", device, " ", devices[device].dump(),
                    "\nbufbuild:  ", reference, "\nengine:    ", engine, "\n");
  };
  CompileOptions options;
  options.type_check = type_check;
  absl::StatusOr<std::shared_ptr<const Program>> program = Compile(expr, env, options);
  if (!program.ok()) ++c.rejected;
  for (size_t d = 0; d < device_values.size(); ++d) {
    ++c.compared;
    const json& reference = reference_results[d];
    const Value actual = program.ok()
                             ? (*program)->Evaluate(absl::MakeConstSpan(&device_values[d], 1))
                             : Value::Error(absl::StrCat("compile: ", program.status().ToString()));
    if (reference.contains("error")) {
      if (actual.is_error()) {
        ++c.both_errors;
      } else {
        mismatch(d, reference.dump(), Describe(actual));
      }
      continue;
    }
    absl::StatusOr<Value> expected = reference.contains("value")
                                         ? ValueFromProtoJson(reference["value"])
                                         : absl::InvalidArgumentError(reference.dump());
    if (!expected.ok()) {
      mismatch(d, std::string(expected.status().message()), Describe(actual));
    } else if (!ValuesMatch(*expected, actual)) {
      mismatch(d, Describe(*expected), Describe(actual));
    }
  }
}

uint64_t Seed() {
  const char* env = std::getenv("GPO_CEL_DIFFERENTIAL_SEED");
  uint64_t seed = 0;
  if (env != nullptr && absl::SimpleAtoi(env, &seed)) return seed;
  return kDefaultSeed;
}

TEST(CelDifferential, EngineAgreesWithBufbuildCel) {
  const std::string node = FindOnPath("node");
  ASSERT_FALSE(node.empty()) << "`node` is not on PATH; install Node.js (>= 18) and run "
                                "tools/cel-spec/prepare.sh " + ::gpuprofile::testing::BinaryDir();
  ASSERT_EQ(access(kModules.c_str(), R_OK), 0)
      << kModules << " is missing; run tools/cel-spec/prepare.sh " << ::gpuprofile::testing::BinaryDir()
      << " (npm ci in tools/cel-spec)";

  Random rng(Seed());
  json devices = json::array();
  for (int i = 0; i < kDevices; ++i) devices.push_back(GenerateDevice(rng));
  std::vector<std::string> expressions;
  ExprGenerator generator(rng);
  for (int i = 0; i < kExpressions; ++i) expressions.push_back(generator.Top());
  std::ofstream(kInPath) << json{{"expressions", expressions}, {"devices", devices}}.dump();

  const std::string command = absl::StrCat(ShellQuote(node), " ", ShellQuote(kScript), " ",
                                           ShellQuote(kInPath), " ", ShellQuote(kOutPath));
  std::remove(kOutPath.c_str());
  ASSERT_EQ(std::system(command.c_str()), 0) << "failed: " << command;
  std::ifstream out_file(kOutPath);
  const json out = json::parse(out_file, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(out.is_object() && out.contains("results") && out["results"].is_array() &&
              out["results"].size() == expressions.size())
      << kOutPath << " is not a complete differential.mjs output";

  std::vector<Value> device_values;
  for (const json& d : devices) {
    absl::StatusOr<Value> v = ValueFromProtoJson(d);
    ASSERT_TRUE(v.ok()) << v.status();
    device_values.push_back(*std::move(v));
  }

  Comparison comparison;
  std::shared_ptr<const Environment> env =
      Environment::Standard({Variable{kDeviceVariable, Type::Map(Type::String(), Type::Dyn())}});
  for (size_t e = 0; e < expressions.size(); ++e) {
    for (bool type_check : {true, false}) {
      CompareExpression(env, expressions[e], type_check, out["results"][e], devices, device_values,
                        comparison);
    }
  }
  std::ofstream(kMismatchPath) << "# CEL differential mismatches (engine vs @bufbuild/cel): "
                               << comparison.mismatches << "\n"
                               << comparison.report;
  std::cout << "CEL differential vs " << out.value("engine", "?") << ": " << expressions.size()
            << " expressions x " << kDevices
            << " devices, checked and unchecked = " << comparison.compared << " results, "
            << comparison.both_errors << " both errors, " << comparison.rejected
            << " compilations rejected, " << comparison.mismatches << " mismatches ("
            << kMismatchPath << ")\n";
  EXPECT_EQ(comparison.mismatches, 0) << comparison.report.substr(0, 6000);
}

}  // namespace
}  // namespace differential_test
}  // namespace gpuprofile::cel
