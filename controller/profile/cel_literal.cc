// File: controller/profile/cel_literal.cc
#include "controller/profile/cel_literal.h"

#include "absl/strings/str_cat.h"
#include "controller/cel/literal.h"

namespace gpuprofile::profile {

std::string CelMember(absl::string_view base, absl::string_view name) {
  if (cel::IsFieldName(name)) return absl::StrCat(base, ".", name);
  return absl::StrCat(base, "[", cel::StringLiteral(name), "]");
}

}  // namespace gpuprofile::profile
