// File: controller/core/status_macros.h
// Early-return helpers for absl::Status / absl::StatusOr. Debian 12's Abseil (20220623) ships
// neither RETURN_IF_ERROR nor ASSIGN_OR_RETURN, so the project defines them once, here.
// Thread-safety: macros only; no state.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define GPO_STATUS_CONCAT_INNER_(a, b) a##b
#define GPO_STATUS_CONCAT_(a, b) GPO_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                                   \
  do {                                                          \
    const ::absl::Status gpo_status_ = (expr);                  \
    if (!gpo_status_.ok()) return gpo_status_;                  \
  } while (false)

// `ASSIGN_OR_RETURN(auto x, MakeX());` declares/assigns `x` from a StatusOr or returns its status.
#define ASSIGN_OR_RETURN(lhs, expr) \
  GPO_ASSIGN_OR_RETURN_IMPL_(GPO_STATUS_CONCAT_(gpo_statusor_, __LINE__), lhs, expr)

#define GPO_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return statusor.status();         \
  lhs = std::move(statusor).value()
