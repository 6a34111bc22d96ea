// File: controller/core/quantity.h
// Kubernetes resource quantities ("40Gi", "46068Mi", "1.5", "100m", "1e3"), parsed and compared
// exactly as k8s.io/apimachinery's resource.Quantity does: the same grammar (binary suffixes
// Ki..Ei, decimal suffixes n u m "" k M G T P E, decimal exponents e/E), the same canonical
// string form, exact (not floating-point) comparison and arithmetic.
// Pure value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {

class Quantity {
 public:
  // How the quantity prints, as Kubernetes keeps it: taken from the suffix it was parsed with.
  enum class Format { kDecimalExponent, kBinarySI, kDecimalSI };

  Quantity() = default;

  // Parses Kubernetes' quantity grammar. Errors are InvalidArgument and say why
  // ("quantities must match the regular expression ..." as Kubernetes words it).
  static absl::StatusOr<Quantity> Parse(absl::string_view text);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);

  // -1, 0, 1: exact comparison of the values (format is ignored).
  int Compare(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return Compare(other) == 0; }
  bool operator!=(const Quantity& other) const { return Compare(other) != 0; }
  bool operator<(const Quantity& other) const { return Compare(other) < 0; }
  // Same value and same format, so the two print the same (ToString), which == does not
  // promise ("40Gi" == "42949672960"). The converse holds but for zero ("0" in every format).
  bool PrintsSameAs(const Quantity& other) const {
    return format_ == other.format_ && Compare(other) == 0;
  }
  // For optional quantities (null: absent): both absent, or both present and PrintsSameAs.
  static bool PrintSame(const Quantity* a, const Quantity* b) {
    return a == b || (a != nullptr && b != nullptr && a->PrintsSameAs(*b));
  }

  int Sign() const;
  // True when the value is a whole number (no fractional part).
  bool IsInteger() const;
  // The value as int64 when it is a whole number that fits; an error otherwise.
  absl::StatusOr<int64_t> AsInt64() const;
  // The nearest double (may lose precision).
  double AsApproximateDouble() const;

  // Exact sum / difference; the result keeps this quantity's format (a zero receiver takes the
  // other operand's, as Kubernetes does). Errors on overflow of the internal representation.
  absl::StatusOr<Quantity> Add(const Quantity& other) const;
  absl::StatusOr<Quantity> Sub(const Quantity& other) const;

  Format format() const { return format_; }
  // Canonical string as Kubernetes' Quantity.String() prints it ("40Gi", "1500m", "1e3").
  std::string ToString() const;

 private:
  // value = mantissa_ * 10^exponent_ (exact).
  absl::int128 mantissa_ = 0;
  int32_t exponent_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace gpuprofile
