// File: controller/cmd/args.cc
#include "controller/cmd/args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::cmd {

std::string ParsedArgs::Get(const std::string& name, const std::string& fallback) const {
  auto it = flags.find(name);
  if (it == flags.end() || it->second.empty()) return fallback;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::GetAll(const std::string& name) const {
  auto it = flags.find(name);
  return it == flags.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs) {
  auto find_spec = [&](const std::string& name) -> const FlagSpec* {
    for (const FlagSpec& s : specs) {
      for (const std::string& n : s.names) {
        if (n == name) return &s;
      }
    }
    return nullptr;
  };
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.positional.insert(out.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-' || (a[1] != '-' && !std::isalpha(a[1]))) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a;
    std::string value;
    bool has_inline = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_inline = true;
    }
    const FlagSpec* spec = find_spec(name);
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag: ", name));
    const std::string& canonical = spec->names.front();
    if (spec->takes_value) {
      if (!has_inline) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("flag ", name, " needs a value"));
        }
        value = args[++i];
      }
    } else {
      if (has_inline && value != "true" && value != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("flag ", name, " takes no value other than true or false"));
      }
      if (!has_inline) value = "true";
    }
    std::vector<std::string>& values = out.flags[canonical];
    if (!spec->repeatable && !values.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("flag ", name, " given more than once"));
    }
    values.push_back(value);
  }
  return out;
}

absl::StatusOr<FeatureGates> ParseFeatureGatesFlag(const ParsedArgs& parsed,
                                                   const KubeVersion& version) {
  return FeatureGates::Parse(version, absl::StrJoin(parsed.GetAll(kFeatureGatesFlag.names[0]), ","));
}

}  // namespace gpuprofile::cmd
