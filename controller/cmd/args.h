// File: controller/cmd/args.h
// A small command-line parser for the subcommands: `--flag value`, `--flag=value`, `-f value`,
// repeatable flags, boolean flags and positional arguments, with errors that name the flag.
// (absl::flags is global and process-wide; subcommands need per-command flag sets.)
// Thread-compatible.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::cmd {

struct FlagSpec {
  std::vector<std::string> names;  // e.g. {"-f", "--filename"}
  bool takes_value = true;
  bool repeatable = false;
};

struct ParsedArgs {
  // Canonical name (the first of FlagSpec::names) -> values in order ("true" for booleans).
  std::map<std::string, std::vector<std::string>> flags;
  std::vector<std::string> positional;

  bool Has(const std::string& name) const { return flags.count(name) > 0; }
  // The last value of a flag, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> GetAll(const std::string& name) const;
};

// Parses `args` (without the program and subcommand names). "--" ends flag parsing.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs);

// `--feature-gates NAME=true,NAME=false` (cel check, cel match, render, run): the cluster's DRA
// feature gates, which the operator cannot discover. Repeatable; items of later flags win.
inline const FlagSpec kFeatureGatesFlag{{"--feature-gates"}, true, true};
// Its help text (one usage line per command refers to it).
inline constexpr char kFeatureGatesHelp[] =
    "  --feature-gates NAME=true,...   the cluster's DRA feature gates (DRAConsumableCapacity,\n"
    "                                  DRAListTypeAttributes, ...); gates not named take the\n"
    "                                  defaults of the release (--kube-version)\n";

// The gates of `version` with every --feature-gates value applied. Errors are FeatureGates::Parse's
// (an unknown gate, one the release does not have, a value other than true/false, a locked gate):
// callers report them as usage errors.
absl::StatusOr<FeatureGates> ParseFeatureGatesFlag(const ParsedArgs& parsed,
                                                   const KubeVersion& version);

}  // namespace gpuprofile::cmd
