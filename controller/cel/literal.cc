// File: controller/cel/literal.cc
#include "controller/cel/literal.h"

#include <array>

#include "absl/strings/str_format.h"

namespace gpuprofile::cel {
namespace {

std::string Quote(absl::string_view text, char quote, bool bytes) {
  std::string out;
  out.reserve(text.size() + 3);
  if (bytes) out += 'b';
  out += quote;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
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
        if (c == quote) {
          out += '\\';
          out += c;
        } else if (byte < 0x20 || byte == 0x7f || (bytes && byte >= 0x80)) {
          absl::StrAppendFormat(&out, "\\x%02x", byte);
        } else {
          out += c;
        }
    }
  }
  out += quote;
  return out;
}

}  // namespace

std::string StringLiteral(absl::string_view text, char quote) {
  return Quote(text, quote, /*bytes=*/false);
}

std::string BytesLiteral(absl::string_view bytes) { return Quote(bytes, '"', /*bytes=*/true); }

bool IsReservedWord(absl::string_view name) {
  static constexpr std::array<absl::string_view, 17> kReserved = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  for (absl::string_view word : kReserved) {
    if (name == word) return true;
  }
  return false;
}

bool IsFieldName(absl::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  if (name == "true" || name == "false" || name == "null" || name == "in") return false;
  return !IsReservedWord(name);
}

}  // namespace gpuprofile::cel
