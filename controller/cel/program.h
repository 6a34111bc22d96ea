// File: controller/cel/program.h
// Compile once, evaluate many: parse + check + limits -> an immutable Program whose Evaluate may
// be called concurrently from any number of threads.
//
// Compile errors (absl::Status):
//   InvalidArgument   -- Kubernetes would reject the expression (syntax, types, unknown
//                        function, a library this version does not accept yet, result type);
//   ResourceExhausted -- too long or too complex (estimated cost over the limit);
//   Unimplemented     -- the expression uses a feature this engine does not implement: callers
//                        must not report that as a rejection (`cel check` exits 3).
// Messages follow the API server's wording ("compilation failed: ERROR: <input>:1:1: ...").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/cel/attribute_paths.h"
#include "controller/cel/environment.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel {

// Supplies variable values by name (the slow, general path; see Program::Evaluate).
class Activation {
 public:
  virtual ~Activation() = default;
  virtual std::optional<Value> FindVariable(absl::string_view name) const = 0;
};

class MapActivation final : public Activation {
 public:
  void Set(std::string name, Value value) { values_[std::move(name)] = std::move(value); }
  std::optional<Value> FindVariable(absl::string_view name) const override;

 private:
  absl::flat_hash_map<std::string, Value> values_;
};

// The estimated cost range of an expression (cel-go's checker estimator with the Kubernetes
// library and DRA size estimators; controller/cel/internal/cost.h).
struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;  // saturating; UINT64_MAX means "unbounded"
};

struct CompileOptions {
  bool type_check = true;            // false: evaluate unchecked (dynamic dispatch only)
  bool require_bool_result = false;  // device selectors: true
  bool enforce_limits = true;        // length and estimated cost, when the env sets them
  // Comprehension iterations one evaluation may run (over all loops) before it stops with
  // "actual cost limit exceeded". Device selectors within the 1,000,000 estimated-cost limit
  // never come close.
  uint64_t max_iterations = 10000000;
};

class Program {
 public:
  virtual ~Program() = default;

  // Fast path: variables in the order of env.variables(); missing trailing ones are unbound.
  virtual Value Evaluate(absl::Span<const Value> variables) const = 0;
  // General path: variables looked up by name.
  virtual Value Evaluate(const Activation& activation) const = 0;

  virtual const Type& result_type() const = 0;
  virtual const CostEstimate& cost() const = 0;
  virtual const std::string& expression() const = 0;

  // The paths of the declared variable `variable` the program reads (attribute_paths.h),
  // sorted and unique; nullopt when unknown: the program was compiled without type checking, or
  // `variable` is not declared in its environment.
  virtual std::optional<std::vector<AttributePath>> ReadPaths(absl::string_view variable) const = 0;
};

absl::StatusOr<std::shared_ptr<const Program>> Compile(absl::string_view expression,
                                                       std::shared_ptr<const Environment> env,
                                                       const CompileOptions& options = {});

}  // namespace gpuprofile::cel
