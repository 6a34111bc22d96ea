#!/usr/bin/env bash
# Installs what building and testing gpu-profile-operator needs on Debian 12, and nothing that is
# already there. Safe to run again. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  lld                            # the linker: about 3x faster than BFD on this project's links
  libabsl-dev libre2-dev nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libcpprest-dev libssl-dev
  libsimdjson-dev                # the fast path for large ResourceSlice lists
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev       # the libFuzzer target
  nodejs npm                     # the CEL conformance data and the differential evaluator
  python3 python3-jsonschema python3-yaml   # schema validation of generated objects
  lua5.1                         # the Argo CD health check's tests (config/argocd)
  prometheus                     # promtool for the alerts' tests, and the e2e test's Prometheus
  ca-certificates                # the runtime image's CA bundle (scripts/image-rootfs.sh)
)
# Building and running the runtime image in CI (scripts/image.sh, e2e/tests/image_test.cc):
# podman with vfs storage, chroot isolation and runc (crun fails on these machines), and
# mmdebstrap for a local Debian base image (the multi-stage Dockerfile). With root and
# --network host nothing else is needed (no uidmap, fuse-overlayfs or slirp4netns). The
# Dockerfile's build stage sets GPO_NO_IMAGE_TOOLS=1: it builds no image itself.
if [ "${GPO_NO_IMAGE_TOOLS:-}" != "1" ]; then
  packages+=(podman runc mmdebstrap)
fi

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
