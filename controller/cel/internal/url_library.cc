// File: controller/cel/internal/url_library.cc
// Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go; base environment): url(),
// isURL() and the getScheme/getHost/getHostname/getPort/getEscapedPath/getQuery accessors of the
// opaque type kubernetes.URL.
//
// Validation is Go's url.ParseRequestURI (an absolute URI or an absolute path; no fragment
// splitting), then, as Kubernetes does, the accessors read the result of url.Parse, which splits
// off the fragment and parses "//host" authorities even without a scheme. Both parsers are
// reimplemented here from net/url's rules, with its error texts.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/go_text.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr char kUrlTypeName[] = "kubernetes.URL";
constexpr char kUrlLibrary[] = "Kubernetes URL library";


enum class Encoding { kPath, kPathSegment, kHost, kZone, kUserPassword, kQueryComponent, kFragment };

bool IsHex(char c) { return absl::ascii_isxdigit(static_cast<unsigned char>(c)); }
int Unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// net/url's shouldEscape.
bool ShouldEscape(char c, Encoding mode) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  if (mode == Encoding::kHost || mode == Encoding::kZone) {
    switch (c) {
      case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',':
      case ';': case '=': case ':': case '[': case ']': case '<': case '>': case '"':
        return false;
      default: break;
    }
  }
  switch (c) {
    case '-': case '_': case '.': case '~':
      return false;
    case '$': case '&': case '+': case ',': case '/': case ':': case ';': case '=': case '?':
    case '@':
      switch (mode) {
        case Encoding::kPath: return c == '?';
        case Encoding::kPathSegment: return c == '/' || c == ';' || c == ',' || c == '?';
        case Encoding::kUserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
        case Encoding::kQueryComponent: return true;
        case Encoding::kFragment: return false;
        default: break;
      }
      break;
    default: break;
  }
  if (mode == Encoding::kFragment) {
    switch (c) {
      case '!': case '(': case ')': case '*': return false;
      default: break;
    }
  }
  return true;
}

// net/url's unescape; returns nullopt and sets `error` on a malformed escape or host character.
std::optional<std::string> Unescape(absl::string_view s, Encoding mode, std::string* error) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        *error = absl::StrCat("invalid URL escape ", GoQuote(s.substr(i, 3)));
        return std::nullopt;
      }
      // Hosts may %-encode only non-ASCII bytes, and %25 (RFC 6874 zones).
      if (mode == Encoding::kHost && Unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        *error = absl::StrCat("invalid URL escape ", GoQuote(s.substr(i, 3)));
        return std::nullopt;
      }
      out.push_back(static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2])));
      i += 3;
      continue;
    }
    if ((mode == Encoding::kHost || mode == Encoding::kZone) &&
        static_cast<unsigned char>(c) < 0x80 && ShouldEscape(c, mode)) {
      *error = absl::StrCat("invalid character ", GoQuote(s.substr(i, 1)), " in host name");
      return std::nullopt;
    }
    out.push_back(c == '+' && mode == Encoding::kQueryComponent ? ' ' : c);
    ++i;
  }
  return out;
}

std::string Escape(absl::string_view s, Encoding mode) {
  std::string out;
  for (char c : s) {
    if (ShouldEscape(c, mode)) {
      if (c == ' ' && mode == Encoding::kQueryComponent) {
        out.push_back('+');
      } else {
        absl::StrAppend(&out, "%", absl::AsciiStrToUpper(absl::StrFormat("%02x",
                                                                           static_cast<unsigned char>(c))));
      }
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool ValidOptionalPort(absl::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

struct Url {
  std::string scheme;
  std::string opaque;
  std::string host;
  std::string path;
  std::string raw_path;
  std::string raw_query;
  std::string fragment;
};

std::optional<std::string> ParseHost(absl::string_view host, std::string* error) {
  if (!host.empty() && host[0] == '[') {
    size_t close = host.rfind(']');
    if (close == absl::string_view::npos) {
      *error = "missing ']' in host";
      return std::nullopt;
    }
    absl::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      *error = absl::StrCat("invalid port ", GoQuote(colon_port), " after host");
      return std::nullopt;
    }
    size_t zone = host.substr(0, close).find("%25");
    if (zone != absl::string_view::npos) {
      auto h1 = Unescape(host.substr(0, zone), Encoding::kHost, error);
      if (!h1) return std::nullopt;
      auto h2 = Unescape(host.substr(zone, close - zone), Encoding::kZone, error);
      if (!h2) return std::nullopt;
      auto h3 = Unescape(host.substr(close), Encoding::kHost, error);
      if (!h3) return std::nullopt;
      return absl::StrCat(*h1, *h2, *h3);
    }
  } else if (size_t colon = host.rfind(':'); colon != absl::string_view::npos) {
    absl::string_view colon_port = host.substr(colon);
    if (!ValidOptionalPort(colon_port)) {
      *error = absl::StrCat("invalid port ", GoQuote(colon_port), " after host");
      return std::nullopt;
    }
  }
  return Unescape(host, Encoding::kHost, error);
}

bool ValidUserinfo(absl::string_view s) {
  for (char c : s) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) continue;
    switch (c) {
      case '-': case '.': case '_': case ':': case '~': case '!': case '$': case '&': case '\'':
      case '(': case ')': case '*': case '+': case ',': case ';': case '=': case '%': case '@':
        continue;
      default:
        return false;  // non-ASCII included, as in Go

    }
  }
  return true;
}

// net/url's parse(rawURL, viaRequest).
std::optional<Url> Parse(absl::string_view raw, bool via_request, std::string* error) {
  for (char c : raw) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) {
      *error = "net/url: invalid control character in URL";
      return std::nullopt;
    }
  }
  if (raw.empty() && via_request) {
    *error = "empty url";
    return std::nullopt;
  }
  Url url;
  if (raw == "*") {
    url.path = "*";
    return url;
  }
  // Scheme.
  absl::string_view rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (absl::ascii_isalpha(static_cast<unsigned char>(c))) continue;
    if (absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        *error = "missing protocol scheme";
        return std::nullopt;
      }
      url.scheme = absl::AsciiStrToLower(raw.substr(0, i));
      rest = raw.substr(i + 1);
    }
    break;
  }
  // Query.
  const size_t question_marks = std::count(rest.begin(), rest.end(), '?');
  if (!rest.empty() && rest.back() == '?' && question_marks == 1) {
    rest.remove_suffix(1);  // ForceQuery: an empty query
  } else if (size_t q = rest.find('?'); q != absl::string_view::npos) {
    url.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (rest.empty() || rest[0] != '/') {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);  // rootless paths are opaque (RFC 3986)
      return url;
    }
    if (via_request) {
      *error = "invalid URI for request";
      return std::nullopt;
    }
    absl::string_view segment = rest.substr(0, rest.find('/'));
    if (segment.find(':') != absl::string_view::npos) {
      *error = "first path segment in URL cannot contain colon";
      return std::nullopt;
    }
  }
  const bool starts_with_2 = rest.size() >= 2 && rest[0] == '/' && rest[1] == '/';
  const bool starts_with_3 = starts_with_2 && rest.size() >= 3 && rest[2] == '/';
  if ((!url.scheme.empty() || (!via_request && !starts_with_3)) && starts_with_2) {
    absl::string_view authority = rest.substr(2);
    rest = "";
    if (size_t slash = authority.find('/'); slash != absl::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    size_t at = authority.rfind('@');
    absl::string_view host_part = at == absl::string_view::npos ? authority : authority.substr(at + 1);
    std::optional<std::string> host = ParseHost(host_part, error);
    if (!host) return std::nullopt;
    if (at != absl::string_view::npos) {
      absl::string_view userinfo = authority.substr(0, at);
      if (!ValidUserinfo(userinfo)) {
        *error = "net/url: invalid userinfo";
        return std::nullopt;
      }
      size_t colon = userinfo.find(':');
      if (!Unescape(userinfo.substr(0, colon), Encoding::kUserPassword, error)) return std::nullopt;
      if (colon != absl::string_view::npos &&
          !Unescape(userinfo.substr(colon + 1), Encoding::kUserPassword, error)) {
        return std::nullopt;
      }
    }
    url.host = std::move(*host);
  }
  std::optional<std::string> path = Unescape(rest, Encoding::kPath, error);
  if (!path) return std::nullopt;
  url.path = std::move(*path);
  if (Escape(url.path, Encoding::kPath) != rest) url.raw_path = std::string(rest);
  return url;
}

// What url.ParseRequestURI reports: `parse "<url>": <reason>`.
std::optional<std::string> UrlRequestUriError(absl::string_view raw) {
  std::string error;
  if (Parse(raw, /*via_request=*/true, &error)) return std::nullopt;
  return absl::StrCat("parse ", GoQuote(raw), ": ", error);
}

bool ValidEncodedPath(absl::string_view s) {
  for (char c : s) {
    switch (c) {
      case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',':
      case ';': case '=': case ':': case '@': case '[': case ']': case '%':
        continue;
      default:
        if (ShouldEscape(c, Encoding::kPath)) return false;
    }
  }
  return true;
}

std::string EscapedPath(const Url& u) {
  if (!u.raw_path.empty() && ValidEncodedPath(u.raw_path)) {
    std::string error;
    std::optional<std::string> p = Unescape(u.raw_path, Encoding::kPath, &error);
    if (p && *p == u.path) return u.raw_path;
  }
  if (u.path == "*") return "*";
  return Escape(u.path, Encoding::kPath);
}

// url.splitHostPort as used by Hostname() and Port().
std::pair<std::string, std::string> SplitHostPort(absl::string_view host_port) {
  absl::string_view host = host_port;
  absl::string_view port;
  size_t colon = host.rfind(':');
  if (colon != absl::string_view::npos && ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {std::string(host), std::string(port)};
}

class UrlValue final : public OpaqueValue {
 public:
  UrlValue(std::string text, Url url) : text_(std::move(text)), url_(std::move(url)) {}
  absl::string_view TypeName() const override { return kUrlTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    if (other.TypeName() != kUrlTypeName) return std::nullopt;
    const Url& o = static_cast<const UrlValue&>(other).url_;
    return url_.scheme == o.scheme && url_.opaque == o.opaque && url_.host == o.host &&
           EscapedPath(url_) == EscapedPath(o) && url_.raw_query == o.raw_query &&
           url_.fragment == o.fragment;
  }
  std::string DebugString() const override { return absl::StrCat("url(", GoQuote(text_), ")"); }
  const Url& url() const { return url_; }

 private:
  std::string text_;
  Url url_;
};

const Url& UrlOf(const Value& v) { return static_cast<const UrlValue&>(v.opaque_value()).url(); }

Value StringToUrl(const Value& arg) {
  absl::string_view raw = arg.string_value();
  if (std::optional<std::string> e = UrlRequestUriError(raw)) {
    return Value::Error(absl::StrCat("URL parse error during conversion from string: ", *e));
  }
  // url.Parse: split off the fragment first, then parse leniently.
  size_t hash = raw.find('#');
  absl::string_view without_fragment = raw.substr(0, hash);
  std::string error;
  std::optional<Url> url = Parse(without_fragment, /*via_request=*/false, &error);
  if (url && hash != absl::string_view::npos) {
    std::optional<std::string> frag = Unescape(raw.substr(hash + 1), Encoding::kFragment, &error);
    if (!frag) url.reset();
    else url->fragment = std::move(*frag);
  }
  if (!url) {
    return Value::Error(absl::StrCat("URL parse error during conversion from string: parse ",
                                     GoQuote(raw), ": ", error));
  }
  return Value::Opaque(std::make_shared<UrlValue>(std::string(raw), std::move(*url)));
}

// url.Values from ParseQuery, in order of first appearance; malformed pairs are dropped.
Value Query(const Url& u) {
  std::vector<std::pair<std::string, std::vector<Value>>> entries;
  absl::string_view query = u.raw_query;
  while (!query.empty()) {
    size_t amp = query.find('&');
    absl::string_view pair = query.substr(0, amp);
    query = amp == absl::string_view::npos ? "" : query.substr(amp + 1);
    if (pair.find(';') != absl::string_view::npos || pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string error;
    auto key = Unescape(pair.substr(0, eq), Encoding::kQueryComponent, &error);
    if (!key) continue;
    auto value = eq == absl::string_view::npos
                     ? std::optional<std::string>("")
                     : Unescape(pair.substr(eq + 1), Encoding::kQueryComponent, &error);
    if (!value) continue;
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const auto& e) { return e.first == *key; });
    if (it == entries.end()) {
      entries.emplace_back(std::move(*key), std::vector<Value>{});
      it = entries.end() - 1;
    }
    it->second.push_back(Value::String(std::move(*value)));
  }
  auto map = std::make_shared<HashMapValue>();
  for (auto& [key, values] : entries) {
    map->Insert(Value::String(key), Value::List(std::move(values)));
  }
  return Value::Map(std::move(map));
}

void AddUrlFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
         std::vector<Type> params, Type result, FunctionImpl impl, bool member) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            member);
  o.gate = Gate{0, kUrlLibrary};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterUrlLibrary(FunctionRegistry& registry) {
  const Type url = Type::Opaque(kUrlTypeName);
  const Type s = Type::String();
  using Args = absl::Span<const Value>;
  AddUrlFunction(
      registry, "url", "string_to_url", {s}, url, [](Args a) { return StringToUrl(a[0]); }, false);
  AddUrlFunction(registry, "isURL", "is_url_string", {s}, Type::Bool(), [](Args a) {
        return Value::Bool(!UrlRequestUriError(a[0].string_value()).has_value());
      }, false);
  AddUrlFunction(registry, "getScheme", "url_get_scheme", {url}, s,
      [](Args a) { return Value::String(UrlOf(a[0]).scheme); }, true);
  AddUrlFunction(registry, "getHost", "url_get_host", {url}, s,
      [](Args a) { return Value::String(UrlOf(a[0]).host); }, true);
  AddUrlFunction(registry, "getHostname", "url_get_hostname", {url}, s,
      [](Args a) { return Value::String(SplitHostPort(UrlOf(a[0]).host).first); }, true);
  AddUrlFunction(registry, "getPort", "url_get_port", {url}, s,
      [](Args a) { return Value::String(SplitHostPort(UrlOf(a[0]).host).second); }, true);
  AddUrlFunction(registry, "getEscapedPath", "url_get_escaped_path", {url}, s,
      [](Args a) { return Value::String(EscapedPath(UrlOf(a[0]))); }, true);
  AddUrlFunction(registry, "getQuery", "url_get_query", {url}, Type::Map(s, Type::List(s)),
      [](Args a) { return Query(UrlOf(a[0])); }, true);
}

}  // namespace gpuprofile::cel::internal
