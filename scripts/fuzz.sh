#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and runs each for the
# given number of seconds (default 60; the profile target half of it) from the checked-in seed
# corpus. Fails on any crash, leak, timeout or sanitizer report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${GPO_FUZZ_BUILD_DIR:-$root/build-fuzz}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout, so that another clone of the same sources hits the cache.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DGPO_FUZZ=ON -DGPO_BUILD_TESTS=OFF -DGPO_BUILD_BENCHMARKS=OFF \
  >/dev/null
ninja -C "$build" -j"$(nproc)" cel_fuzz profile_fuzz
for target in parse evaluate; do
  corpus=$(mktemp -d)
  cp "$root"/fuzz/corpus/*.cel "$corpus"/
  echo "fuzzing cel $target for ${seconds}s"
  GPO_FUZZ_MODE=$target "$build/fuzz/cel_fuzz" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 "$corpus" 2>&1 | tail -n 4
  rm -rf "$corpus"
done
# Manifests -> GpuProfiles -> engine; half the time: each input runs the whole pipeline.
corpus=$(mktemp -d)
cp "$root"/fuzz/profile_corpus/*.yaml "$corpus"/
echo "fuzzing profile decoding and the engine for $((seconds / 2))s"
"$build/fuzz/profile_fuzz" -max_total_time="$((seconds / 2))" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -print_final_stats=1 "$corpus" 2>&1 | tail -n 4
rm -rf "$corpus"
