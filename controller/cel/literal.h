// File: controller/cel/literal.h
// Writing CEL source text: string and bytes literals, and which names may follow a dot. The one
// home of CEL quoting (the AST printer and the selector compiler both use it).
// Pure; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace gpuprofile::cel {

// A CEL string literal denoting exactly `text`, in `quote` (' or "): backslash and that quote
// escaped, control characters as \n, \r, \t or \xNN; other UTF-8 passes through.
std::string StringLiteral(absl::string_view text, char quote = '\'');

// A bytes literal b"..." denoting exactly `bytes`: as StringLiteral with '"', and every byte
// from 0x80 up as \xNN.
std::string BytesLiteral(absl::string_view bytes);

// The CEL specification's reserved words (`as`, `break`, ... `while`), which the parser rejects
// as identifiers. `true`, `false`, `null` and `in` are keywords and not in this list.
bool IsReservedWord(absl::string_view name);

// True when `name` can follow a dot in CEL: an identifier that is neither a keyword nor a
// reserved word.
bool IsFieldName(absl::string_view name);

}  // namespace gpuprofile::cel
