// File: test/cel/standard_conversions_test.cc
// The standard library's conversion functions: int(), uint(), double(), string(), bytes(),
// bool(), duration(), timestamp(), with Go's parsing and formatting rules.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/cel/internal/time_format.h"
#include "controller/cel/value.h"
#include "gtest/gtest.h"
#include "test/cel/standard_library_test_util.h"

namespace gpuprofile::cel::internal {
namespace standard_conversions_test {
namespace {

using testing::Call;
using testing::RunCases;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Value I(int64_t v) { return Value::Int(v); }
Value U(uint64_t v) { return Value::Uint(v); }
Value D(double v) { return Value::Double(v); }
Value S(std::string v) { return Value::String(std::move(v)); }
Value B(bool v) { return Value::Bool(v); }
Value E(std::string m) { return Value::Error(std::move(m)); }
Value Ts(int64_t unix_seconds, int64_t nanos = 0) {
  return Value::Timestamp(absl::FromUnixSeconds(unix_seconds) + absl::Nanoseconds(nanos));
}
Value Dur(absl::Duration d) { return Value::Duration(d); }

TEST(StandardConversionsTest, ToInt) {
  const Value bad_string = E("type conversion error from 'string' to 'int'");
  RunCases({
      {"int", "int64_to_int64", {I(-3)}, I(-3)},
      {"int", "uint64_to_int64", {U(kMax)}, I(kMax)},
      {"int", "uint64_to_int64", {U(uint64_t{1} << 63)}, E("integer overflow")},
      {"int", "double_to_int64", {D(-1.9)}, I(-1)},
      {"int", "double_to_int64", {D(2.999)}, I(2)},
      {"int", "double_to_int64", {D(9223372036854775807.0)}, E("integer overflow")},
      {"int", "double_to_int64", {D(-9223372036854775808.0)}, E("integer overflow")},
      {"int", "double_to_int64", {D(-9223372036854774784.0)}, I(-9223372036854774784)},
      {"int", "double_to_int64", {D(kNaN)}, E("integer overflow")},
      {"int", "double_to_int64", {D(kInf)}, E("integer overflow")},
      {"int", "double_to_int64", {D(-kInf)}, E("integer overflow")},
      {"int", "string_to_int64", {S("-42")}, I(-42)},
      {"int", "string_to_int64", {S("+7")}, I(7)},
      {"int", "string_to_int64", {S("9223372036854775807")}, I(kMax)},
      {"int", "string_to_int64", {S("-9223372036854775808")}, I(kMin)},
      {"int", "string_to_int64", {S("9223372036854775808")}, bad_string},
      {"int", "string_to_int64", {S("1.0")}, bad_string},
      {"int", "string_to_int64", {S("0x10")}, bad_string},
      {"int", "string_to_int64", {S("1_000")}, bad_string},
      {"int", "string_to_int64", {S(" 1")}, bad_string},
      {"int", "string_to_int64", {S("")}, bad_string},
      {"int", "string_to_int64", {S("-")}, bad_string},
      {"int", "timestamp_to_int64", {Ts(1234567890, 999)}, I(1234567890)},
      {"int", "timestamp_to_int64", {Ts(-1, 500000000)}, I(-1)},
      {"int", "duration_to_int64", {Dur(absl::Seconds(2))}, I(2000000000)},
  });
}

TEST(StandardConversionsTest, ToUint) {
  const Value bad_string = E("type conversion error from 'string' to 'uint'");
  RunCases({
      {"uint", "uint64_to_uint64", {U(5)}, U(5)},
      {"uint", "int64_to_uint64", {I(kMax)}, U(kMax)},
      {"uint", "int64_to_uint64", {I(-1)}, E("unsigned integer overflow")},
      {"uint", "double_to_uint64", {D(3.7)}, U(3)},
      {"uint", "double_to_uint64", {D(-0.5)}, E("unsigned integer overflow")},
      {"uint", "double_to_uint64", {D(18446744073709551616.0)}, E("unsigned integer overflow")},
      {"uint", "double_to_uint64", {D(kNaN)}, E("unsigned integer overflow")},
      {"uint", "string_to_uint64", {S("18446744073709551615")}, U(kUMax)},
      {"uint", "string_to_uint64", {S("18446744073709551616")}, bad_string},
      {"uint", "string_to_uint64", {S("+1")}, bad_string},
      {"uint", "string_to_uint64", {S("-1")}, bad_string},
      {"uint", "string_to_uint64", {S("1u")}, bad_string},
  });
}

TEST(StandardConversionsTest, ToDouble) {
  const Value bad_string = E("type conversion error from 'string' to 'double'");
  RunCases({
      {"double", "double_to_double", {D(1.5)}, D(1.5)},
      {"double", "int64_to_double", {I(kMin)}, D(-9223372036854775808.0)},
      {"double", "uint64_to_double", {U(kUMax)}, D(18446744073709551616.0)},
      {"double", "string_to_double", {S("1.5")}, D(1.5)},
      {"double", "string_to_double", {S("-1e3")}, D(-1000)},
      {"double", "string_to_double", {S(".5")}, D(0.5)},
      {"double", "string_to_double", {S("5.")}, D(5)},
      {"double", "string_to_double", {S("1_000.5")}, D(1000.5)},
      {"double", "string_to_double", {S("0x1p-2")}, D(0.25)},
      {"double", "string_to_double", {S("Inf")}, D(kInf)},
      {"double", "string_to_double", {S("-infinity")}, D(-kInf)},
      {"double", "string_to_double", {S("NaN")}, D(kNaN)},
      {"double", "string_to_double", {S("1e-400")}, D(0)},
      {"double", "string_to_double", {S("1e400")}, bad_string},
      {"double", "string_to_double", {S("+nan")}, bad_string},
      {"double", "string_to_double", {S("0x10")}, bad_string},
      {"double", "string_to_double", {S("1e")}, bad_string},
      {"double", "string_to_double", {S("_1")}, bad_string},
      {"double", "string_to_double", {S("1__0")}, bad_string},
      {"double", "string_to_double", {S(" 1")}, bad_string},
      {"double", "string_to_double", {S("")}, bad_string},
      {"double", "string_to_double", {S(".")}, bad_string},
      {"double", "string_to_double", {S("nan(1)")}, bad_string},
  });
}

TEST(StandardConversionsTest, ToString) {
  RunCases({
      {"string", "string_to_string", {S("x")}, S("x")},
      {"string", "bool_to_string", {B(true)}, S("true")},
      {"string", "int64_to_string", {I(kMin)}, S("-9223372036854775808")},
      {"string", "uint64_to_string", {U(kUMax)}, S("18446744073709551615")},
      {"string", "bytes_to_string", {Value::Bytes("h\xc3\xa9")}, S("h\xc3\xa9")},
      {"string", "bytes_to_string", {Value::Bytes("\xff")},
       E("invalid UTF-8 in bytes, cannot convert to string")},
      {"string", "bytes_to_string", {Value::Bytes("\xed\xa0\x80")},  // a surrogate
       E("invalid UTF-8 in bytes, cannot convert to string")},
      {"string", "bytes_to_string", {Value::Bytes("\xc0\x80")},  // overlong
       E("invalid UTF-8 in bytes, cannot convert to string")},
      {"string", "timestamp_to_string", {Ts(1234567890, 500000000)},
       S("2009-02-13T23:31:30.5Z")},
      {"string", "duration_to_string", {Dur(absl::Milliseconds(1500))}, S("1.5s")},
      {"string", "duration_to_string", {Dur(absl::Minutes(-2))}, S("-120s")},
  });
}

TEST(StandardConversionsTest, DoubleToStringFormatsAsGo) {
  struct Row {
    double in;
    const char* want;
  };
  for (const Row& r : std::vector<Row>{
           {0, "0"},
           {-0.0, "-0"},
           {1, "1"},
           {1.5, "1.5"},
           {-2.25, "-2.25"},
           {0.1, "0.1"},
           {123456, "123456"},
           {1e6, "1e+06"},
           {1234567, "1.234567e+06"},
           {0.0001, "0.0001"},
           {0.00001, "1e-05"},
           {1.0 / 3, "0.3333333333333333"},
           {1e21, "1e+21"},
           {1e100, "1e+100"},
           {5e-324, "5e-324"},
           {1.7976931348623157e308, "1.7976931348623157e+308"},
           {kInf, "+Inf"},
           {-kInf, "-Inf"},
           {kNaN, "NaN"},
       }) {
    Value v = Call("string", "double_to_string", {D(r.in)});
    ASSERT_EQ(v.kind(), ValueKind::kString) << r.want;
    EXPECT_EQ(v.string_value(), r.want);
  }
}

TEST(StandardConversionsTest, ToBytesAndBool) {
  const Value bad_bool = E("type conversion error from 'string' to 'bool'");
  RunCases({
      {"bytes", "bytes_to_bytes", {Value::Bytes("\x00\xff")}, Value::Bytes("\x00\xff")},
      {"bytes", "string_to_bytes", {S("h\xc3\xa9")}, Value::Bytes("h\xc3\xa9")},
      {"bool", "bool_to_bool", {B(false)}, B(false)},
      {"bool", "string_to_bool", {S("true")}, B(true)},
      {"bool", "string_to_bool", {S("TRUE")}, B(true)},
      {"bool", "string_to_bool", {S("True")}, B(true)},
      {"bool", "string_to_bool", {S("t")}, B(true)},
      {"bool", "string_to_bool", {S("1")}, B(true)},
      {"bool", "string_to_bool", {S("F")}, B(false)},
      {"bool", "string_to_bool", {S("0")}, B(false)},
      {"bool", "string_to_bool", {S("False")}, B(false)},
      {"bool", "string_to_bool", {S("tRuE")}, bad_bool},
      {"bool", "string_to_bool", {S("yes")}, bad_bool},
      {"bool", "string_to_bool", {S("")}, bad_bool},
  });
}

TEST(StandardConversionsTest, ToDuration) {
  const Value bad = E("type conversion error from 'string' to 'google.protobuf.Duration'");
  RunCases({
      {"duration", "duration_to_duration", {Dur(absl::Seconds(1))}, Dur(absl::Seconds(1))},
      {"duration", "int64_to_duration", {I(1500)}, Dur(absl::Nanoseconds(1500))},
      {"duration", "string_to_duration", {S("1h2m3.5s")},
       Dur(absl::Hours(1) + absl::Minutes(2) + absl::Milliseconds(3500))},
      {"duration", "string_to_duration", {S("-1.5h")}, Dur(-absl::Minutes(90))},
      {"duration", "string_to_duration", {S("1d")}, bad},
      {"duration", "string_to_duration", {S("10")}, bad},
      {"duration", "string_to_duration", {S("100000000h")}, bad},
  });
}

TEST(StandardConversionsTest, ToTimestamp) {
  const Value bad = E("type conversion error from 'string' to 'google.protobuf.Timestamp'");
  RunCases({
      {"timestamp", "timestamp_to_timestamp", {Ts(5)}, Ts(5)},
      {"timestamp", "int64_to_timestamp", {I(1234567890)}, Ts(1234567890)},
      {"timestamp", "int64_to_timestamp", {I(kMinTimestampSeconds)}, Ts(kMinTimestampSeconds)},
      {"timestamp", "int64_to_timestamp", {I(kMaxTimestampSeconds + 1)}, E("timestamp overflow")},
      {"timestamp", "int64_to_timestamp", {I(kMin)}, E("timestamp overflow")},
      {"timestamp", "string_to_timestamp", {S("2009-02-13T23:31:30Z")}, Ts(1234567890)},
      {"timestamp", "string_to_timestamp", {S("2009-02-13T23:31:30.000000001-00:00")},
       Ts(1234567890, 1)},
      {"timestamp", "string_to_timestamp", {S("9999-12-31T23:59:59.999999999Z")},
       Ts(kMaxTimestampSeconds, 999999999)},
      {"timestamp", "string_to_timestamp", {S("0001-01-01T00:00:00+01:00")},
       E("timestamp overflow")},
      {"timestamp", "string_to_timestamp", {S("2009-02-13")}, bad},
      {"timestamp", "string_to_timestamp", {S("not a time")}, bad},
  });
}

}  // namespace
}  // namespace standard_conversions_test
}  // namespace gpuprofile::cel::internal
