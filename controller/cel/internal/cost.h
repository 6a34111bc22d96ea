// File: controller/cel/internal/cost.h
// Static cost estimation, reproducing cel-go's checker estimator together with the Kubernetes
// library estimator (per-function costs of quantity, lists, regex, URL, IP/CIDR and string
// functions) and the DRA size estimator (attribute values <= 64 characters, driver names <= 63,
// domains <= 63, ids <= 32, <= 32 attributes/capacities per device). The API server compares
// this estimate against CELSelectorExpressionMaxCost (1,000,000) at admission.
//
// With Environment::Options::dra_size_estimator false (Kubernetes 1.32.0-1.32.2) sizes reachable
// through `device` are unknown, so string functions on attributes estimate as unbounded
// (kubernetes#129523). The expected costs in Kubernetes' own DRA CEL tests are this file's golden
// data (test/cel/cost_test.cc).
// Thread-safety: pure function.
#pragma once

#include <cstdint>

#include "controller/cel/environment.h"
#include "controller/cel/internal/checker.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"

namespace gpuprofile::cel::internal {

// CostEstimate is declared with Program (controller/cel/program.h).

// Estimates the cost range of a checked expression in `env`. Calls the checker left without
// overload references cost nothing (as in cel-go). Never fails.
CostEstimate EstimateCost(const CheckedAst& checked, const Environment& env);

}  // namespace gpuprofile::cel::internal
