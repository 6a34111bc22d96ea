#!/usr/bin/env bash
# Configures and builds into build/ (or $GPO_BUILD_DIR). Arguments are ninja targets (default:
# everything). In CI (CI=true) warnings are errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPO_BUILD_DIR:-$root/build}
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
# shellcheck source=lib/ccache_env.sh
source "$root/scripts/lib/ccache_env.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPO_WERROR=$werror \
  >/dev/null
ninja -C "$build" -j"$(nproc)" "$@"
