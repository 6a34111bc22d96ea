// File: test/testing/status_matchers.h
// gtest helpers for absl::Status; Debian's Abseil ships no status matchers.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace gpuprofile::testing

#define EXPECT_OK(expr) EXPECT_TRUE(::gpuprofile::testing::GetStatus(expr).ok()) \
    << ::gpuprofile::testing::GetStatus(expr)
#define ASSERT_OK(expr) ASSERT_TRUE(::gpuprofile::testing::GetStatus(expr).ok()) \
    << ::gpuprofile::testing::GetStatus(expr)
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                          \
  auto GPO_TEST_CONCAT_(statusor_, __LINE__) = (expr);                           \
  ASSERT_TRUE(GPO_TEST_CONCAT_(statusor_, __LINE__).ok())                        \
      << GPO_TEST_CONCAT_(statusor_, __LINE__).status();                         \
  lhs = std::move(GPO_TEST_CONCAT_(statusor_, __LINE__)).value()
#define GPO_TEST_CONCAT_INNER_(a, b) a##b
#define GPO_TEST_CONCAT_(a, b) GPO_TEST_CONCAT_INNER_(a, b)
