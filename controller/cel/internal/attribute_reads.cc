// File: controller/cel/internal/attribute_reads.cc
#include "controller/cel/internal/attribute_reads.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/internal/ast.h"
#include "controller/cel/internal/operators.h"

namespace gpuprofile::cel::internal {
namespace {

bool IsStringConstant(const Expr* e) {
  return e != nullptr && e->kind == Expr::Kind::kConstant &&
         e->constant.kind == Constant::Kind::kString;
}

class PathCollector {
 public:
  PathCollector(const CheckedAst& checked, absl::string_view variable)
      : checked_(checked), variable_(variable) {}

  void Visit(const Expr& e) {
    std::vector<std::string> chain;
    // has(m.k), m a map: whether m has k.
    if (e.kind == Expr::Kind::kSelect && e.test_only && IsMap(*e.operand) &&
        Chain(*e.operand, &chain)) {
      chain.push_back(e.name);
      paths_.push_back({std::move(chain), /*presence_only=*/true});
      return;
    }
    chain.clear();
    if (Chain(e, &chain)) {
      paths_.push_back({std::move(chain)});
      return;
    }
    switch (e.kind) {
      case Expr::Kind::kConstant:
      case Expr::Kind::kIdent:
        return;
      case Expr::Kind::kSelect:
        Visit(*e.operand);
        return;
      case Expr::Kind::kCall:
        // 'k' in m, m a map: reads m's entry k (its presence) only.
        if (e.name == op::kIn && !e.operand && e.args.size() == 2 &&
            IsStringConstant(e.args[0].get()) && IsMap(*e.args[1]) && Chain(*e.args[1], &chain)) {
          chain.push_back(e.args[0]->constant.string_value);
          paths_.push_back({std::move(chain), /*presence_only=*/true});
          return;
        }
        if (e.operand) Visit(*e.operand);
        for (const ExprPtr& arg : e.args) Visit(*arg);
        return;
      case Expr::Kind::kList:
        for (const ExprPtr& element : e.args) Visit(*element);
        return;
      case Expr::Kind::kMap:
      case Expr::Kind::kMessage:
        for (const CreateEntry& entry : e.entries) {
          if (entry.map_key) Visit(*entry.map_key);
          if (entry.value) Visit(*entry.value);
        }
        return;
      case Expr::Kind::kComprehension:
        for (const ExprPtr* child :
             {&e.iter_range, &e.accu_init, &e.loop_condition, &e.loop_step, &e.result}) {
          if (*child) Visit(**child);
        }
        return;
    }
  }

  // Sorted and unique; a presence test of a path also read for its value is dropped (the value
  // tells the presence too).
  std::vector<AttributePath> Take() && {
    std::sort(paths_.begin(), paths_.end());
    paths_.erase(std::unique(paths_.begin(), paths_.end(),
                             [](const AttributePath& a, const AttributePath& b) {
                               return a.qualifiers == b.qualifiers;
                             }),
                 paths_.end());
    return std::move(paths_);
  }

 private:
  bool IsMap(const Expr& e) const { return checked_.TypeOf(e).kind() == Type::Kind::kMap; }

  // Whether `e` is the variable followed by constant qualifiers; if so appends them to `out`.
  bool Chain(const Expr& e, std::vector<std::string>* out) const {
    switch (e.kind) {
      case Expr::Kind::kIdent: {
        auto ref = checked_.references.find(e.id);
        return ref != checked_.references.end() && ref->second.variable == variable_;
      }
      case Expr::Kind::kSelect:
        if (!Chain(*e.operand, out)) return false;
        out->push_back(e.name);
        return true;
      case Expr::Kind::kCall:
        if (e.operand || e.args.size() != 2 || !IsStringConstant(e.args[1].get())) return false;
        if (e.name != op::kIndex && e.name != op::kOptIndex && e.name != op::kOptSelect) {
          return false;
        }
        if (!Chain(*e.args[0], out)) return false;
        out->push_back(e.args[1]->constant.string_value);
        return true;
      default:
        return false;
    }
  }

  const CheckedAst& checked_;
  absl::string_view variable_;
  std::vector<AttributePath> paths_;
};

}  // namespace

std::vector<AttributePath> CollectAttributePaths(const CheckedAst& checked,
                                                 absl::string_view variable) {
  PathCollector collector(checked, variable);
  collector.Visit(*checked.ast.root);
  return std::move(collector).Take();
}

}  // namespace gpuprofile::cel::internal
