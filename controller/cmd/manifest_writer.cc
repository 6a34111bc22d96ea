// File: controller/cmd/manifest_writer.cc
#include "controller/cmd/manifest_writer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gpuprofile::cmd {
namespace {

using Json = nlohmann::ordered_json;

std::string Scalar(const Json& value) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (IsPlainYamlSafe(s)) return s;
    // A JSON string is a valid YAML double-quoted scalar.
    return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool IsEmptyCollection(const Json& value) {
  return (value.is_object() || value.is_array()) && value.empty();
}

void Indent(int n, std::string* out) { out->append(static_cast<size_t>(n), ' '); }

void EmitMapping(const Json& map, int indent, bool first_inline, std::string* out);
void EmitSequence(const Json& list, int indent, std::string* out);

// Writes `value` after "key:" or "- " on the current line.
void EmitValueAfterKey(const Json& value, int indent, std::string* out) {
  if (IsEmptyCollection(value)) {
    out->append(value.is_object() ? " {}\n" : " []\n");
  } else if (value.is_object()) {
    out->push_back('\n');
    EmitMapping(value, indent + 2, false, out);
  } else if (value.is_array()) {
    // kubectl style: a list under a key is not indented further.
    out->push_back('\n');
    EmitSequence(value, indent, out);
  } else {
    out->push_back(' ');
    out->append(Scalar(value));
    out->push_back('\n');
  }
}

void EmitMapping(const Json& map, int indent, bool first_inline, std::string* out) {
  bool first = true;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!(first && first_inline)) Indent(indent, out);
    first = false;
    out->append(Scalar(Json(it.key())));
    out->push_back(':');
    EmitValueAfterKey(it.value(), indent, out);
  }
}

void EmitSequence(const Json& list, int indent, std::string* out) {
  for (const Json& item : list) {
    Indent(indent, out);
    out->append("- ");
    if (IsEmptyCollection(item)) {
      out->append(item.is_object() ? "{}\n" : "[]\n");
    } else if (item.is_object()) {
      EmitMapping(item, indent + 2, true, out);
    } else if (item.is_array()) {
      out->push_back('\n');
      EmitSequence(item, indent + 2, out);
    } else {
      out->append(Scalar(item));
      out->push_back('\n');
    }
  }
}

// A growing text whose appends are inline copies: std::string's own appends are calls into
// the shared library, a dear share of printing a 1.3 MB list in small pieces.
class TextSink {
 public:
  void Put(std::string_view piece) {
    char* at = Room(piece.size());
    std::memcpy(at, piece.data(), piece.size());
  }
  void Put(char c) { *Room(1) = c; }
  void PutSpaces(size_t n) { std::memset(Room(n), ' ', n); }
  std::string Take() && {
    text_.resize(used_);
    return std::move(text_);
  }

 private:
  // The next `n` bytes to write, counted as written.
  char* Room(size_t n) {
    if (text_.size() - used_ < n) text_.resize(std::max(text_.size() * 2, used_ + n + 4096));
    char* at = text_.data() + used_;
    used_ += n;
    return at;
  }

  std::string text_;
  size_t used_ = 0;
};

// True for a string nlohmann's dump writes as it is between its quotes: printable ASCII but the
// quote and the backslash. Anything else (control characters, UTF-8, invalid bytes) is left to
// nlohmann's own escaping, so that the output stays its to the byte.
bool WrittenAsIs(const std::string& s) {
  static constexpr std::array<bool, 256> kAsIs = [] {
    std::array<bool, 256> as_is{};
    for (int c = 0x20; c <= 0x7e; ++c) as_is[c] = c != '"' && c != '\\';
    return as_is;
  }();
  for (char c : s) {
    if (!kAsIs[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

void PutString(const std::string& s, TextSink* out) {
  if (WrittenAsIs(s)) {
    out->Put('"');
    out->Put(s);
    out->Put('"');
  } else {
    out->Put(Json(s).dump(-1, ' ', false, Json::error_handler_t::replace));
  }
}

// `value` as Json::dump(2, ' ', false, replace) prints it at `indent` spaces (the indent of
// the line it starts on), without nlohmann's serializer, which decodes every string byte by
// byte: most of render's output time on a large fleet. Floating-point numbers go to nlohmann
// one by one. False for a value this does not print (binary, discarded); the caller then dumps
// the whole document the usual way.
bool PutPretty(const Json& value, size_t indent, TextSink* out) {
  switch (value.type()) {
    case Json::value_t::object:
    case Json::value_t::array: {
      const bool object = value.is_object();
      if (value.empty()) {
        out->Put(object ? "{}" : "[]");
        return true;
      }
      out->Put(object ? "{\n" : "[\n");
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out->Put(",\n");
        first = false;
        out->PutSpaces(indent + 2);
        if (object) {
          PutString(it.key(), out);
          out->Put(": ");
        }
        if (!PutPretty(it.value(), indent + 2, out)) return false;
      }
      out->Put('\n');
      out->PutSpaces(indent);
      out->Put(object ? '}' : ']');
      return true;
    }
    case Json::value_t::string:
      PutString(value.get_ref<const std::string&>(), out);
      return true;
    case Json::value_t::boolean:
      out->Put(value.get<bool>() ? "true" : "false");
      return true;
    case Json::value_t::null:
      out->Put("null");
      return true;
    case Json::value_t::number_integer:
      out->Put(absl::StrCat(value.get<Json::number_integer_t>()));
      return true;
    case Json::value_t::number_unsigned:
      out->Put(absl::StrCat(value.get<Json::number_unsigned_t>()));
      return true;
    case Json::value_t::number_float:
      out->Put(value.dump(-1, ' ', false, Json::error_handler_t::replace));
      return true;
    case Json::value_t::binary:
    case Json::value_t::discarded:
      return false;
  }
  return false;
}

}  // namespace

bool IsPlainYamlSafe(const std::string& text) {
  if (text.empty() || text.size() > 1024) return false;
  // Must start with a letter or '/', so it cannot be a number, a date, an indicator or an
  // anchor; YAML 1.1 keywords are checked below.
  const unsigned char first = static_cast<unsigned char>(text.front());
  if (!absl::ascii_isalpha(first) && first != '/') return false;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool ok = absl::ascii_isalnum(u) || c == ' ' || c == '.' || c == '_' || c == '/' ||
                    c == '-' || c == '(' || c == ')' || c == '=' || c == '\'' || c == '<' ||
                    c == '>' || c == '&' || c == '|' || c == '!' || c == '[' || c == ']' ||
                    c == '+' || c == ',' || c == ':' || c == '?' || c == '^' || c == '$' ||
                    c == '*' || c == '"' || c == '#' || c == '%' || c == '@' || c == '`' ||
                    c == '{' || c == '}' || c == '\\' || c == ';' || c == '~';
    if (!ok) return false;
  }
  if (text.back() == ' ' || text.back() == ':') return false;
  if (absl::StrContains(text, ": ") || absl::StrContains(text, " #")) return false;
  // Flow indicators would end a plain scalar inside flow collections; we never write those,
  // but a leading one is an indicator (excluded above) and the rest are fine in block context.
  // YAML 1.1 booleans and nulls (go-yaml v2 and yaml-cpp resolve them), case-insensitively.
  static constexpr std::array<const char*, 14> kKeywords = {
      "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "nan", "inf", "=", "<<"};
  const std::string lower = absl::AsciiStrToLower(text);
  for (const char* keyword : kKeywords) {
    if (lower == keyword) return false;
  }
  return true;
}

std::string ToYamlStream(const std::vector<nlohmann::ordered_json>& objects) {
  std::string out;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) out.append("---\n");
    if (objects[i].is_object() && !objects[i].empty()) {
      EmitMapping(objects[i], 0, false, &out);
    } else {
      out.append(Scalar(objects[i]));
      out.push_back('\n');
    }
  }
  return out;
}

std::string ToJsonList(const std::vector<nlohmann::ordered_json>& objects) {
  // The list's frame is written here and each item by PutPretty, as nlohmann would indent them
  // inside the list: the objects are read in place, neither copied nor moved into a list
  // (render's are 1.3 MB of JSON on the benchmark's fleet, and render leaves them to the
  // process's exit: left_to_exit.h).
  TextSink sink;
  sink.Put("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": ");
  bool printed = true;
  if (objects.empty()) {
    sink.Put("[]");
  } else {
    sink.Put("[\n");
    for (size_t i = 0; i < objects.size() && printed; ++i) {
      if (i > 0) sink.Put(",\n");
      sink.PutSpaces(4);
      printed = PutPretty(objects[i], 4, &sink);
    }
    sink.Put("\n  ]");
  }
  sink.Put("\n}\n");
  if (printed) return std::move(sink).Take();
  // A value PutPretty leaves to nlohmann (binary): the whole list through its dump.
  Json list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = objects;
  return list.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpuprofile::cmd
