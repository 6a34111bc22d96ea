// File: controller/profile/cel_literal.cc
#include "controller/profile/cel_literal.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpuprofile::profile {

std::string CelString(absl::string_view text) {
  std::string out = "'";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          absl::StrAppendFormat(&out, "\\x%02x", byte);
        } else {
          out += c;
        }
    }
  }
  out += "'";
  return out;
}

bool IsCelFieldName(absl::string_view name) {
  // The CEL specification's reserved words may not be used as identifiers after a dot.
  static constexpr std::array<absl::string_view, 21> kReserved = {
      "true",     "false",   "null",      "in",       "as",  "break",  "const",
      "continue", "else",    "for",       "function", "if",  "import", "let",
      "loop",     "package", "namespace", "return",   "var", "void",   "while"};
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  for (absl::string_view word : kReserved) {
    if (name == word) return false;
  }
  return true;
}

std::string CelMember(absl::string_view base, absl::string_view name) {
  if (IsCelFieldName(name)) return absl::StrCat(base, ".", name);
  return absl::StrCat(base, "[", CelString(name), "]");
}

}  // namespace gpuprofile::profile
