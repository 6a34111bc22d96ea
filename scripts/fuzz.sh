#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/, runs every checked-in
# regression input once, then fuzzes each target from its seed corpus. The argument N (default
# 60) sets the time budget, 2.5 N seconds in all as before: the CEL parser 0.75 N, the CEL
# evaluator, the profile pipeline and the YAML/JSON readers 0.5 N each, the HTTP/1.1 response
# reader 0.25 N, in two lanes of 1.25 N side by side when there are two cores. Every input runs under a time
# and memory limit (-timeout, -rss_limit_mb, -malloc_limit_mb). Fails on any crash, leak,
# timeout, out-of-memory or sanitizer report; what libFuzzer saves then lands in
# $GPO_FUZZ_ARTIFACTS (default build-fuzz/artifacts/): once the bug is fixed, add the input to the
# target's corpus directory (fuzz/corpus, fuzz/profile_corpus, fuzz/reader_corpus,
# fuzz/http1_corpus) so that it
# stays a regression input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${GPO_FUZZ_BUILD_DIR:-$root/build-fuzz}
artifacts=${GPO_FUZZ_ARTIFACTS:-$build/artifacts}
# shellcheck source=lib/ccache_env.sh
source "$root/scripts/lib/ccache_env.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DGPO_FUZZ=ON -DGPO_BUILD_TESTS=OFF -DGPO_BUILD_BENCHMARKS=OFF \
  >/dev/null
ninja -C "$build" -j"$(nproc)" cel_fuzz profile_fuzz reader_fuzz http1_fuzz
mkdir -p "$artifacts"

# run TARGET SECONDS CORPUS_DIR GLOB MAX_LEN TIMEOUT RSS_MB MALLOC_MB [env...]
run() {
  local target=$1 secs=$2 seeds=$3 glob=$4 max_len=$5 timeout=$6 rss=$7 malloc=$8
  shift 8
  local limits=(-timeout="$timeout" -rss_limit_mb="$rss" -malloc_limit_mb="$malloc"
                -artifact_prefix="$artifacts/$target-")
  # Regression pass: every checked-in input once, whole (no -max_len), under the same limits.
  local log
  # shellcheck disable=SC2086
  if ! log=$(env "$@" "$build/fuzz/$target" "${limits[@]}" "$seeds"/$glob 2>&1); then
    tail -n 40 <<<"$log"
    echo "$target ${*:+($*) }failed on a regression input of $seeds"
    return 1
  fi
  echo "$target ${*:+($*) }passed $(grep -c '^Executed' <<<"$log") regression inputs of $seeds"
  local corpus
  corpus=$(mktemp -d)
  # shellcheck disable=SC2086
  cp "$seeds"/$glob "$corpus"/ || return 1
  echo "fuzzing $target ${*:+($*) }for ${secs}s"
  local status=0
  env "$@" "$build/fuzz/$target" -max_total_time="$secs" -max_len="$max_len" "${limits[@]}" \
    -print_final_stats=1 "$corpus" 2>&1 | tail -n 4 || status=$?
  rm -rf "$corpus"
  if [ $status != 0 ]; then
    echo "$target ${*:+($*) }failed while fuzzing; see $artifacts"
    return 1
  fi
}

cel_parse() {
  run cel_fuzz $((seconds * 3 / 4)) "$root/fuzz/corpus" '*.cel' 4096 10 2048 2048 \
    GPO_FUZZ_MODE=parse
}
cel_evaluate() {
  run cel_fuzz $((seconds / 2)) "$root/fuzz/corpus" '*.cel' 4096 10 2048 2048 \
    GPO_FUZZ_MODE=evaluate
}
# Manifests -> GpuProfiles -> engine: each input runs the whole pipeline.
profile() {
  run profile_fuzz $((seconds / 2)) "$root/fuzz/profile_corpus" '*.yaml' 8192 10 2048 2048
}
# The YAML and JSON readers and the ResourceSlice decoders (slices read from YAML and JSON, fast
# paths against the strict one): the alias bomb must stay within a few MB, deep nesting within
# the stack, every input within 5 s even under the sanitizers.
readers() {
  run reader_fuzz $((seconds / 2)) "$root/fuzz/reader_corpus" '*' 8192 5 1024 256
}
# What a server sends on a connection, read whole and one byte at a time (same result promised).
http1() {
  run http1_fuzz $((seconds / 4)) "$root/fuzz/http1_corpus" '*' 65536 5 1024 256
}

# Each run is single-threaded. With two cores or more, the runs go in two lanes of equal length
# (1.25 N seconds each) side by side: every target keeps its own time budget and its own core.
if [ "$(nproc)" -lt 2 ]; then
  cel_parse && cel_evaluate && profile && readers && http1
  exit
fi
lanes=$(mktemp -d)
trap 'rm -rf "$lanes"' EXIT
{ cel_parse && profile; } >"$lanes/1" 2>&1 &
lane1=$!
{ cel_evaluate && readers && http1; } >"$lanes/2" 2>&1 &
lane2=$!
status=0
wait $lane1 || status=1
wait $lane2 || status=1
cat "$lanes/1" "$lanes/2"
exit $status
