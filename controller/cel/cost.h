// File: controller/cel/cost.h
// Static cost estimation, reproducing cel-go's estimator with Kubernetes' DRA size estimates,
// which the API server compares against CELSelectorExpressionMaxCost (1,000,000) at admission.
// The expected costs in Kubernetes' own DRA CEL tests are this file's golden data
// (test/cel/cost_test.cc).
// Thread-safety: pure function.
#pragma once

#include <cstdint>

#include "controller/cel/checker.h"
#include "controller/cel/environment.h"

namespace gpuprofile::cel {

struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;  // saturating; UINT64_MAX means "unbounded"
};

CostEstimate EstimateCost(const CheckedAst& checked, const Environment& env);

}  // namespace gpuprofile::cel
