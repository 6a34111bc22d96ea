#!/usr/bin/env bash
# The operator-at-scale benchmark (issue 6, "Figures"; docs/performance.md, "Operator at scale"):
#   bash bench/operator/run.sh [BUILD_DIR] [ROUNDS] [run_benchmark.py options...]
# e.g. the figures of docs/performance.md:
#   bash bench/operator/run.sh build-bench 3 --namespaces 2 --churn-rate 5
# Needs gpu-profile-controller and kube-emulator in BUILD_DIR (default build):
#   GPO_BUILD_DIR=$PWD/build-bench bash scripts/build.sh gpu-profile-controller kube-emulator
# Defaults are the issue's size: 5,000 nodes x 8 GPUs, 100 profiles x 200 namespaces (20,000
# ResourceClaimTemplates), 100 slice updates/s for 20 s. See run_benchmark.py's docstring for
# what is measured. Inputs are generated once into BUILD_DIR/bench-operator-NODES-NAMESPACES.
# Issue 14's fields on part of the profiles: --advanced with --kube-version 1.37 (or 1.34/1.35
# and --feature-gates); bench/operator/ab.sh alternates rounds with and without them.
# Issue 17's claims: --claims 30000 --claim-churn-rate 100 (30,000 allocated ResourceClaims seeded,
# then 100 allocations and 100 deallocations a second); B_OPTIONS="--claims 30000
# --claim-churn-rate 100" bash bench/operator/ab.sh BUILD ROUNDS --skip-kubectl compares.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
rounds=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
case $build in /*) ;; *) build=$root/$build ;; esac
for binary in "$build/gpu-profile-controller" "$build/e2e/kube-emulator"; do
  [[ -x $binary ]] || { echo "missing $binary: build it first (scripts/build.sh)" >&2; exit 1; }
done
ulimit -n 8192 2>/dev/null || true
exec python3 "$root/bench/operator/run_benchmark.py" --build "$build" --rounds "$rounds" "$@"
