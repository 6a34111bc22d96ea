#!/usr/bin/env bash
# Builds the runtime image from the gpu-profile-controller binary scripts/build.sh already made
# (no second compile; a few seconds): FROM scratch with the stripped binary, the libraries it
# links, glibc's loader, the CA bundle and user 65532 (Dockerfile.runtime, with the root file
# system scripts/image-rootfs.sh lays out). Uses podman through scripts/podman.sh.
#
#   scripts/image.sh [IMAGE]          default IMAGE: localhost/gpu-profile-operator:dev
#
# The binary is $GPO_BINARY, else $GPO_BUILD_DIR/gpu-profile-controller (default build/).
# Prints the image's ID and size. Push it with `scripts/podman.sh push IMAGE REGISTRY/NAME:TAG`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
image=${1:-localhost/gpu-profile-operator:dev}
binary=${GPO_BINARY:-${GPO_BUILD_DIR:-$root/build}/gpu-profile-controller}
if [ ! -x "$binary" ]; then
  echo "image.sh: $binary does not exist; build it first: scripts/build.sh gpu-profile-controller" >&2
  exit 1
fi
command -v podman >/dev/null || { echo "image.sh: podman is not installed (scripts/install-deps.sh)" >&2; exit 1; }

context=$(mktemp -d "${TMPDIR:-/tmp}/gpo-image.XXXXXX")
trap 'rm -rf "$context"' EXIT
"$root/scripts/image-rootfs.sh" "$binary" "$context/rootfs"
"$root/scripts/podman.sh" build --quiet --isolation chroot -f "$root/Dockerfile.runtime" \
  -t "$image" "$context/rootfs" >/dev/null
"$root/scripts/podman.sh" image inspect --format '{{.Id}} {{.Size}}' "$image" |
  awk -v image="$image" '{printf "%s %s %.1f MB\n", image, substr($1, 1, 12), $2 / 1e6}'
