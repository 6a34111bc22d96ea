# syntax=docker/dockerfile:1
# The gpu-profile-operator image, built from source: gpu-profile-controller in a FROM scratch
# image with exactly the shared libraries it links, running as non-root 65532.
#
#   docker build -t ghcr.io/gpuprofile/gpu-profile-operator:v0.1.0 .
#   podman build -t ghcr.io/gpuprofile/gpu-profile-operator:v0.1.0 .
#
# (That name is the placeholder config/manager uses; push to your own registry.) Where no
# registry is reachable, make the build stage's base locally and name it with BUILD_BASE, as the
# project's build machines do (see the README's Deployment section):
#   mmdebstrap --variant=minbase --include=ca-certificates bookworm base.tar
#   podman import base.tar localhost/debian:12
#   podman build --build-arg BUILD_BASE=localhost/debian:12 -t IMAGE .
# CI builds the same runtime layout from the binary it already built, without compiling twice:
# scripts/image.sh with Dockerfile.runtime.
ARG BUILD_BASE=debian:12

# Build with exactly what CI uses: scripts/install-deps.sh on Debian 12, then scripts/build.sh.
FROM ${BUILD_BASE} AS build
WORKDIR /src
# Dependencies in their own layer, so that a source edit does not reinstall them. The container
# tools install-deps.sh adds for CI (podman and co.) are not needed here.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN GPO_NO_IMAGE_TOOLS=1 scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
# Only the binary: tests and benchmarks off. build.sh does not set these options, so the values
# seeded here stay in the CMake cache when it configures the same directory.
RUN --mount=type=cache,target=/root/.cache/ccache \
    cmake -S . -B /build -G Ninja -DGPO_BUILD_TESTS=OFF -DGPO_BUILD_BENCHMARKS=OFF >/dev/null \
 && GPO_BUILD_DIR=/build scripts/build.sh gpu-profile-controller
# The root file system: the stripped binary, every library ldd resolves (glibc and its loader
# included, at their own paths), the CA bundle, /etc/passwd for 65532.
RUN scripts/image-rootfs.sh /build/gpu-profile-controller /rootfs

# No shell, no package manager: only what scripts/image-rootfs.sh laid out.
FROM scratch
LABEL org.opencontainers.image.title="gpu-profile-operator" \
      org.opencontainers.image.description="Kubernetes operator: GpuProfiles to DRA DeviceClasses and ResourceClaimTemplates" \
      org.opencontainers.image.version="0.1.0"
COPY --from=build /rootfs/ /
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gpu-profile-controller"]
