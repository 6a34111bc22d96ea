// File: controller/cel/internal/interpreter.h
// Turns a (checked or unchecked) AST into an executable plan: a tree of evaluation steps with
// identifiers resolved to slots, calls bound to their candidate overloads, and calls on
// constants folded at plan time (so `quantity('40Gi')` is parsed once, not per device).
//
// A plan is immutable; evaluating it keeps all mutable state in a per-call Frame, so one plan
// may be evaluated concurrently from many threads.
#pragma once

#include <forward_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "controller/cel/environment.h"
#include "controller/cel/internal/ast.h"
#include "controller/cel/internal/checker.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel {
class Activation;  // controller/cel/program.h
}  // namespace gpuprofile::cel

namespace gpuprofile::cel::internal {

// Mutable state of one evaluation.
struct Frame {
  absl::Span<const Value> variables;   // declared variables, in Environment order
  const Activation* activation = nullptr;  // for names not declared (unchecked mode)
  Value* locals = nullptr;              // comprehension variables, by slot
  // The per-evaluation memo, by cache slot: repeated attribute paths (CachedStep, PathStep) and
  // keys both checked and read (MemberInStep, MemberValueStep). Null until first evaluated, then
  // the value, borrowed from the inputs or from `owned` (or, for a key, a not-a-member mark).
  // Plain pointers, so that setting up and tearing down a frame costs no constructor or
  // destructor per slot.
  const Value** cache = nullptr;
  // Values that cache slots point to when a path had to build a new value (not borrowed from the
  // inputs: an error, a value of a map that does not store its values). Rare; a list node each,
  // so that the addresses stay valid until the evaluation ends.
  std::forward_list<Value> owned;
  // Comprehension iterations left before evaluation stops with an error, so that no expression
  // can run unbounded (the scheduler enforces a runtime cost limit the same way).
  uint64_t iterations_left = 0;
};

// The error evaluation stops with when the iteration budget is spent.
inline constexpr char kBudgetExceeded[] = "operation cancelled: actual cost limit exceeded";

class Step {
 public:
  virtual ~Step() = default;
  virtual Value Evaluate(Frame& frame) const = 0;
  // A borrowed result that stays valid until the evaluation ends (a variable, a constant, a
  // cached path, a field stored in one of those), or null when the step can only produce a new
  // value; callers then use Evaluate(). Saves copying reference-counted values on hot paths.
  virtual const Value* EvaluateRef(Frame& frame) const { return nullptr; }
  // The value when the step is a constant (used for folding), else null.
  virtual const Value* constant() const { return nullptr; }
};

struct Plan {
  std::unique_ptr<Step> root;
  int num_locals = 0;
  int num_cache_slots = 0;  // Frame::cache entries the plan uses
};

// `checked` may be null (unchecked evaluation: all calls dispatch dynamically).
absl::StatusOr<Plan> BuildPlan(const Expr& root, const CheckedAst* checked,
                               const Environment& env);

}  // namespace gpuprofile::cel::internal
