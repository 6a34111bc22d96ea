// File: controller/cel/cost.cc
// Static cost estimation after cel-go's estimator: constants are free, identifiers and field
// selections cost 1, calls cost 1 plus their arguments, comprehensions multiply the loop body by
// the estimated range size.
#include "controller/cel/cost.h"

#include <algorithm>
#include <limits>

#include "controller/cel/operators.h"

namespace gpuprofile::cel {
namespace {

constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

uint64_t SatAdd(uint64_t a, uint64_t b) { return a > kUnbounded - b ? kUnbounded : a + b; }
uint64_t SatMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kUnbounded / b ? kUnbounded : a * b;
}

class Estimator {
 public:
  explicit Estimator(const CheckedAst& checked) : checked_(checked) {}

  uint64_t Cost(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kConstant:
        return 0;
      case Expr::Kind::kIdent:
        return 1;
      case Expr::Kind::kSelect:
        return SatAdd(1, Cost(*e.operand));
      case Expr::Kind::kCall: {
        uint64_t c = 1;
        if (e.operand) c = SatAdd(c, Cost(*e.operand));
        for (const ExprPtr& a : e.args) c = SatAdd(c, Cost(*a));
        return c;
      }
      case Expr::Kind::kList: {
        uint64_t c = 10;
        for (const ExprPtr& a : e.args) c = SatAdd(c, Cost(*a));
        return c;
      }
      case Expr::Kind::kMap:
      case Expr::Kind::kMessage: {
        uint64_t c = 30;
        for (const CreateEntry& en : e.entries) {
          if (en.map_key) c = SatAdd(c, Cost(*en.map_key));
          c = SatAdd(c, Cost(*en.value));
        }
        return c;
      }
      case Expr::Kind::kComprehension: {
        uint64_t body = SatAdd(Cost(*e.loop_condition), Cost(*e.loop_step));
        uint64_t c = SatAdd(Cost(*e.iter_range), Cost(*e.accu_init));
        c = SatAdd(c, SatMul(body, RangeSize(*e.iter_range)));
        return SatAdd(c, Cost(*e.result));
      }
    }
    return 0;
  }

 private:
  static uint64_t RangeSize(const Expr& range) {
    if (range.kind == Expr::Kind::kList) return range.args.size();
    if (range.kind == Expr::Kind::kMap) return range.entries.size();
    return kUnbounded;
  }

  const CheckedAst& checked_;
};

}  // namespace

CostEstimate EstimateCost(const CheckedAst& checked, const Environment& env) {
  Estimator estimator(checked);
  uint64_t c = estimator.Cost(*checked.ast.root);
  return CostEstimate{0, c};
}

}  // namespace gpuprofile::cel
