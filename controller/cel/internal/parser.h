// File: controller/cel/internal/parser.h
// CEL text -> Ast. A hand-written recursive-descent parser for the full CEL grammar (literals
// with every escape, raw/triple-quoted strings, bytes, lists, maps, messages, member/index
// access, calls, all operators with CEL precedence, ternary, `in`, optional syntax) that expands
// the standard macros into comprehensions exactly as cel-go does.
//
// Errors are InvalidArgument statuses whose message follows cel-go's form, one line per error:
//   ERROR: <input>:1:3: Syntax error: mismatched input ...
//    | a + + b
//    | ..^
// Recursion is bounded (max_recursion_depth) so that no input can overflow the stack.
// Thread-safety: pure function.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/cel/internal/ast.h"

namespace gpuprofile::cel::internal {

struct ParserOptions {
  // cel-go's defaults: nesting depth 250 (parentheses, calls, member chains, unary chains all
  // count), 100,000 code points.
  int max_recursion_depth = 250;
  int max_expression_code_points = 100000;

  // `x.?f`, `x[?k]`, `[?e]`, `{?k: v}` (cel.OptionalTypes; Kubernetes 1.28+).
  bool enable_optional_syntax = true;
  // `cel.bind(var, init, expr)` (ext.Bindings).
  bool enable_bind_macro = true;
  // Two-variable comprehension macros (ext.TwoVarComprehensions): `all(i, v, p)`,
  // `exists(i, v, p)`, `existsOne(i, v, p)`, `transformList(i, v, [filter,] e)`,
  // `transformMap(k, v, [filter,] e)`, `transformMapEntry(k, v, [filter,] e)`.
  bool enable_two_var_macros = true;
  // `sortBy` macro of ext.Lists (version 2+).
  bool enable_lists_macros = true;
  // The name reported in error messages.
  std::string description = "<input>";
};

absl::StatusOr<Ast> Parse(absl::string_view text, const ParserOptions& options = {});

}  // namespace gpuprofile::cel::internal
