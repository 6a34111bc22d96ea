#!/usr/bin/env bash
# File: tools/cel-spec/prepare.sh
# Installs the pinned CEL reference packages (package-lock.json) and exports the conformance
# suites into BUILD_DIR/cel-conformance.json, where cel_conformance_test looks by default.
# cel_differential_test needs only the installed packages.
#
# Usage: tools/cel-spec/prepare.sh BUILD_DIR
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build_dir=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

command -v node >/dev/null || { echo "prepare.sh: node is not on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "prepare.sh: npm is not on PATH" >&2; exit 1; }

mkdir -p "${build_dir}"
build_dir=$(cd "${build_dir}" && pwd)

# --prefer-offline reuses the npm cache when it has the pinned tarballs.
(cd "${here}" && npm ci --no-audit --no-fund --prefer-offline)
node "${here}/export-conformance.mjs" "${build_dir}/cel-conformance.json"
