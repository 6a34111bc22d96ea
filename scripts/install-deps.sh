#!/usr/bin/env bash
# Installs what building and testing gpu-profile-operator needs on Debian 12, and nothing that is
# already there. Safe to run again. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libabsl-dev libre2-dev nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libcpprest-dev libssl-dev
  libsimdjson-dev                # the fast path for large ResourceSlice lists
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev       # the libFuzzer target
  nodejs npm                     # the CEL conformance data and the differential evaluator
  python3 python3-jsonschema python3-yaml   # schema validation of generated objects
  lua5.1                         # the Argo CD health check's tests (config/argocd)
)

missing=()
for p in "${packages[@]}"; do
  # node/npm may come from outside Debian (a newer Node.js); accept them when on PATH.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
