// File: controller/cel/program.cc
#include "controller/cel/program.h"

#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/internal/attribute_reads.h"
#include "controller/cel/internal/checker.h"
#include "controller/cel/internal/cost.h"
#include "controller/cel/internal/interpreter.h"
#include "controller/cel/internal/parser.h"

namespace gpuprofile::cel {

using internal::Ast;
using internal::BuildPlan;
using internal::Check;
using internal::CheckedAst;
using internal::CheckOptions;
using internal::CollectAttributePaths;
using internal::EstimateCost;
using internal::Frame;
using internal::Parse;
using internal::Plan;

namespace {

class ProgramImpl final : public Program {
 public:
  ProgramImpl(std::string expression, std::shared_ptr<const Environment> env, Plan plan,
              Type result_type, CostEstimate cost, uint64_t max_iterations,
              std::vector<std::vector<AttributePath>> reads)
      : expression_(std::move(expression)), env_(std::move(env)), plan_(std::move(plan)),
        result_type_(std::move(result_type)), cost_(cost), max_iterations_(max_iterations),
        reads_(std::move(reads)) {}

  Value Evaluate(absl::Span<const Value> variables) const override {
    return Run(variables, nullptr);
  }

  Value Evaluate(const Activation& activation) const override {
    absl::InlinedVector<Value, 4> vars;
    for (const Variable& v : env_->variables()) {
      std::optional<Value> value = activation.FindVariable(v.name);
      vars.push_back(value ? std::move(*value)
                           : Value::Error(absl::StrCat("no such attribute: ", v.name)));
    }
    return Run(vars, &activation);
  }

  const Type& result_type() const override { return result_type_; }
  const CostEstimate& cost() const override { return cost_; }
  const std::string& expression() const override { return expression_; }

  std::optional<std::vector<AttributePath>> ReadPaths(
      absl::string_view variable) const override {
    if (reads_.empty()) return std::nullopt;  // compiled without type checking
    const std::optional<size_t> index = env_->FindVariable(variable);
    if (!index.has_value()) return std::nullopt;
    return reads_[*index];
  }

 private:
  Value Run(absl::Span<const Value> variables, const Activation* activation) const {
    absl::InlinedVector<Value, 8> locals(static_cast<size_t>(plan_.num_locals));
    absl::InlinedVector<const Value*, 8> cache(static_cast<size_t>(plan_.num_cache_slots),
                                               nullptr);
    Frame frame;
    frame.variables = variables;
    frame.activation = activation;
    frame.locals = locals.data();
    frame.cache = cache.data();
    frame.iterations_left = max_iterations_;
    return plan_.root->Evaluate(frame);
  }

  std::string expression_;
  std::shared_ptr<const Environment> env_;  // keeps the overloads the plan points to alive
  Plan plan_;
  Type result_type_;
  CostEstimate cost_;
  uint64_t max_iterations_;
  // Per declared variable (env order), the paths the program reads; empty when unchecked.
  std::vector<std::vector<AttributePath>> reads_;
};

}  // namespace

std::optional<Value> MapActivation::FindVariable(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::shared_ptr<const Program>> Compile(absl::string_view expression,
                                                       std::shared_ptr<const Environment> env,
                                                       const CompileOptions& options) {
  const Environment::Options& eo = env->options();
  if (options.enforce_limits && eo.max_expression_length > 0 &&
      expression.size() > eo.max_expression_length) {
    return absl::ResourceExhaustedError(
        absl::StrCat("expression too long: ", expression.size(), " bytes, the limit is ",
                     eo.max_expression_length));
  }
  absl::StatusOr<Ast> ast = Parse(expression, env->parser_options());
  if (!ast.ok()) return ast.status();

  Type result_type = Type::Dyn();
  CostEstimate cost;
  absl::StatusOr<Plan> plan = absl::InternalError("unset");
  std::vector<std::vector<AttributePath>> reads;
  if (options.type_check) {
    CheckOptions co;
    co.require_bool_result = options.require_bool_result;
    absl::StatusOr<CheckedAst> checked = Check(*std::move(ast), *env, co);
    if (!checked.ok()) return checked.status();
    result_type = checked->result_type();
    cost = EstimateCost(*checked, *env);
    if (options.enforce_limits && eo.cost_limit > 0 && cost.max > eo.cost_limit) {
      return absl::ResourceExhaustedError(
          absl::StrCat("too complex, exceeds cost limit: the estimated cost ",
                       cost.max == UINT64_MAX ? std::string("is unbounded")
                                              : absl::StrCat("is ", cost.max),
                       ", the limit is ", eo.cost_limit,
                       eo.device_selector && !eo.dra_size_estimator
                           ? " (Kubernetes 1.32.0-1.32.2 assume attribute strings of unbounded "
                             "size; 1.32.3 fixed this, kubernetes#129523)"
                           : ""));
    }
    plan = BuildPlan(*checked->ast.root, &*checked, *env);
    for (const Variable& variable : env->variables()) {
      reads.push_back(CollectAttributePaths(*checked, variable.name));
    }
  } else {
    plan = BuildPlan(*ast->root, nullptr, *env);
  }
  if (!plan.ok()) return plan.status();
  return std::shared_ptr<const Program>(new ProgramImpl(
      std::string(expression), std::move(env), *std::move(plan), result_type, cost,
      options.max_iterations, std::move(reads)));
}

}  // namespace gpuprofile::cel
