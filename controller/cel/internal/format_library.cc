// File: controller/cel/internal/format_library.cc
// Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go; environment 1.31):
// format.named(name) -> optional(kubernetes.NamedFormat), one zero-argument constant per format
// (`format.dns1123Label()` ...), and `<format>.validate(s)`, which is optional.none() for a valid
// string and otherwise the list of Kubernetes' own validation messages.
//
// The DNS and label checks are k8s.io/apimachinery's util/validation (controller/core/names.h:
// messages, regexes quoted in them, length limits), plus the "prefix" variants' trailing-dash
// masking. The CRD
// formats follow kube-openapi's strfmt; `uri` reuses the URL library's ParseRequestURI.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"
#include "controller/core/names.h"
#include "re2/re2.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr char kFormatTypeName[] = "kubernetes.NamedFormat";
constexpr int kFormatIntroducedMinor = 31;
constexpr char kFormatLibrary[] = "Kubernetes format library";

using Messages = std::vector<std::string>;

// ---- k8s.io/apimachinery/pkg/util/validation (controller/core/names.h) ----

bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// apimachinery's maskTrailingDash: note it drops two characters before appending "a", exactly as
// Kubernetes does ("abc-" is checked as "aba").
std::string MaskTrailingDash(absl::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return absl::StrCat(name.substr(0, name.size() - 2), "a");
  }
  return std::string(name);
}

// ---- kube-openapi strfmt ----

bool IsUuid(absl::string_view s) {
  static const auto* re =
      new RE2("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
  return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), *re);
}

// Go's base64.StdEncoding.DecodeString: padded standard alphabet; '\r' and '\n' are ignored.
bool IsBase64(absl::string_view s) {
  std::string clean;
  for (char c : s) {
    if (c != '\r' && c != '\n') clean.push_back(c);
  }
  if (clean.size() % 4 != 0) return false;
  size_t pad = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    const char c = clean[i];
    if (c == '=') {
      // Padding only in the last two positions of the final quantum.
      if (i + 2 < clean.size()) return false;
      ++pad;
      continue;
    }
    if (pad > 0) return false;
    if (!IsAlnum(c) && c != '+' && c != '/') return false;
  }
  return pad <= 2;
}

// Go's time.Parse("2006-01-02", s).
bool IsDate(absl::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  int year = 0, month = 0, day = 0;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  month = (s[5] - '0') * 10 + (s[6] - '0');
  day = (s[8] - '0') * 10 + (s[9] - '0');
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int max_day = month == 2 && leap ? 29 : kDays[month - 1];
  return day <= max_day;
}

// strfmt.IsDateTime: a date, a 't' (case-insensitive), then the RFC 3339 time; like strfmt,
// only the text between the first and second 't' is checked against the time pattern.
bool IsDateTime(absl::string_view str) {
  if (str.size() < 4) return false;
  std::string lower = absl::AsciiStrToLower(str);
  std::vector<absl::string_view> parts = absl::StrSplit(lower, 't');
  if (parts.size() < 2 || !IsDate(parts[0])) return false;
  static const auto* re =
      new RE2("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  std::string hh, mm, ss;
  if (!RE2::PartialMatch(re2::StringPiece(parts[1].data(), parts[1].size()), *re, &hh, &mm, &ss)) {
    return false;
  }
  return hh <= "23" && mm <= "59" && ss <= "59";
}

// Go's url.ParseRequestURI error text, taken from the URL library's url() so both agree.
std::optional<std::string> FormatRequestUriError(absl::string_view s) {
  static const FunctionRegistry* urls = [] {
    auto* r = new FunctionRegistry();
    RegisterUrlLibrary(*r);
    return r;
  }();
  const std::vector<Overload>* overloads = urls->Find("url");
  if (overloads == nullptr || overloads->empty()) return "URL library unavailable";
  Value v = overloads->front().impl({Value::String(std::string(s))});
  if (!v.is_error()) return std::nullopt;
  constexpr absl::string_view kPrefix = "URL parse error during conversion from string: ";
  absl::string_view msg = v.error_message();
  if (msg.substr(0, kPrefix.size()) == kPrefix) msg.remove_prefix(kPrefix.size());
  return std::string(msg);
}

// ---- The named formats ----

struct NamedFormat {
  const char* key;   // format.<key>() and format.named('<key>')
  const char* name;  // Kubernetes' Format.Name
  std::function<Messages(absl::string_view)> validate;
};

const std::vector<NamedFormat>& Formats() {
  static const auto* formats = new std::vector<NamedFormat>{
      {"dns1123Label", "DNS1123Label", [](absl::string_view s) { return DnsLabelErrors(s); }},
      {"dns1123Subdomain", "DNS1123Subdomain",
       [](absl::string_view s) { return DnsSubdomainErrors(s); }},
      {"dns1035Label", "DNS1035Label", [](absl::string_view s) { return Dns1035LabelErrors(s); }},
      {"qualifiedName", "QualifiedName",
       [](absl::string_view s) { return QualifiedNameErrors(s); }},
      {"dns1123LabelPrefix", "DNS1123LabelPrefix",
       [](absl::string_view s) { return DnsLabelErrors(MaskTrailingDash(s)); }},
      {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix",
       [](absl::string_view s) { return DnsSubdomainErrors(MaskTrailingDash(s)); }},
      {"dns1035LabelPrefix", "DNS1035LabelPrefix",
       [](absl::string_view s) { return Dns1035LabelErrors(MaskTrailingDash(s)); }},
      {"labelValue", "LabelValue", [](absl::string_view s) { return LabelValueErrors(s); }},
      {"uri", "URI",
       [](absl::string_view s) {
         std::optional<std::string> e = FormatRequestUriError(s);
         return e ? Messages{*e} : Messages{};
       }},
      {"uuid", "uuid",
       [](absl::string_view s) {
         return IsUuid(s) ? Messages{} : Messages{"does not match the UUID format"};
       }},
      {"byte", "byte",
       [](absl::string_view s) { return IsBase64(s) ? Messages{} : Messages{"invalid base64"}; }},
      {"date", "date",
       [](absl::string_view s) { return IsDate(s) ? Messages{} : Messages{"invalid date"}; }},
      {"datetime", "datetime",
       [](absl::string_view s) {
         return IsDateTime(s) ? Messages{} : Messages{"invalid datetime"};
       }},
  };
  return *formats;
}

class FormatValue final : public OpaqueValue {
 public:
  explicit FormatValue(const NamedFormat* format) : format_(format) {}
  absl::string_view TypeName() const override { return kFormatTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    if (other.TypeName() != kFormatTypeName) return std::nullopt;
    return absl::string_view(format_->name) == static_cast<const FormatValue&>(other).format_->name;
  }
  std::string DebugString() const override { return absl::StrCat("format.", format_->key, "()"); }
  const NamedFormat& format() const { return *format_; }

 private:
  const NamedFormat* format_;  // points into Formats(), which lives for the process
};

Value MakeFormat(const NamedFormat& f) { return Value::Opaque(std::make_shared<FormatValue>(&f)); }

Value Validate(absl::Span<const Value> args) {
  const auto& f = static_cast<const FormatValue&>(args[0].opaque_value()).format();
  Messages messages = f.validate(args[1].string_value());
  if (messages.empty()) return Value::OptionalNone();
  std::vector<Value> list;
  list.reserve(messages.size());
  for (std::string& m : messages) list.push_back(Value::String(std::move(m)));
  return Value::OptionalOf(Value::List(std::move(list)));
}

Value Named(absl::Span<const Value> args) {
  for (const NamedFormat& f : Formats()) {
    if (args[0].string_value() == f.key) return Value::OptionalOf(MakeFormat(f));
  }
  return Value::OptionalNone();
}

void AddFormatFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
         std::vector<Type> params, Type result, FunctionImpl impl, bool member) {
  Overload o =
      MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl), member);
  o.gate = Gate{kFormatIntroducedMinor, kFormatLibrary};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterFormatLibrary(FunctionRegistry& registry) {
  const Type format = Type::Opaque(kFormatTypeName);
  AddFormatFunction(registry, "validate", "format-validate", {format, Type::String()},
      Type::Optional(Type::List(Type::String())), Validate, /*member=*/true);
  AddFormatFunction(registry, "format.named", "format-named", {Type::String()},
                    Type::Optional(format), Named,
                    /*member=*/false);
  for (const NamedFormat& f : Formats()) {
    const std::string name = absl::StrCat("format.", f.key);
    const NamedFormat* ptr = &f;
    AddFormatFunction(
        registry, name, name, {}, format,
        [ptr](absl::Span<const Value>) { return MakeFormat(*ptr); }, /*member=*/false);
  }
}

}  // namespace gpuprofile::cel::internal
