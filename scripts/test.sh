#!/usr/bin/env bash
# Installs what is missing, builds once, and runs every test: unit tests, the CEL conformance
# suite, the differential test against an independent CEL evaluator, and a short fuzzing run of
# the readers, the CEL parser and evaluator. ctest runs test cases in parallel; the time of each
# part is printed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPO_BUILD_DIR:-$root/build}
export GPO_BUILD_DIR=$build

# Each part's wall time, printed at the end (the cold-cache budget is 20 minutes in all).
parts=()
run_part() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  parts+=("$(printf '%-34s %5d s' "$name" $((SECONDS - start)))")
}

run_part "install missing packages" "$root/scripts/install-deps.sh"
run_part "build (ccache)" "$root/scripts/build.sh"
# Conformance data and the independent evaluator come from the npm registry (pinned versions).
run_part "CEL conformance data (npm)" "$root/tools/cel-spec/prepare.sh" "$build"
# Fuzz the readers, the CEL parser and evaluator, and the profile engine briefly (libFuzzer,
# ASan+UBSan); any crash, leak or hang fails.
run_part "fuzz build and runs" "$root/scripts/fuzz.sh" "${GPO_FUZZ_SECONDS:-60}"
run_part "config checks" "$root/scripts/check-config.sh"
cd "$build"
ctest_log=$(mktemp)
trap 'rm -f "$ctest_log"' EXIT
start=$SECONDS
status=0
ctest -j"$(nproc)" --output-on-failure --timeout 600 2>&1 | tee "$ctest_log" || status=$?
parts+=("$(printf '%-34s %5d s' "ctest" $((SECONDS - start)))")
echo
echo "time per part:"
printf '  %s\n' "${parts[@]}"
printf '  %-34s %5d s\n' "total" "$SECONDS"
# ctest's summary again, as the last lines of the run.
grep -E "tests passed|tests failed|Total Test time" "$ctest_log" || true
exit $status
