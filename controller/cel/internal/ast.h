// File: controller/cel/internal/ast.h
// The parsed form of a CEL expression, shared by the parser, checker, cost estimator and planner.
//
// The shape follows the CEL specification's canonical AST (google.api.expr / cel.expr): operators
// are calls with reserved function names (see operators.h), macros are already expanded
// (`has(a.b)` is a test-only select, `all/exists/exists_one/map/filter` and `cel.bind` are
// comprehensions), optional selects/indexes are the calls `_?._` and `_[?_]`.
//
// Ownership: an Expr owns its children. Every node carries a unique id (positive, per Ast) and
// the byte offset of the token that produced it, from which Source computes line:column.
// Thread-safety: immutable after parsing; safe to share across threads as const.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace gpuprofile::cel::internal {

// A literal. `kind` says which member is meaningful.
struct Constant {
  enum class Kind { kNull, kBool, kInt, kUint, kDouble, kString, kBytes };
  Kind kind = Kind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double double_value = 0;
  std::string string_value;  // kString (UTF-8) and kBytes (raw bytes)
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// One entry of a map literal `{k: v}` or a message literal `T{field: v}`.
struct CreateEntry {
  int64_t id = 0;
  int32_t offset = 0;
  ExprPtr map_key;         // map literal: the key expression
  std::string field_name;  // message literal: the field name
  ExprPtr value;
  bool optional = false;  // `{?k: v}`: the entry is set only when v (an optional) has a value
};

struct Expr {
  enum class Kind {
    kConstant,       // constant
    kIdent,          // name
    kSelect,         // operand.name (test_only for has())
    kCall,           // [target.]name(args...)
    kList,           // [elements...]
    kMap,            // {entries...}
    kMessage,        // name{entries...} (protobuf message construction; parsed, not evaluated)
    kComprehension,  // macro expansion, see below
  };

  int64_t id = 0;
  int32_t offset = 0;  // byte offset into the source text
  Kind kind = Kind::kConstant;

  Constant constant;  // kConstant

  // kIdent: the identifier; kSelect: the field; kCall: the function (operators use the reserved
  // names in operators.h); kMessage: the message type name.
  std::string name;

  ExprPtr operand;         // kSelect: the operand; kCall: the receiver (`target.f()`), else null
  bool test_only = false;  // kSelect produced by has()

  std::vector<ExprPtr> args;  // kCall: arguments; kList: elements
  std::vector<int32_t> optional_indices;  // kList: indexes of `?elem` elements

  std::vector<CreateEntry> entries;  // kMap / kMessage

  // kComprehension, evaluated as:
  //   accu = accu_init
  //   for each element (iter_var [, iter_var2]) of iter_range:
  //     if !loop_condition: break
  //     accu = loop_step
  //   return result
  // For a list, iter_var is the element (or the index when iter_var2 is set, and iter_var2 the
  // element); for a map, iter_var is the key (and iter_var2 the value).
  std::string iter_var;
  std::string iter_var2;  // empty unless a two-variable macro
  std::string accu_var;
  ExprPtr iter_range;
  ExprPtr accu_init;
  ExprPtr loop_condition;
  ExprPtr loop_step;
  ExprPtr result;
};

// Maps byte offsets to line:column and renders error snippets with a caret.
class Source {
 public:
  explicit Source(std::string text, std::string description = "<input>");

  const std::string& text() const { return text_; }
  const std::string& description() const { return description_; }

  // 1-based line and column (columns count code points, as cel-go does).
  int Line(int32_t offset) const;
  int Column(int32_t offset) const;

  // "ERROR: <input>:1:5: message\n | a + b\n | ....^" in the CEL tools' format.
  std::string FormatError(int32_t offset, absl::string_view message) const;

 private:
  std::string text_;
  std::string description_;
  std::vector<int32_t> line_starts_;  // byte offset of each line start
};

// A parsed expression: the root plus the source it came from.
struct Ast {
  ExprPtr root;
  std::shared_ptr<const Source> source;
  int64_t max_id = 0;  // the largest id handed out; new nodes may use ids above it
};

// Depth-first helpers used by passes that do not care about node kinds.
// Calls `fn(expr)` for `expr` and every node below it (pre-order).
template <typename Fn>
void VisitExpr(const Expr& expr, Fn&& fn) {
  fn(expr);
  if (expr.operand) VisitExpr(*expr.operand, fn);
  for (const ExprPtr& a : expr.args) VisitExpr(*a, fn);
  for (const CreateEntry& e : expr.entries) {
    if (e.map_key) VisitExpr(*e.map_key, fn);
    if (e.value) VisitExpr(*e.value, fn);
  }
  for (const ExprPtr* c : {&expr.iter_range, &expr.accu_init, &expr.loop_condition,
                           &expr.loop_step, &expr.result}) {
    if (*c) VisitExpr(**c, fn);
  }
}

// Renders the expression back to CEL-like text for messages and debugging (not byte-exact).
std::string DebugString(const Expr& expr);

}  // namespace gpuprofile::cel::internal
