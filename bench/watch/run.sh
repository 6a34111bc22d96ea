#!/usr/bin/env bash
# The client's list + watch benchmark of issue 5 (figures in docs/performance.md):
#   bash bench/watch/run.sh [BUILD_DIR] [RUNS] [SECONDS]
# Builds nothing: run `scripts/build.sh watch_bench kube-emulator` first. Each run starts a fresh
# kube-emulator seeded with 5,000 ResourceSlices of 8 devices (e2e/bench/gen_slices.py), runs
# watch_bench against it (the operator's ResourceSlice informer over HTTP, 100 updates/s for
# SECONDS, then the one-thread decode comparison), and stops it. Prints every run's JSON line and
# the medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
seconds=${3:-20}
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# SLICE_SHAPE=1.36: slices with the 1.35-1.37 fields (gen_slices.py), on a 1.37 API server with
# list-typed attributes on.
shape=${SLICE_SHAPE:-1.34}
emulator_args=()
if [ "$shape" = 1.36 ]; then
  emulator_args=(--kube-version 1.37 --feature-gates DRAListTypeAttributes=true)
fi
python3 "$root/e2e/bench/gen_slices.py" 5000 "$shape" > "$work/slices.json"
echo "slice file: $(du -k "$work/slices.json" | cut -f1) KiB" >&2
for i in $(seq "$runs"); do
  "$build/e2e/kube-emulator" "${emulator_args[@]}" -f "$work/slices.json" > "$work/url" \
    2> "$work/err" &
  pid=$!
  for _ in $(seq 600); do [ -s "$work/url" ] && break; sleep 0.1; done
  if [ ! -s "$work/url" ]; then
    cat "$work/err" >&2
    exit 1
  fi
  "$build/bench/watch_bench" "$(head -1 "$work/url")" --seconds "$seconds" | tee -a "$work/results"
  kill "$pid"
  wait "$pid" || true
  pid=
  : > "$work/url"
done
python3 - "$work/results" << 'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = ["sync_ms", "json_bytes_per_slice", "heap_bytes_per_slice", "rss_bytes_per_slice",
        "memory_ratio", "live_events_per_s", "p50_ms", "p99_ms", "fast_events_per_s",
        "dom_parse_events_per_s", "dom_decode_events_per_s", "fast_vs_dom_parse"]
print("medians of %d runs (%d slices, %d updates each):" % (len(rows), rows[0]["slices"],
                                                           rows[0]["updates"]))
for k in keys:
    print("  %-24s %12.2f" % (k, statistics.median(r[k] for r in rows)))
PY
