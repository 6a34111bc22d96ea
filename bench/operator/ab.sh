#!/usr/bin/env bash
# A/B of the operator benchmark in one session, rounds alternating (the machine is shared):
#   bash bench/operator/ab.sh [BUILD_DIR] [ROUNDS] [run_benchmark.py options for both...]
# Round i runs A = run.sh BUILD 1 OPTIONS, then B = the same with --advanced (issue 14's fields
# on part of the profiles), e.g. both on the release where those fields are on by default:
#   bash bench/operator/ab.sh build 3 --kube-version 1.37 --skip-kubectl
# B_OPTIONS replaces --advanced as what B adds (split on spaces), e.g. issue 17's claims:
#   B_OPTIONS="--claims 30000 --claim-churn-rate 100" bash bench/operator/ab.sh build 2 --skip-kubectl
# Each round's figures go to BUILD/ab-<stamp>/{a,b}-<i>.json; at the end the medians of each side
# (run_benchmark.py --summarize) and the ratios B/A of the medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
rounds=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/ab-$(date -u +%Y%m%dT%H%M%S)
read -r -a b_options <<< "${B_OPTIONS:---advanced}"
mkdir -p "$out"
for ((i = 1; i <= rounds; i++)); do
  for side in a b; do
    extra=(); [[ $side == b ]] && extra=("${b_options[@]}")
    echo "== round $i, ${side^^}$([[ $side == b ]] && echo " (${b_options[*]})"), load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    bash "$root/bench/operator/run.sh" "$build" 1 "$@" "${extra[@]}" --json "$out/$side-$i.json" >/dev/null
  done
done
RUN_BENCHMARK=$root/bench/operator/run_benchmark.py exec python3 - "$out" "$rounds" "${b_options[*]}" <<'PY'
import json, os, statistics, subprocess, sys
out, rounds, b_label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
med = {}
for side in ("a", "b"):
    rows, meta = [], None
    for i in range(1, rounds + 1):
        with open(os.path.join(out, "%s-%d.json" % (side, i))) as f:
            saved = json.load(f)
        rows += saved["rounds"]
        meta = saved["meta"]
    path = os.path.join(out, side + ".json")
    with open(path, "w") as f:
        json.dump({"rounds": rows, "meta": meta}, f, indent=1, sort_keys=True)
    print("## %s" % ("B (%s)" % b_label if side == "b" else "A"))
    sys.stdout.flush()
    subprocess.check_call([sys.executable, os.environ["RUN_BENCHMARK"], "--summarize", path])
    with open(path) as f:
        rows = json.load(f)["rounds"]
    med[side] = {k: statistics.median([r[k] for r in rows if r.get(k) is not None])
                 for k in ("ready_s", "churn_latency_p50_ms", "churn_latency_p99_ms", "rss_peak",
                           "rss_peak_before_relist", "rss_at_ready", "rss_end", "idle_writes",
                           "relist_writes")
                 if any(r.get(k) is not None for r in rows)}
print("ratios B/A of the medians:")
for k in med["a"]:
    a, b = med["a"][k], med["b"].get(k)
    if b is None:
        print("  %s: A %.4g, B -" % (k, a))
        continue
    print("  %s: A %.4g, B %.4g, B/A %s, B-A %.4g" % (k, a, b, "%.2f" % (b / a) if a else "-",
                                                      b - a))
PY
