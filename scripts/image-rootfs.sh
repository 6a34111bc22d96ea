#!/usr/bin/env bash
# Lays out the root file system of the runtime image in OUT_DIR from a built
# gpu-profile-controller: the binary with its debug info stripped, every shared library ldd
# resolves (glibc and its loader included, each at the path ldd names, so the binary starts with
# no LD_LIBRARY_PATH and no ld.so.cache), the CA bundle, and /etc/passwd and /etc/group entries
# for the non-root user 65532. No shell, no package manager, nothing else.
#
#   scripts/image-rootfs.sh BINARY OUT_DIR
#
# Used by scripts/image.sh (on the build machine, with the binary scripts/build.sh made) and by
# the multi-stage Dockerfile (in its build stage), so both images have the same layout.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BINARY OUT_DIR" >&2
  exit 2
fi
binary=$1
out=$2
ca_bundle=/etc/ssl/certs/ca-certificates.crt

[ -x "$binary" ] || { echo "$0: $binary: not an executable" >&2; exit 1; }
[ -f "$ca_bundle" ] || { echo "$0: $ca_bundle missing (install ca-certificates)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/usr/local/bin" "$out/etc/ssl/certs" "$out/tmp"
chmod 1777 "$out/tmp"
strip --strip-debug -o "$out/usr/local/bin/gpu-profile-controller" "$binary"

lddout=$(ldd "$out/usr/local/bin/gpu-profile-controller")
if grep -q 'not found' <<<"$lddout"; then
  echo "$0: unresolved libraries:" >&2
  grep 'not found' <<<"$lddout" >&2
  exit 1
fi
# "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (...)"
# (the loader). linux-vdso has no file.
libs=$(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$lddout" | sort -u)
[ -n "$libs" ] || { echo "$0: ldd listed no libraries" >&2; exit 1; }
for lib in $libs; do
  # Keep the path as ldd names it: the loader is where PT_INTERP says, the libraries are in the
  # loader's default directories.
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
done

cp -L "$ca_bundle" "$out$ca_bundle"
printf 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n' >"$out/etc/passwd"
printf 'nonroot:x:65532:\n' >"$out/etc/group"
