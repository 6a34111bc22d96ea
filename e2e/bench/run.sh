#!/usr/bin/env bash
# The kube-emulator benchmark of issue 4 (see e2e/README.md for the figures):
#   bash e2e/bench/run.sh [BUILD_DIR] [RUNS] [WRITES]
# Extra emulator flags may be given in KUBE_EMULATOR_FLAGS (e.g. "--watch-senders 2").
# Each run starts a fresh emulator (--state off) seeded with 5,000 ResourceSlices of 8 devices,
# runs e2e_emulator_bench against it, and stops it. Prints every run and the medians.
set -euo pipefail
build=${1:-build-e2e}
runs=${2:-5}
writes=${3:-2000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -n 8192
python3 "$here/gen_slices.py" 5000 > "$work/slices.json"
echo "slice file: $(du -k "$work/slices.json" | cut -f1) KiB" >&2
for i in $(seq "$runs"); do
  # shellcheck disable=SC2086  # word splitting of the extra flags is intended
  "$build/e2e/kube-emulator" -f "$work/slices.json" ${KUBE_EMULATOR_FLAGS:-} > "$work/url" \
    2> "$work/err" &
  pid=$!
  for _ in $(seq 600); do [ -s "$work/url" ] && break; sleep 0.1; done
  "$build/e2e/e2e_emulator_bench" "$(head -1 "$work/url")" "$pid" "$writes" | tee -a "$work/results"
  kill "$pid"; wait "$pid" || true
  : > "$work/url"
done
python3 - "$work/results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for k in ["list_ms", "writes_per_s", "p50_ms", "p99_ms", "idle_watch_kib", "rss_after_idle_kib"]:
    print("median %-20s %.1f" % (k, statistics.median(r[k] for r in rows)))
PY
