#!/usr/bin/env bash
# Installs what is missing, builds once, and runs every test: unit tests, the CEL conformance
# suite, the differential test against an independent CEL evaluator, and a short fuzzing run of
# the CEL parser and evaluator. ctest runs test cases in parallel.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPO_BUILD_DIR:-$root/build}
export GPO_BUILD_DIR=$build

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

# Conformance data and the independent evaluator come from the npm registry (pinned versions).
"$root/tools/cel-spec/prepare.sh" "$build"

# Fuzz the parser and evaluator briefly (libFuzzer, ASan+UBSan); any crash, leak or hang fails.
"$root/scripts/fuzz.sh" "${GPO_FUZZ_SECONDS:-60}"

"$root/scripts/check-config.sh"
cd "$build"
ctest -j"$(nproc)" --output-on-failure --timeout 600
