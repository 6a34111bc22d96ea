// File: controller/cel/internal/checker.h
// Static type checking of a parsed expression against an Environment, as cel-go's checker does
// for Kubernetes: resolves identifiers (including qualified names within the container),
// resolves each call to its candidate overloads, infers types (with type parameters and dyn),
// enforces the version gates, and requires a bool-or-dyn result when asked.
//
// Errors are InvalidArgument with every problem found, each in cel-go's format with position and
// caret ("ERROR: <input>:1:8: found no matching overload for '_>=_' applied to
// '(kubernetes.Quantity, kubernetes.Quantity)'"). Features the engine does not implement (e.g.
// protobuf message construction) yield Unimplemented.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "controller/cel/environment.h"
#include "controller/cel/internal/ast.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/types.h"

namespace gpuprofile::cel::internal {

// What a node refers to after checking.
struct Reference {
  // kIdent (possibly rewritten from a qualified select chain): the declared variable's name.
  std::string variable;
  // kCall: ids of the overloads that may apply (one when the types decide it).
  std::vector<std::string> overload_ids;
};

struct CheckedAst {
  Ast ast;  // qualified-identifier select chains are rewritten to kIdent nodes
  absl::flat_hash_map<int64_t, Type> types;
  absl::flat_hash_map<int64_t, Reference> references;

  const Type& TypeOf(const Expr& e) const;
  const Type& result_type() const { return TypeOf(*ast.root); }
};

struct CheckOptions {
  // Kubernetes requires selectors to be bool (or dyn): "must evaluate to bool or the unknown
  // type, not int".
  bool require_bool_result = false;
};

absl::StatusOr<CheckedAst> Check(Ast ast, const Environment& env, const CheckOptions& options = {});

}  // namespace gpuprofile::cel::internal
