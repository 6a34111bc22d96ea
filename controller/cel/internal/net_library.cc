// File: controller/cel/internal/net_library.cc
// Kubernetes' IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go; in the
// environment from 1.30): ip(), isIP(), ip.isCanonical(), the IP predicates, cidr(), isCIDR(),
// containsIP/containsCIDR, ip(), masked(), prefixLength() and string() conversions.
//
// Addresses are parsed here, following Go's net/netip rules rather than inet_pton: IPv4 octets
// with leading zeros ("010.0.0.1") are rejected, IPv6 accepts a trailing embedded IPv4, and
// prefix lengths must have no sign or leading zero. On top of netip, Kubernetes rejects zones and
// IPv4-mapped IPv6 addresses. Error messages reproduce Go's, wrapping included.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/go_text.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr char kIpTypeName[] = "net.IP";
constexpr char kCidrTypeName[] = "net.CIDR";
constexpr int kNetIntroducedMinor = 30;
constexpr char kIpLibrary[] = "Kubernetes IP library";
constexpr char kCidrLibrary[] = "Kubernetes CIDR library";


struct Addr {
  bool is4 = false;
  std::array<uint8_t, 16> b{};  // IPv4 in b[0..3]

  int BitLen() const { return is4 ? 32 : 128; }
  uint16_t Word(int i) const { return static_cast<uint16_t>((b[2 * i] << 8) | b[2 * i + 1]); }
  bool Is4In6() const {
    if (is4) return false;
    for (int i = 0; i < 10; ++i) {
      if (b[i] != 0) return false;
    }
    return b[10] == 0xFF && b[11] == 0xFF;
  }
  friend bool operator==(const Addr& x, const Addr& y) { return x.is4 == y.is4 && x.b == y.b; }
};

// Go's Addr.String(): dotted quad, or RFC 5952 IPv6 (longest run of two or more zero groups
// becomes "::", the first one on ties; lower-case hex without leading zeros).
std::string AddrString(const Addr& a) {
  if (a.is4) return absl::StrFormat("%d.%d.%d.%d", a.b[0], a.b[1], a.b[2], a.b[3]);
  if (a.Is4In6()) return absl::StrFormat("::ffff:%d.%d.%d.%d", a.b[12], a.b[13], a.b[14], a.b[15]);
  int zero_start = -1, zero_len = 0;
  for (int i = 0; i < 8;) {
    if (a.Word(i) != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && a.Word(j) == 0) ++j;
    if (j - i >= 2 && j - i > zero_len) {
      zero_start = i;
      zero_len = j - i;
    }
    i = j;
  }
  std::string out;
  for (int i = 0; i < 8;) {
    if (i == zero_start) {
      out += "::";
      i += zero_len;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ":";
    absl::StrAppend(&out, absl::Hex(a.Word(i)));
    ++i;
  }
  return out;
}

struct ParseResult {
  Addr addr;
  std::string zone;
  std::string error;  // Go's error text when not empty
};

std::string AddrError(absl::string_view in, absl::string_view msg, absl::string_view at = "",
                      bool has_at = false) {
  std::string out = absl::StrCat("ParseAddr(", GoQuote(in), "): ", msg);
  if (has_at && !at.empty()) absl::StrAppend(&out, " (at ", GoQuote(at), ")");
  return out;
}

// netip's parseIPv4Fields over in[off:end].
std::string ParseIPv4Fields(absl::string_view in, size_t off, size_t end, uint8_t* fields) {
  absl::string_view s = in.substr(off, end - off);
  int val = 0, pos = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) return AddrError(in, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return AddrError(in, "IPv4 field has value >255");
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        return AddrError(in, "IPv4 field must have at least one digit", s.substr(i), true);
      }
      if (pos == 3) return AddrError(in, "IPv4 address too long");
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      return AddrError(in, "unexpected character", s.substr(i), true);
    }
  }
  if (pos < 3) return AddrError(in, "IPv4 address too short");
  fields[3] = static_cast<uint8_t>(val);
  return "";
}

ParseResult ParseIPv6(absl::string_view in) {
  ParseResult r;
  absl::string_view s = in;
  size_t pct = s.find('%');
  if (pct != absl::string_view::npos) {
    r.zone = std::string(s.substr(pct + 1));
    s = s.substr(0, pct);
    if (r.zone.empty()) {
      r.error = AddrError(in, "zone must be a non-empty string");
      return r;
    }
  }
  std::array<uint8_t, 16> ip{};
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) {
      r.addr.b = ip;
      return r;
    }
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const char c = s[off];
      if (c >= '0' && c <= '9') {
        acc = (acc << 4) + (c - '0');
      } else if (c >= 'a' && c <= 'f') {
        acc = (acc << 4) + (c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        acc = (acc << 4) + (c - 'A' + 10);
      } else {
        break;
      }
      if (off > 3) {
        r.error = AddrError(in, "each colon-separated field must have at most 4 hex digits", s,
                            true);
        return r;
      }
      if (acc > 0xFFFF) {
        r.error = AddrError(in, "IPv6 field has value >=2^16", s, true);
        return r;
      }
    }
    if (off == 0) {
      r.error = AddrError(in, "each colon-separated field must have at least one digit", s, true);
      return r;
    }
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12) {
        r.error = AddrError(in, "embedded IPv4 address must replace the final 2 fields of the address",
                            s, true);
        return r;
      }
      if (i + 4 > 16) {
        r.error = AddrError(
            in, "too many hex fields to fit an embedded IPv4 at the end of the address", s, true);
        return r;
      }
      size_t end = in.size();
      if (!r.zone.empty()) end -= r.zone.size() + 1;
      std::string err = ParseIPv4Fields(in, end - s.size(), end, &ip[i]);
      if (!err.empty()) {
        r.error = err;
        return r;
      }
      s = "";
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(acc >> 8);
    ip[i + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') {
      r.error = AddrError(in, "unexpected character, want colon", s, true);
      return r;
    }
    if (s.size() == 1) {
      r.error = AddrError(in, "colon must be followed by more characters", s, true);
      return r;
    }
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) {
        r.error = AddrError(in, "multiple :: in address", s, true);
        return r;
      }
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) {
    r.error = AddrError(in, "trailing garbage after address", s, true);
    return r;
  }
  if (i < 16) {
    if (ellipsis < 0) {
      r.error = AddrError(in, "address string too short");
      return r;
    }
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    for (int j = ellipsis; j < ellipsis + n; ++j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    r.error = AddrError(in, "the :: must expand to at least one field of zeros", s, true);
    return r;
  }
  r.addr.b = ip;
  return r;
}

// Go's netip.ParseAddr.
ParseResult ParseAddr(absl::string_view s) {
  for (char c : s) {
    if (c == '.') {
      ParseResult r;
      r.addr.is4 = true;
      r.error = ParseIPv4Fields(s, 0, s.size(), r.addr.b.data());
      return r;
    }
    if (c == ':') return ParseIPv6(s);
    if (c == '%') return ParseResult{{}, "", AddrError(s, "missing IPv6 address")};
  }
  return ParseResult{{}, "", AddrError(s, "unable to parse IP")};
}

// Kubernetes' parseIPAddr: netip plus the rejection of zones and IPv4-mapped addresses.
std::optional<Addr> ParseK8sIP(absl::string_view raw, std::string* error) {
  ParseResult r = ParseAddr(raw);
  if (!r.error.empty()) {
    *error = absl::StrCat("IP Address ", GoQuote(raw), " parse error during conversion from string: ",
                          r.error);
    return std::nullopt;
  }
  if (!r.zone.empty()) {
    *error = absl::StrCat("IP address ", GoQuote(raw), " with zone value is not allowed");
    return std::nullopt;
  }
  if (r.addr.Is4In6()) {
    *error = absl::StrCat("IPv4-mapped IPv6 address ", GoQuote(raw), " is not allowed");
    return std::nullopt;
  }
  return r.addr;
}

struct Prefix {
  Addr addr;  // not masked: cidr('192.168.0.1/24').ip() is 192.168.0.1
  int bits = 0;
  friend bool operator==(const Prefix& x, const Prefix& y) {
    return x.addr == y.addr && x.bits == y.bits;
  }
};

Addr MaskAddr(const Addr& a, int bits) {
  Addr m = a;
  const int len = a.BitLen() / 8;
  for (int i = 0; i < len; ++i) {
    const int keep = bits - 8 * i;
    if (keep >= 8) continue;
    m.b[i] = keep <= 0 ? 0 : static_cast<uint8_t>(m.b[i] & (0xFF << (8 - keep)));
  }
  return m;
}

std::string PrefixString(const Prefix& p) { return absl::StrCat(AddrString(p.addr), "/", p.bits); }

// Kubernetes' parseCIDR over Go's netip.ParsePrefix. Errors carry Kubernetes' own prefix once
// here; stringToCIDR adds it a second time, as the API server does.
std::optional<Prefix> ParseK8sCIDR(absl::string_view raw, std::string* error) {
  auto fail = [&](absl::string_view msg) {
    *error = absl::StrCat(
        "network address parse error during conversion from string: netip.ParsePrefix(",
        GoQuote(raw), "): ", msg);
    return std::nullopt;
  };
  size_t slash = raw.rfind('/');
  if (slash == absl::string_view::npos) return fail("no '/'");
  ParseResult r = ParseAddr(raw.substr(0, slash));
  if (!r.error.empty()) return fail(r.error);
  if (!r.addr.is4 && !r.zone.empty()) return fail("IPv6 zones cannot be present in a prefix");
  absl::string_view bits_text = raw.substr(slash + 1);
  const std::string bad_bits = absl::StrCat("bad bits after slash: ", GoQuote(bits_text));
  if (bits_text.empty() || (bits_text.size() > 1 && (bits_text[0] < '1' || bits_text[0] > '9'))) {
    return fail(bad_bits);
  }
  int bits = 0;
  for (char c : bits_text) {
    if (c < '0' || c > '9') return fail(bad_bits);
    bits = bits * 10 + (c - '0');
    if (bits > 1000) break;  // already out of range; avoid overflow
  }
  if (bits > r.addr.BitLen()) return fail("prefix length out of range");
  if (r.addr.Is4In6()) {
    *error = absl::StrCat("IPv4-mapped IPv6 address ", GoQuote(raw), " is not allowed");
    return std::nullopt;
  }
  return Prefix{r.addr, bits};
}

class IpValue final : public OpaqueValue {
 public:
  explicit IpValue(Addr addr) : addr_(addr) {}
  absl::string_view TypeName() const override { return kIpTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    if (other.TypeName() != kIpTypeName) return std::nullopt;
    return addr_ == static_cast<const IpValue&>(other).addr_;
  }
  std::string DebugString() const override {
    return absl::StrCat("ip(", GoQuote(AddrString(addr_)), ")");
  }
  const Addr& addr() const { return addr_; }

 private:
  Addr addr_;
};

class CidrValue final : public OpaqueValue {
 public:
  explicit CidrValue(Prefix prefix) : prefix_(prefix) {}
  absl::string_view TypeName() const override { return kCidrTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    if (other.TypeName() != kCidrTypeName) return std::nullopt;
    return prefix_ == static_cast<const CidrValue&>(other).prefix_;
  }
  std::string DebugString() const override {
    return absl::StrCat("cidr(", GoQuote(PrefixString(prefix_)), ")");
  }
  const Prefix& prefix() const { return prefix_; }

 private:
  Prefix prefix_;
};

const Addr& IpOf(const Value& v) { return static_cast<const IpValue&>(v.opaque_value()).addr(); }
const Prefix& CidrOf(const Value& v) {
  return static_cast<const CidrValue&>(v.opaque_value()).prefix();
}
bool IsIpValue(const Value& v) {
  return v.kind() == ValueKind::kOpaque && v.opaque_value().TypeName() == kIpTypeName;
}
bool IsCidrValue(const Value& v) {
  return v.kind() == ValueKind::kOpaque && v.opaque_value().TypeName() == kCidrTypeName;
}

Value MakeIp(Addr a) { return Value::Opaque(std::make_shared<IpValue>(a)); }
Value MakeCidr(Prefix p) { return Value::Opaque(std::make_shared<CidrValue>(p)); }

Value StringToIp(const Value& s) {
  std::string error;
  std::optional<Addr> a = ParseK8sIP(s.string_value(), &error);
  if (!a) return Value::Error(std::move(error));
  return MakeIp(*a);
}

Value StringToCidr(const Value& s) {
  std::string error;
  std::optional<Prefix> p = ParseK8sCIDR(s.string_value(), &error);
  if (!p) {
    return Value::Error(
        absl::StrCat("network address parse error during conversion from string: ", error));
  }
  return MakeCidr(*p);
}

// netip.Prefix.Contains: same family and equal leading bits.
bool PrefixContains(const Prefix& p, const Addr& a) {
  if (p.addr.is4 != a.is4) return false;
  return MaskAddr(p.addr, p.bits) == MaskAddr(a, p.bits);
}

// Kubernetes compares the masked receiver with the *unmasked* other address at the receiver's
// length, so `cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')` is false there; kept as is.
bool ContainsCidr(const Prefix& p, const Prefix& other) {
  Prefix masked{MaskAddr(p.addr, p.bits), p.bits};
  Prefix other_at_p{other.addr, p.bits};
  return masked == other_at_p && p.bits <= other.bits;
}

// netip predicates (IPv4-mapped addresses never reach them: Kubernetes rejects those).
bool IsUnspecified(const Addr& a) {
  for (int i = 0; i < a.BitLen() / 8; ++i) {
    if (a.b[i] != 0) return false;
  }
  return true;
}
bool IsLoopback(const Addr& a) {
  if (a.is4) return a.b[0] == 127;
  for (int i = 0; i < 15; ++i) {
    if (a.b[i] != 0) return false;
  }
  return a.b[15] == 1;
}
bool IsMulticast(const Addr& a) { return a.is4 ? (a.b[0] & 0xF0) == 0xE0 : a.b[0] == 0xFF; }
bool IsLinkLocalMulticast(const Addr& a) {
  if (a.is4) return a.b[0] == 224 && a.b[1] == 0 && a.b[2] == 0;
  return (a.Word(0) & 0xFF0F) == 0xFF02;
}
bool IsLinkLocalUnicast(const Addr& a) {
  if (a.is4) return a.b[0] == 169 && a.b[1] == 254;
  return (a.Word(0) & 0xFFC0) == 0xFE80;
}
bool IsGlobalUnicast(const Addr& a) {
  if (a.is4) {
    bool broadcast = a.b[0] == 255 && a.b[1] == 255 && a.b[2] == 255 && a.b[3] == 255;
    if (IsUnspecified(a) || broadcast) return false;
  } else if (IsUnspecified(a)) {
    return false;
  }
  return !IsLoopback(a) && !IsMulticast(a) && !IsLinkLocalUnicast(a);
}

void AddNetFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
         std::vector<Type> params, Type result, FunctionImpl impl, const char* library,
         bool member) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            member);
  o.gate = Gate{kNetIntroducedMinor, library};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterNetLibrary(FunctionRegistry& registry) {
  const Type ip = Type::Opaque(kIpTypeName);
  const Type cidr = Type::Opaque(kCidrTypeName);
  const Type s = Type::String();
  const Type b = Type::Bool();
  using Args = absl::Span<const Value>;

  // IP library.
  AddNetFunction(registry, "ip", "string_to_ip", {s}, ip, [](Args a) { return StringToIp(a[0]); },
      kIpLibrary, false);
  AddNetFunction(registry, "isIP", "is_ip", {s}, b, [](Args a) {
        std::string error;
        return Value::Bool(ParseK8sIP(a[0].string_value(), &error).has_value());
      }, kIpLibrary, false);
  AddNetFunction(registry, "ip.isCanonical", "ip_is_canonical", {s}, b, [](Args a) {
        std::string error;
        std::optional<Addr> addr = ParseK8sIP(a[0].string_value(), &error);
        if (!addr) return Value::Error(std::move(error));
        return Value::Bool(AddrString(*addr) == a[0].string_value());
      }, kIpLibrary, false);
  AddNetFunction(registry, "family", "ip_family", {ip}, Type::Int(), [](Args a) {
        return Value::Int(IpOf(a[0]).is4 ? 4 : 6);
      }, kIpLibrary, true);
  const std::pair<const char*, const char*> predicates[] = {
      {"isUnspecified", "ip_is_unspecified"},
      {"isLoopback", "ip_is_loopback"},
      {"isLinkLocalMulticast", "ip_is_link_local_multicast"},
      {"isLinkLocalUnicast", "ip_is_link_local_unicast"},
      {"isGlobalUnicast", "ip_is_global_unicast"}};
  bool (*const predicate_fns[])(const Addr&) = {IsUnspecified, IsLoopback, IsLinkLocalMulticast,
                                                IsLinkLocalUnicast, IsGlobalUnicast};
  for (size_t i = 0; i < 5; ++i) {
    auto fn = predicate_fns[i];
    AddNetFunction(registry, predicates[i].first, predicates[i].second, {ip}, b,
        [fn](Args a) { return Value::Bool(fn(IpOf(a[0]))); }, kIpLibrary, true);
  }
  AddNetFunction(registry, "string", "ip_to_string", {ip}, s, [](Args a) {
        return Value::String(AddrString(IpOf(a[0])));
      }, kIpLibrary, false);

  // CIDR library.
  AddNetFunction(
      registry, "cidr", "string_to_cidr", {s}, cidr, [](Args a) { return StringToCidr(a[0]); },
      kCidrLibrary, false);
  AddNetFunction(registry, "isCIDR", "is_cidr", {s}, b, [](Args a) {
        std::string error;
        return Value::Bool(ParseK8sCIDR(a[0].string_value(), &error).has_value());
      }, kCidrLibrary, false);
  AddNetFunction(registry, "containsIP", "cidr_contains_ip_string", {cidr, s}, b, [](Args a) {
        Value other = StringToIp(a[1]);
        // Kubernetes reports "no such overload" (not the parse error) for a bad address here.
        if (!IsIpValue(other)) return Value::NoSuchOverload("containsIP");
        return Value::Bool(PrefixContains(CidrOf(a[0]), IpOf(other)));
      }, kCidrLibrary, true);
  AddNetFunction(registry, "containsIP", "cidr_contains_ip_ip", {cidr, ip}, b, [](Args a) {
        return Value::Bool(PrefixContains(CidrOf(a[0]), IpOf(a[1])));
      }, kCidrLibrary, true);
  AddNetFunction(registry, "containsCIDR", "cidr_contains_cidr_string", {cidr, s}, b, [](Args a) {
        Value other = StringToCidr(a[1]);
        if (!IsCidrValue(other)) return other;  // the parse error
        return Value::Bool(ContainsCidr(CidrOf(a[0]), CidrOf(other)));
      }, kCidrLibrary, true);
  AddNetFunction(registry, "containsCIDR", "cidr_contains_cidr", {cidr, cidr}, b, [](Args a) {
        return Value::Bool(ContainsCidr(CidrOf(a[0]), CidrOf(a[1])));
      }, kCidrLibrary, true);
  AddNetFunction(
      registry, "ip", "cidr_ip", {cidr}, ip, [](Args a) { return MakeIp(CidrOf(a[0]).addr); },
      kCidrLibrary, true);
  AddNetFunction(registry, "prefixLength", "cidr_prefix_length", {cidr}, Type::Int(), [](Args a) {
        return Value::Int(CidrOf(a[0]).bits);
      }, kCidrLibrary, true);
  AddNetFunction(registry, "masked", "cidr_masked", {cidr}, cidr, [](Args a) {
        const Prefix& p = CidrOf(a[0]);
        return MakeCidr(Prefix{MaskAddr(p.addr, p.bits), p.bits});
      }, kCidrLibrary, true);
  AddNetFunction(registry, "string", "cidr_to_string", {cidr}, s, [](Args a) {
        return Value::String(PrefixString(CidrOf(a[0])));
      }, kCidrLibrary, false);
}

}  // namespace gpuprofile::cel::internal
