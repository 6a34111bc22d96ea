#!/usr/bin/env bash
# The main job: installs what is missing, builds, and renders the story's GpuProfiles
# (config/samples/profiles) against the example fleet (config/samples/fleet: three A100-40GB
# nodes and two L40S nodes on different drivers), then shows the CEL engine at work.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" gpu-profile-controller
bin=${GPO_BUILD_DIR:-$root/build}/gpu-profile-controller
fleet=$root/config/samples/fleet

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@" || echo "(exit $?)"; }

nv="device.attributes['gpu.nvidia.com']"
guard="device.driver == 'gpu.nvidia.com' && $nv.type == 'gpu'"
mem="'memory' in device.capacity['gpu.nvidia.com'] && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"

samples=$root/config/samples
# What the operator generates and reports for the story's profiles on a 1.34 cluster (v1): node
# groups, DeviceClasses, ResourceClaimTemplates, and every profile with its status.
run "$bin" render -f "$samples/profiles" -f "$samples/namespaces.yaml" -f "$fleet"
# The same fleet as a 1.32 cluster with DRA v1beta1 sees it: only the DeviceClasses.
say "$bin" render --kube-version 1.32 -f "$samples/profiles" -f "$samples/namespaces.yaml" \
  -f "$samples/fleet-v1beta1" "| (DeviceClasses only)"
"$bin" render --kube-version 1.32 -f "$samples/profiles" -f "$samples/namespaces.yaml" \
  -f "$samples/fleet-v1beta1" | awk '/^kind: DeviceClass/{p=1; print prev} /^kind: ResourceClaimTemplate/{p=0} p; {prev=$0}' | sed -n '1,26p'

# Which devices have at least 40 GiB? (the A100-40GB has exactly 40Gi; the L40S reports 46068Mi)
run "$bin" cel match -f "$fleet" "$guard && $mem"
# At least 48 GiB excludes the L40S, whose driver reports 46068Mi (about 44.99 GiB).
run "$bin" cel match -f "$fleet" "$guard && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('48Gi')) >= 0"
# Driver at least 550 and compute capability at least 8.9, as JSON (first two devices shown).
sel="$guard && $nv.driverVersion.compareTo(semver('550.0.0')) >= 0 && $nv.cudaComputeCapability.compareTo(semver('8.9.0')) >= 0"
say "$bin" cel match -o json -f "$fleet" "$sel" "| head -n 17"
"$bin" cel match -o json -f "$fleet" "$sel" | head -n 17
say "$bin" cel match -f "$fleet" "$sel"
"$bin" cel match -f "$fleet" "$sel" | tail -n 5
# Reading an attribute some devices lack is a runtime error, not a silent false.
run "$bin" cel match -f "$fleet" "$nv.addressingMode == 'HMM'"
# What does each Kubernetes version accept?
run "$bin" cel check --kube-version 1.33 "$nv.driverVersion.compareTo(semver('550.0', true)) >= 0"
run "$bin" cel check --kube-version 1.34 "$nv.driverVersion.compareTo(semver('550.0', true)) >= 0"
run "$bin" cel check "device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')"
run "$bin" cel check --kube-version 1.32.1 "$nv.productName.lowerAscii().matches('^.*a100.*\$')"
run "$bin" cel check --kube-version 1.32.3 "$nv.productName.lowerAscii().matches('^.*a100.*\$')"
