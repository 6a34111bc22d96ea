// File: controller/core/quantity.cc
// Parsing follows k8s.io/apimachinery's parseQuantityString/ParseQuantity step by step, including
// its leniencies (a bare suffix such as "Mi", or "." or "-", reads as zero), so that a string the
// API server accepts is accepted here and one it rejects is rejected with the same message.
//
// Where we deliberately differ from Kubernetes (each is a corner no real manifest reaches):
// - An `e` exponent must fit in int32. Kubernetes parses it as int64 and truncates it to int32,
//   so "1e4294967296" silently becomes 1; we reject it instead.
// - Values are exact in a 128-bit mantissa (up to 38 significant digits) times 10^int32.
//   Kubernetes falls back to arbitrary precision; we reject longer values as out of range rather
//   than lose digits.
// - ToString always prints the canonical form. Kubernetes echoes the input for some strings it
//   considers canonical already ("+1k", "1E3", "01" print as typed), and it prints a wrong value
//   for DecimalSI beyond the "E" suffix ("2000E" -> "2"); we print "2000E".
#include "controller/core/quantity.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gpuprofile {
namespace {

constexpr char kErrFormatWrong[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr char kErrNumeric[] = "unable to parse numeric part of quantity";
constexpr char kErrSuffix[] = "unable to parse quantity's suffix";

// The most significant digits a mantissa may carry: 10^38 - 1 < 2^127 - 1.
constexpr int kMaxMantissaDigits = 38;
// The finest precision Kubernetes keeps: smaller values are rounded up to 1n.
constexpr int64_t kNanoExponent = -9;

absl::uint128 Abs(absl::int128 v) {
  // |mantissa| never reaches 2^127 (it stays within Int128Max), so negation is safe.
  return v < 0 ? static_cast<absl::uint128>(-v) : static_cast<absl::uint128>(v);
}

std::string ToDecimal(absl::uint128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(absl::Uint128Low64(v % 10))));
    v /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

int DigitCount(absl::uint128 v) {
  int n = 0;
  while (v != 0) {
    ++n;
    v /= 10;
  }
  return n;
}

// Multiplies by 10^n; false when the result would leave [-Int128Max, Int128Max].
bool MulPow10(absl::int128 v, int64_t n, absl::int128* out) {
  if (v == 0) {
    *out = 0;
    return true;
  }
  if (n > kMaxMantissaDigits + 1) return false;
  absl::uint128 mag = Abs(v);
  const absl::uint128 limit = static_cast<absl::uint128>(absl::Int128Max());
  for (int64_t i = 0; i < n; ++i) {
    if (mag > limit / 10) return false;
    mag *= 10;
  }
  *out = v < 0 ? -static_cast<absl::int128>(mag) : static_cast<absl::int128>(mag);
  return true;
}

bool CheckedAdd(absl::int128 a, absl::int128 b, absl::int128* out) {
  const absl::int128 max = absl::Int128Max();
  if ((b > 0 && a > max - b) || (b < 0 && a < -max - b)) return false;
  *out = a + b;
  return true;
}

// An unsigned integer of any size, only as large as parsing a fractional binary quantity needs
// ("0.3Ei" is 0.3 * 2^60, exact, before rounding); little-endian base-2^32 limbs.
class BigUnsigned {
 public:
  explicit BigUnsigned(absl::string_view digits) {
    for (char c : digits) {
      MulAdd(10, static_cast<uint32_t>(c - '0'));
    }
  }
  void MulAdd(uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t& limb : limbs_) {
      const uint64_t cur = static_cast<uint64_t>(limb) * mul + carry;
      limb = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  // Divides in place and returns the remainder.
  uint32_t Div(uint32_t div) {
    uint64_t rem = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(cur / div);
      rem = cur % div;
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
    return static_cast<uint32_t>(rem);
  }
  std::string ToDecimalString() const {
    if (limbs_.empty()) return "0";
    BigUnsigned tmp = *this;
    std::string out;
    while (!tmp.limbs_.empty()) {
      uint32_t chunk = tmp.Div(1000000000);
      for (int i = 0; i < 9; ++i) {
        out.push_back(static_cast<char>('0' + chunk % 10));
        chunk /= 10;
      }
    }
    while (out.size() > 1 && out.back() == '0') out.pop_back();
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  std::vector<uint32_t> limbs_;
};

// Removes trailing zeros from a digit string (no leading zeros, not "0"), moving them into
// `exponent`.
void StripTrailingZeros(std::string& digits, int64_t& exponent) {
  size_t end = digits.size();
  while (end > 1 && digits[end - 1] == '0') --end;
  exponent += static_cast<int64_t>(digits.size() - end);
  digits.resize(end);
}

// Adds one to a decimal digit string.
void Increment(std::string& digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return;
    }
    digits[i] = '0';
  }
  digits.insert(digits.begin(), '1');
}

// The pieces parseQuantityString finds.
struct Scanned {
  bool positive = true;
  std::string num;    // integer digits without leading zeros ("0" when none)
  std::string denom;  // fractional digits as written
  std::string suffix;
  bool has_digit = false;  // whether the numeric part holds any digit at all
};

// The scanner of quantity.go: sign, digits, optional '.' and digits, then a suffix made of
// suffix letters, an optional sign and digits. Anything left over is the format error.
absl::Status Scan(absl::string_view str, Scanned& out) {
  size_t pos = 0;
  const size_t end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    out.positive = str[0] != '-';
    ++pos;
  }
  while (pos < end && str[pos] == '0') {
    out.has_digit = true;
    ++pos;
  }
  if (pos >= end) {
    out.num = "0";
    return absl::OkStatus();
  }
  size_t start = pos;
  while (pos < end && absl::ascii_isdigit(str[pos])) ++pos;
  out.num = std::string(str.substr(start, pos - start));
  if (!out.num.empty()) out.has_digit = true;
  if (out.num.empty()) out.num = "0";
  if (pos < end && str[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && absl::ascii_isdigit(str[pos])) ++pos;
    out.denom = std::string(str.substr(start, pos - start));
    if (!out.denom.empty()) out.has_digit = true;
  }
  const size_t suffix_start = pos;
  while (pos < end && absl::string_view("eEinumkKMGTP").find(str[pos]) != absl::string_view::npos) {
    ++pos;
  }
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && absl::ascii_isdigit(str[pos])) ++pos;
  if (pos < end) return absl::InvalidArgumentError(kErrFormatWrong);
  out.suffix = std::string(str.substr(suffix_start));
  return absl::OkStatus();
}

struct Suffix {
  int base = 10;  // 10 or 2
  int64_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

// Go's strconv.ParseInt(s, 10, 64): optional sign, at least one digit, within int64.
bool ParseInt64(absl::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  absl::uint128 mag = 0;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
    mag = mag * 10 + static_cast<uint64_t>(c - '0');
    if (mag > (absl::uint128(1) << 63)) return false;
  }
  if (!negative && mag > static_cast<absl::uint128>(std::numeric_limits<int64_t>::max())) {
    return false;
  }
  *out = negative ? static_cast<int64_t>(-static_cast<absl::int128>(mag))
                  : static_cast<int64_t>(mag);
  return true;
}

bool InterpretSuffix(absl::string_view s, Suffix& out) {
  static constexpr struct {
    const char* text;
    int base;
    int exponent;
  } kTable[] = {
      {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},
      {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
      {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50},
      {"Ei", 2, 60},
  };
  for (const auto& entry : kTable) {
    if (s == entry.text) {
      out.base = entry.base;
      out.exponent = entry.exponent;
      out.format = entry.base == 2 ? Quantity::Format::kBinarySI : Quantity::Format::kDecimalSI;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t exponent = 0;
    if (!ParseInt64(s.substr(1), &exponent)) return false;
    out.base = 10;
    out.exponent = exponent;
    out.format = Quantity::Format::kDecimalExponent;
    return true;
  }
  return false;
}

// Compares the non-negative decimal digits*10^exponent (digits without leading zeros) with
// 2^63 - 1, the bound Kubernetes clamps binary quantities to.
bool ExceedsMaxInt64(const std::string& digits, int64_t exponent) {
  const int64_t int_digits = static_cast<int64_t>(digits.size()) + exponent;
  if (int_digits != 19) return int_digits > 19;
  const std::string max = "9223372036854775807";
  std::string padded = digits.substr(0, std::min<size_t>(digits.size(), 19));
  padded.resize(19, '0');
  if (padded != max) return padded > max;
  return digits.size() > 19;  // equal integer part plus a non-zero fraction
}

}  // namespace

absl::StatusOr<Quantity> Quantity::Parse(absl::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError(kErrFormatWrong);
  if (text == "0") return Quantity();

  Scanned scanned;
  if (absl::Status s = Scan(text, scanned); !s.ok()) return s;
  Suffix suffix;
  if (!InterpretSuffix(scanned.suffix, suffix)) return absl::InvalidArgumentError(kErrSuffix);
  if (suffix.exponent < std::numeric_limits<int32_t>::min() ||
      suffix.exponent > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantity exponent out of range (must fit in 32 bits): ", text));
  }
  // Kubernetes reads a digit-less number ("Mi", ".", "-") as zero on its fast path; its slow path
  // (binary suffixes Pi/Ei, exponents below nano) hands the text to inf.Dec, which rejects it.
  if (!scanned.has_digit &&
      ((suffix.base == 2 && suffix.exponent >= 50) ||
       (suffix.base == 10 && suffix.exponent < kNanoExponent))) {
    return absl::InvalidArgumentError(kErrNumeric);
  }

  Quantity q;
  q.format_ = suffix.format;
  std::string digits = scanned.num + scanned.denom;
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return q;  // zero keeps the suffix's format ("0Ki")
  digits.erase(0, first);
  int64_t exponent = (suffix.base == 10 ? suffix.exponent : 0) -
                     static_cast<int64_t>(scanned.denom.size());
  StripTrailingZeros(digits, exponent);

  if (suffix.base == 2) {
    BigUnsigned big(digits);
    for (int64_t i = 0; i < suffix.exponent; i += 10) big.MulAdd(1024, 0);
    digits = big.ToDecimalString();
    StripTrailingZeros(digits, exponent);
  }

  // Kubernetes rounds anything finer than 1n up (away from zero): asking for a sliver of a
  // resource should still get some.
  if (exponent < kNanoExponent) {
    const int64_t drop = kNanoExponent - exponent;
    if (drop >= static_cast<int64_t>(digits.size())) {
      digits = "1";
    } else {
      digits.resize(digits.size() - static_cast<size_t>(drop));
      Increment(digits);  // the dropped digits end in a non-zero digit
    }
    exponent = kNanoExponent;
    StripTrailingZeros(digits, exponent);
  }

  if (suffix.base == 2) {
    // Kubernetes clamps binary quantities to 2^63 - 1 ("16Ei" parses as 9223372036854775807).
    if (ExceedsMaxInt64(digits, exponent)) {
      digits = "9223372036854775807";
      exponent = 0;
    }
    // Below 1 a binary suffix cannot print without rounding, so Kubernetes switches to DecimalSI.
    if (static_cast<int64_t>(digits.size()) + exponent <= 0) q.format_ = Format::kDecimalSI;
  }

  if (digits.size() > static_cast<size_t>(kMaxMantissaDigits) ||
      exponent < std::numeric_limits<int32_t>::min() ||
      exponent > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantity out of the supported range (at most ", kMaxMantissaDigits,
        " significant digits and a 32-bit exponent): ", text));
  }
  absl::int128 mantissa = 0;
  for (char c : digits) mantissa = mantissa * 10 + (c - '0');
  q.mantissa_ = scanned.positive ? mantissa : -mantissa;
  q.exponent_ = static_cast<int32_t>(exponent);
  return q;
}

Quantity Quantity::FromInt(int64_t value, Format format) {
  Quantity q;
  q.format_ = format;
  q.mantissa_ = value;
  while (q.mantissa_ != 0 && q.mantissa_ % 10 == 0) {
    q.mantissa_ /= 10;
    ++q.exponent_;
  }
  return q;
}

int Quantity::Sign() const { return mantissa_ < 0 ? -1 : (mantissa_ > 0 ? 1 : 0); }

int Quantity::Compare(const Quantity& other) const {
  // Same exponent (every binary-suffixed quantity, and most others): the mantissas decide.
  if (exponent_ == other.exponent_) {
    return mantissa_ < other.mantissa_ ? -1 : (mantissa_ > other.mantissa_ ? 1 : 0);
  }
  const int sa = Sign();
  const int sb = other.Sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  absl::uint128 ma = Abs(mantissa_);
  absl::uint128 mb = Abs(other.mantissa_);
  // Compare the position of the leading digit first; only equal positions need alignment, and
  // then the scaled-up mantissa has no more digits than the other one, so it cannot overflow.
  const int64_t lead_a = DigitCount(ma) + static_cast<int64_t>(exponent_);
  const int64_t lead_b = DigitCount(mb) + static_cast<int64_t>(other.exponent_);
  int magnitude = 0;
  if (lead_a != lead_b) {
    magnitude = lead_a < lead_b ? -1 : 1;
  } else {
    for (int64_t i = exponent_; i > other.exponent_; --i) ma *= 10;
    for (int64_t i = other.exponent_; i > exponent_; --i) mb *= 10;
    magnitude = ma < mb ? -1 : (ma > mb ? 1 : 0);
  }
  return sa * magnitude;
}

bool Quantity::IsInteger() const { return mantissa_ == 0 || exponent_ >= 0; }

absl::StatusOr<int64_t> Quantity::AsInt64() const {
  if (!IsInteger()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot convert value to integer: ", ToString(), " has a fractional part"));
  }
  absl::int128 value = 0;
  if (!MulPow10(mantissa_, exponent_, &value) ||
      value > std::numeric_limits<int64_t>::max() ||
      value < std::numeric_limits<int64_t>::min()) {
    return absl::OutOfRangeError(
        absl::StrCat("cannot convert value to integer: ", ToString(), " overflows int64"));
  }
  return static_cast<int64_t>(value);
}

double Quantity::AsApproximateDouble() const {
  const double base = static_cast<double>(mantissa_);
  if (exponent_ == 0 || mantissa_ == 0) return base;
  // Dividing by an exact power of ten is closer than multiplying by a rounded 10^-n.
  if (exponent_ > 0) return base * std::pow(10.0, exponent_);
  return base / std::pow(10.0, -static_cast<double>(exponent_));
}

absl::StatusOr<Quantity> Quantity::Add(const Quantity& other) const {
  Quantity result = *this;
  // Kubernetes: a zero receiver takes the other operand's format.
  if (mantissa_ == 0) result.format_ = other.format_;
  if (other.mantissa_ == 0) return result;
  if (mantissa_ == 0) {
    result.mantissa_ = other.mantissa_;
    result.exponent_ = other.exponent_;
    return result;
  }
  const int32_t exponent = std::min(exponent_, other.exponent_);
  absl::int128 a = 0;
  absl::int128 b = 0;
  absl::int128 sum = 0;
  if (!MulPow10(mantissa_, static_cast<int64_t>(exponent_) - exponent, &a) ||
      !MulPow10(other.mantissa_, static_cast<int64_t>(other.exponent_) - exponent, &b) ||
      !CheckedAdd(a, b, &sum)) {
    return absl::OutOfRangeError(absl::StrCat("quantity arithmetic out of the supported range: ",
                                              ToString(), " and ", other.ToString()));
  }
  result.mantissa_ = sum;
  result.exponent_ = exponent;
  if (sum == 0) {
    result.exponent_ = 0;
    return result;
  }
  while (result.mantissa_ % 10 == 0 && result.exponent_ < std::numeric_limits<int32_t>::max()) {
    result.mantissa_ /= 10;
    ++result.exponent_;
  }
  return result;
}

absl::StatusOr<Quantity> Quantity::Sub(const Quantity& other) const {
  Quantity negated = other;
  negated.mantissa_ = -other.mantissa_;
  return Add(negated);
}

std::string Quantity::ToString() const {
  if (mantissa_ == 0) return "0";
  const std::string sign = mantissa_ < 0 ? "-" : "";

  Format format = format_;
  absl::int128 integer = 0;
  if (format == Format::kBinarySI) {
    // Kubernetes prints |q| < 1024 and non-integers in DecimalSI rather than round them; values
    // too large for 128 bits also print as DecimalSI (Kubernetes has no suffix for them either).
    const bool small = Compare(FromInt(1024)) < 0 && Compare(FromInt(-1024)) > 0;
    if (small || !IsInteger() || !MulPow10(mantissa_, exponent_, &integer)) {
      format = Format::kDecimalSI;
    }
  }

  if (format == Format::kBinarySI) {
    absl::uint128 amount = Abs(integer);
    int power = 0;  // of 1024
    while (amount >= 1024 && amount % 1024 == 0) {
      amount /= 1024;
      ++power;
    }
    for (; power > 6; --power) amount *= 1024;  // nothing above Ei; fits, it was the input
    static constexpr const char* kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    return absl::StrCat(sign, ToDecimal(amount), kBinarySuffixes[power]);
  }

  // Decimal: move the exponent down to a multiple of three, as Kubernetes does.
  std::string digits = ToDecimal(Abs(mantissa_));
  int64_t exponent = exponent_;
  while (exponent % 3 != 0) {
    digits.push_back('0');
    --exponent;
  }
  if (format == Format::kDecimalSI) {
    static constexpr const char* kDecimalSuffixes[] = {"n", "u", "m", "", "k",
                                                       "M", "G", "T", "P", "E"};
    if (exponent >= -9 && exponent <= 18) {
      return absl::StrCat(sign, digits, kDecimalSuffixes[(exponent + 9) / 3]);
    }
    // Beyond "E": pad with zeros while that stays readable, else fall back to an exponent.
    if (exponent > 18 && exponent - 18 <= 18) {
      digits.append(static_cast<size_t>(exponent - 18), '0');
      return absl::StrCat(sign, digits, "E");
    }
  }
  if (exponent == 0) return absl::StrCat(sign, digits);
  return absl::StrCat(sign, digits, "e", exponent);
}

}  // namespace gpuprofile
