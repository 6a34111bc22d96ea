#!/usr/bin/env python3
"""Writes config/prometheus/prometheusrule.yaml from the plain rules file.

config/prometheus/gpu-profile-operator.rules.yaml is the source (Prometheus' `rule_files:`
format, what promtool checks and tests); the PrometheusRule (monitoring.coreos.com/v1) that
config/prometheus/kustomization.yaml deploys carries the same groups under `spec:`, copied
text for text (comments and all). With --check nothing is written: exits 1 when the
PrometheusRule is not what this script would write (scripts/check-config.sh runs that).
"""
import os
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SOURCE = os.path.join(ROOT, "config/prometheus/gpu-profile-operator.rules.yaml")
TARGET = os.path.join(ROOT, "config/prometheus/prometheusrule.yaml")

HEADER = """\
# GENERATED from gpu-profile-operator.rules.yaml by scripts/lib/prometheus_rule.py; do not edit.
# The operator's alerts for the Prometheus Operator (monitoring.coreos.com CRDs); its rule
# selector must match the labels below. docs/monitoring.md says what each alert means.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: controller-manager-alerts
  namespace: system
  labels:
    app.kubernetes.io/name: gpu-profile-operator
    control-plane: controller-manager
spec:
"""


def render(source_text):
    lines = source_text.splitlines()
    # The source's own header comment stays in the source; the body starts at `groups:`.
    start = next(i for i, line in enumerate(lines) if line.startswith("groups:"))
    body = "".join(("  " + line if line else line) + "\n" for line in lines[start:])
    text = HEADER + body
    # The copy must say what the source says.
    source_groups = yaml.safe_load(source_text)["groups"]
    if yaml.safe_load(text)["spec"]["groups"] != source_groups:
        raise SystemExit("prometheus_rule.py: the PrometheusRule's groups differ from the source")
    return text


def main():
    with open(SOURCE) as f:
        text = render(f.read())
    if sys.argv[1:] == ["--check"]:
        try:
            with open(TARGET) as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print("check-config: %s is not generated from %s; run: python3 scripts/lib/prometheus_rule.py"
                  % (os.path.relpath(TARGET, ROOT), os.path.relpath(SOURCE, ROOT)), file=sys.stderr)
            return 1
        return 0
    if sys.argv[1:]:
        print("usage: prometheus_rule.py [--check]", file=sys.stderr)
        return 2
    with open(TARGET, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
