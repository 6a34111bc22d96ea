# syntax=docker/dockerfile:1
# The gpu-profile-operator image: gpu-profile-controller on a minimal base, running as non-root.
#
#   docker build -t ghcr.io/gpuprofile/gpu-profile-operator:v0.1.0 .
#
# (That name is the placeholder config/manager uses; push to your own registry.) No container
# engine runs on the project's build machines, so this file has not been built there; the
# library collection below was checked against a binary built by scripts/build.sh.

# Build with exactly what CI uses: scripts/install-deps.sh on Debian 12, then scripts/build.sh.
FROM debian:12 AS build
WORKDIR /src
# Dependencies in their own layer, so that a source edit does not reinstall them.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
# Only the binary: tests and benchmarks off. build.sh does not set these options, so the values
# seeded here stay in the CMake cache when it configures the same directory.
RUN --mount=type=cache,target=/root/.cache/ccache \
    cmake -S . -B /build -G Ninja -DGPO_BUILD_TESTS=OFF -DGPO_BUILD_BENCHMARKS=OFF >/dev/null \
 && GPO_BUILD_DIR=/build scripts/build.sh gpu-profile-controller
# The binary links Debian's shared libraries (abseil, RE2, yaml-cpp, simdjson, spdlog/fmt,
# cpprest with Boost and OpenSSL, libstdc++, ...), which the runtime image lacks. Rather than keep
# a list by hand that drifts whenever a library is added, copy whatever ldd resolves, except glibc
# itself: the runtime image brings its own glibc and loader (Debian 12's, the same 2.36), and a
# libc must always match the loader that maps it. Debug info is stripped (56 MB -> about 3 MB);
# symbols stay for backtraces.
RUN set -eu; \
    mkdir -p /out/lib; \
    strip --strip-debug -o /out/gpu-profile-controller /build/gpu-profile-controller; \
    if ldd /out/gpu-profile-controller | grep 'not found'; then exit 1; fi; \
    for lib in $(ldd /out/gpu-profile-controller | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do \
      case "$(basename "$lib")" in \
        libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*| \
        libutil.so.*|libanl.so.*|ld-linux*) continue ;; \
      esac; \
      cp -L "$lib" /out/lib/; \
    done; \
    LD_LIBRARY_PATH=/out/lib /out/gpu-profile-controller version

# Run on distroless: glibc, CA certificates, tzdata and a nonroot user (65532), no shell, no
# package manager. The "cc" flavour adds libstdc++/libgcc; ours are copied anyway and take
# precedence through LD_LIBRARY_PATH, so the binary sees exactly the libraries it was built with.
FROM gcr.io/distroless/cc-debian12:nonroot
LABEL org.opencontainers.image.title="gpu-profile-operator" \
      org.opencontainers.image.description="Kubernetes operator: GpuProfiles to DRA DeviceClasses and ResourceClaimTemplates" \
      org.opencontainers.image.version="0.1.0"
COPY --from=build /out/lib/ /usr/lib/gpu-profile-operator/
COPY --from=build /out/gpu-profile-controller /usr/local/bin/gpu-profile-controller
ENV LD_LIBRARY_PATH=/usr/lib/gpu-profile-operator
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gpu-profile-controller"]
