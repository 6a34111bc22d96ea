// File: controller/cel/internal/macros.h
// Building blocks of the parser: ExprFactory hands out node ids and tracks tree height, and
// ExpandMacro rewrites macro calls (`has`, `all`, `exists`, `map`, `cel.bind`, ...) into the
// select/comprehension shapes cel-go produces, so that the checker, cost estimator and evaluator
// see the same trees a cel-go based API server would.
//
// Internal to controller/cel (used by parser.cc, visible for tests). Not thread-safe: one
// ExprFactory per parse.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/internal/ast.h"
#include "controller/cel/internal/parser.h"

namespace gpuprofile::cel::internal {

// Which ParserOptions flag turns a macro on.
enum class MacroGroup { kStandard, kTwoVar, kBind, kLists, kOptional };

struct MacroSignature {
  const char* name;
  int arg_count;
  bool receiver_style;  // `target.name(args)`; otherwise the global `name(args)`
  MacroGroup group;
};

// Every macro the parser knows. A call whose name, arity and style match an enabled entry is
// expanded; any other call stays a plain call.
inline constexpr MacroSignature kMacroSignatures[] = {
    // Standard macros (CEL specification).
    {"has", 1, false, MacroGroup::kStandard},
    {"all", 2, true, MacroGroup::kStandard},
    {"exists", 2, true, MacroGroup::kStandard},
    {"exists_one", 2, true, MacroGroup::kStandard},
    {"existsOne", 2, true, MacroGroup::kStandard},
    {"map", 2, true, MacroGroup::kStandard},
    {"map", 3, true, MacroGroup::kStandard},
    {"filter", 2, true, MacroGroup::kStandard},
    // ext.TwoVarComprehensions.
    {"all", 3, true, MacroGroup::kTwoVar},
    {"exists", 3, true, MacroGroup::kTwoVar},
    {"existsOne", 3, true, MacroGroup::kTwoVar},
    {"exists_one", 3, true, MacroGroup::kTwoVar},
    {"transformList", 3, true, MacroGroup::kTwoVar},
    {"transformList", 4, true, MacroGroup::kTwoVar},
    {"transformMap", 3, true, MacroGroup::kTwoVar},
    {"transformMap", 4, true, MacroGroup::kTwoVar},
    {"transformMapEntry", 3, true, MacroGroup::kTwoVar},
    {"transformMapEntry", 4, true, MacroGroup::kTwoVar},
    // ext.Bindings: `cel.bind(var, init, expr)`; only expanded when the target is `cel`.
    {"bind", 3, true, MacroGroup::kBind},
    // ext.Lists (version 2+).
    {"sortBy", 2, true, MacroGroup::kLists},
    // cel.OptionalTypes, on with the optional syntax: `opt.optMap(v, expr)`,
    // `opt.optFlatMap(v, expr)`.
    {"optMap", 2, true, MacroGroup::kOptional},
    {"optFlatMap", 2, true, MacroGroup::kOptional},
};

// Names the expansions use besides those in operators.h (cel-go's names).
inline constexpr char kMapInsertFunction[] = "cel.@mapInsert";
inline constexpr char kSortByAssociatedKeysFunction[] = "@sortByAssociatedKeys";
inline constexpr char kSortByInputVar[] = "@__sortBy_input__";
inline constexpr char kUnusedIterVar[] = "#unused";
// Older cel-go accumulator name; still reserved so user variables cannot shadow it.
inline constexpr char kLegacyAccumulatorVar[] = "__result__";
// The optional library's functions the optMap/optFlatMap expansions call.
inline constexpr char kOptionalHasValueFunction[] = "hasValue";
inline constexpr char kOptionalValueFunction[] = "value";
inline constexpr char kOptionalOfFunction[] = "optional.of";
inline constexpr char kOptionalNoneFunction[] = "optional.none";

// Returns the enabled macro with this name, arity and style, or null.
const MacroSignature* FindMacro(absl::string_view name, int arg_count, bool receiver_style,
                                const ParserOptions& options);

// Creates nodes with ids 1, 2, 3, ... in creation order and records each node's height (a leaf
// is 1) so that the parser can refuse trees deeper than recursive passes may safely walk.
class ExprFactory {
 public:
  // Heights above `max_height` are recorded as exceeded (see height_exceeded()).
  explicit ExprFactory(int max_height) : max_height_(max_height) {}

  ExprPtr NewConstant(int32_t offset, Constant constant);
  ExprPtr NewBool(int32_t offset, bool value);
  ExprPtr NewInt(int32_t offset, int64_t value);
  ExprPtr NewString(int32_t offset, std::string value);
  ExprPtr NewIdent(int32_t offset, std::string name);
  ExprPtr NewSelect(int32_t offset, ExprPtr operand, std::string field, bool test_only = false);
  ExprPtr NewCall(int32_t offset, std::string function, std::vector<ExprPtr> args);
  ExprPtr NewMemberCall(int32_t offset, std::string function, ExprPtr target,
                        std::vector<ExprPtr> args);
  ExprPtr NewList(int32_t offset, std::vector<ExprPtr> elements = {},
                  std::vector<int32_t> optional_indices = {});
  // An entry with a fresh id; the caller fills key/field, value and optional.
  CreateEntry NewEntry(int32_t offset);
  ExprPtr NewMap(int32_t offset, std::vector<CreateEntry> entries = {});
  ExprPtr NewMessage(int32_t offset, std::string name, std::vector<CreateEntry> entries);

  struct Comprehension {
    std::string iter_var;
    std::string iter_var2;
    std::string accu_var;
    ExprPtr iter_range;
    ExprPtr accu_init;
    ExprPtr loop_condition;
    ExprPtr loop_step;
    ExprPtr result;
  };
  ExprPtr NewComprehension(int32_t offset, Comprehension parts);

  // A copy of `expr` with fresh ids (cel-go's MacroExprFactory.Copy).
  ExprPtr Copy(const Expr& expr);

  int Height(const Expr& expr) const;
  int64_t max_id() const { return next_id_ - 1; }
  bool height_exceeded() const { return exceeded_offset_ >= 0; }
  int32_t height_exceeded_offset() const { return exceeded_offset_; }

 private:
  ExprPtr Finish(ExprPtr expr);

  int max_height_;
  int64_t next_id_ = 1;
  std::vector<int> heights_ = {0};  // indexed by id; entries record 0
  int32_t exceeded_offset_ = -1;
};

// Builds an argument vector from move-only expressions.
template <typename... Exprs>
std::vector<ExprPtr> MakeArgs(Exprs... exprs) {
  std::vector<ExprPtr> args;
  args.reserve(sizeof...(exprs));
  (args.push_back(std::move(exprs)), ...);
  return args;
}

struct MacroError {
  int32_t offset = 0;
  std::string message;
};

enum class MacroOutcome {
  kNotMacro,  // no enabled macro applies; target and args are untouched
  kExpanded,  // *expansion holds the result; target and args were consumed
  kError,     // *error says why; target and args are untouched
};

// Expands `[target.]function(args)` when it is an enabled macro. `target` is null for global
// calls. `offset` is the call's position (its '('), given to every node the expansion creates.
MacroOutcome ExpandMacro(ExprFactory& factory, const ParserOptions& options, int32_t offset,
                         absl::string_view function, ExprPtr& target, std::vector<ExprPtr>& args,
                         ExprPtr* expansion, MacroError* error);

}  // namespace gpuprofile::cel::internal
