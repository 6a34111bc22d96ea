// File: controller/cmd/manifest_writer.cc
#include "controller/cmd/manifest_writer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

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

std::string ToJsonList(std::vector<nlohmann::ordered_json> objects) {
  Json list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  // Moved in, not copied: render's objects are 1.3 MB of JSON on the benchmark's fleet.
  list["items"] = Json::array();
  list["items"].get_ref<Json::array_t&>() = std::move(objects);
  std::string out = list.dump(2, ' ', false, Json::error_handler_t::replace);
  out.push_back('\n');
  return out;
}

}  // namespace gpuprofile::cmd
