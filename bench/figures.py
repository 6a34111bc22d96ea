#!/usr/bin/env python3
"""Issue 28's performance targets, each against the previous main's figure.

As a module: a benchmark script calls record(name, value, target=...) for each figure it
measured and report() at the end, which prints, per figure, the target, the previous main's
figure (bench/main-figures.json, committed with main) and the change, and marks a regression of
more than 10% against main in capitals. With --record-main the figures of this run replace
main's (do that when a measured run lands on main, in the same commit as the figures).

As a command, it runs the CEL selector benchmark (the paired CEL / hand-written ratio):
  python3 bench/figures.py cel [--build build] [--record-main]
The render and operator benchmarks report through the same module:
  python3 bench/render/run_benchmark.py [--record-main]
  python3 bench/operator/run_benchmark.py ... [--record-main]

Every figure here is lower-is-better (a time, a ratio to a baseline of the same run, or memory).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_FIGURES = os.path.join(ROOT, "bench", "main-figures.json")
REGRESSION = 0.10  # a figure more than 10% above main's is flagged

_figures = {}  # name -> {"value": v, "target": t or None}


def record(name, value, target=None, keep_main=False):
    """keep_main: this run's figure is reported but, with --record-main, main's is kept (a figure
    this run cannot measure comparably, e.g. a CPU ratio in an hour bound by page faults)."""
    _figures[name] = {"value": float(value), "target": target, "keep_main": keep_main}


def _load_main():
    try:
        with open(MAIN_FIGURES) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def report(record_main=False):
    """Prints every recorded figure against its target and main's; returns the regressions."""
    main = _load_main()
    regressions = []
    print("\nfigure                          this run    target   main      change")
    for name, f in _figures.items():
        value, target = f["value"], f["target"]
        was = main.get(name, {}).get("value")
        change = "" if was in (None, 0) else "%+.1f%%" % (100.0 * (value / was - 1))
        flag = ""
        if was not in (None, 0) and value > was * (1 + REGRESSION):
            flag = "  REGRESSION against main (> 10%)"
            regressions.append(name)
        met = "" if target is None else (" met" if value <= target else " NOT MET")
        print("%-30s %9.3f  %8s  %8s  %8s%s%s" % (
            name, value, "-" if target is None else "<= %g" % target,
            "-" if was is None else "%.3f" % was, change, met, flag))
    if record_main:
        for name, f in _figures.items():
            if f["keep_main"]:
                print("%s: main's figure kept (this run's is not comparable)" % name)
                continue
            main[name] = {"value": f["value"], "target": f["target"]}
        with open(MAIN_FIGURES, "w") as f:
            json.dump(main, f, indent=2, sort_keys=True)
            f.write("\n")
        print("recorded as main's figures in %s" % os.path.relpath(MAIN_FIGURES, ROOT))
    return regressions


def _run_cel(build):
    binary = os.path.join(build, "bench", "cel_selector_benchmark")
    if not os.path.exists(binary):
        sys.exit("missing %s: scripts/build.sh cel_selector_benchmark" % binary)
    out = subprocess.run([binary, "--benchmark_filter=PairedRatio", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    for b in json.loads(out)["benchmarks"]:
        devices = b["name"].split("/")[1]
        print("%s: CEL %.0f ns, hand-written %.0f ns per device, ratio %.2f" % (
            b["name"], b["cel_ns"], b["hand_ns"], b["ratio"]))
        record("cel_vs_handwritten_%s" % devices, b["ratio"], target=1.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", choices=["cel"])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--record-main", action="store_true")
    args = parser.parse_args()
    _run_cel(args.build)
    report(args.record_main)
    return 0


if __name__ == "__main__":
    sys.exit(main())
