#!/usr/bin/env bash
# podman as it works on the project's build machines (root, no Docker engine, no registry):
# vfs storage, runc (crun cannot set rlimits there), cgroupfs, chroot isolation for builds.
# Used by scripts/image.sh and e2e/tests/image_test.cc; arguments are podman's.
#
#   scripts/podman.sh build -f Dockerfile.runtime -t IMAGE DIR
#   scripts/podman.sh run --rm IMAGE version
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/podman-containers.conf}
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-chroot}
exec podman --runtime "${GPO_PODMAN_RUNTIME:-runc}" --storage-driver vfs "$@"
