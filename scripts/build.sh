#!/usr/bin/env bash
# Configures and builds into build/ (or $GPO_BUILD_DIR). Arguments are ninja targets (default:
# everything). In CI (CI=true) warnings are errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPO_BUILD_DIR:-$root/build}
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout, so that another clone of the same sources hits the cache.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
# Precompiled headers (GPO_PCH): ccache caches objects built with them only with this sloppiness.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPO_WERROR=$werror \
  >/dev/null
ninja -C "$build" -j"$(nproc)" "$@"
