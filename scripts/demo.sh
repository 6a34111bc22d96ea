#!/usr/bin/env bash
# The main job: installs what is missing, builds, and plays the product story live:
#  1. starts kube-emulator (the project's API server emulator, e2e/) as a Kubernetes 1.34 cluster
#     seeded with the CRDs and the example fleet (three A100-40GB nodes, two L40S nodes);
#  2. runs the operator (`gpu-profile-controller run`) against it;
#  3. applies config/samples (namespaces and the story's four GpuProfiles) with kubectl, or with
#     scripts/lib/kube_client.py where kubectl is absent, and waits for every profile to be Ready;
#  4. prints profiles, node groups, DeviceClasses and ResourceClaimTemplates, then lets a new node
#     type (H100) join and shows every matching profile pick it up with no edit;
#  5. shows `render` and the CEL engine (`cel match`, `cel check`) offline.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" gpu-profile-controller kube-emulator
build=${GPO_BUILD_DIR:-$root/build}
bin=$build/gpu-profile-controller
samples=$root/config/samples
fleet=$samples/fleet

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@" || echo "(exit $?)"; }

work=$(mktemp -d)
emulator_pid=""
operator_pid=""
cleanup() {
  [[ -n $operator_pid ]] && kill -TERM "$operator_pid" 2>/dev/null && wait "$operator_pid" 2>/dev/null || true
  [[ -n $emulator_pid ]] && kill -TERM "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The cluster.
say kube-emulator --kube-version 1.34 -f crds -f config/samples/fleet --kubeconfig-out kubeconfig
"$build/e2e/kube-emulator" --kube-version 1.34 --listen 127.0.0.1:0 -f "$root/crds" -f "$fleet" \
  --kubeconfig-out "$work/kubeconfig" >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 100); do [[ -s $work/emulator.out && -s $work/kubeconfig ]] && break; sleep 0.1; done
server=$(head -n1 "$work/emulator.out")
[[ -n $server ]] || { cat "$work/emulator.err"; exit 1; }
echo "serving at $server"

# 2. The operator (logs to $work/operator.log; shown at the end).
say gpu-profile-controller run --kubeconfig kubeconfig --metrics-bind-address 0 \
  --health-probe-bind-address 0
"$bin" run --kubeconfig "$work/kubeconfig" --metrics-bind-address 0 \
  --health-probe-bind-address 0 2>"$work/operator.log" &
operator_pid=$!

# kubectl: the pinned 1.33 client from kubectl's dispatcher directory (it speaks to 1.34 servers),
# else any kubectl, else the project's small Python client.
# KUBECTL=none forces the Python client (to try the path machines without kubectl take).
kubectl_bin=""
if [[ ${KUBECTL:-} == none ]]; then
  :
elif [[ -n ${KUBECTL:-} ]]; then
  kubectl_bin=$KUBECTL
elif command -v kubectl >/dev/null; then
  dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
  if [[ -x $dir/kubectl.1.33 ]]; then kubectl_bin=$dir/kubectl.1.33; else kubectl_bin=$(command -v kubectl); fi
fi
k() {
  if [[ -n $kubectl_bin ]]; then
    "$kubectl_bin" --kubeconfig "$work/kubeconfig" --cache-dir "$work/kube-cache" "$@"
  else
    python3 "$root/scripts/lib/kube_client.py" --server "$server" "$@"
  fi
}
[[ -n $kubectl_bin ]] || echo "(kubectl not found: using scripts/lib/kube_client.py)"

# 3. The platform team's GitOps sync applies the samples.
say kubectl apply -f config/samples/namespaces.yaml -f config/samples/profiles/
k apply -f "$samples/namespaces.yaml" -f "$samples/profiles"
if [[ -n $kubectl_bin ]]; then
  say kubectl wait --for=condition=Ready gpuprofiles --all --timeout=60s
  k wait --for=condition=Ready gpuprofiles --all --timeout=60s
else
  say kube_client.py wait-ready
  k wait-ready --timeout 60
fi

# 4. What the operator made of it.
show() {
  for r in gpuprofiles gpunodegroups deviceclasses; do say kubectl get "$r"; k get "$r"; done
  say kubectl get resourceclaimtemplates -A
  if [[ -n $kubectl_bin ]]; then k get resourceclaimtemplates -A; else k get resourceclaimtemplates; fi
}
show
if [[ -n $kubectl_bin ]]; then
  say kubectl get gpuprofiles large-memory -o yaml "| (status)"
  k get gpuprofiles large-memory -o yaml | sed -n '/^status:/,$p'
  say kubectl get events "| (what the operator did)"
  k get events -A
fi

# A new node type joins: the H100 node registers, its DRA driver publishes a ResourceSlice owned
# by the Node (the slice names the Node's uid, which the API server assigned).
say kubectl apply -f config/samples/fleet-h100/node.yaml
k apply -f "$samples/fleet-h100/node.yaml"
node_uid=$(python3 - "$server" <<'PY'
import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/nodes/h100-node-1"))["metadata"]["uid"])
PY
)
say kubectl apply -f config/samples/fleet-h100/resourceslice-h100-node-1.v1.yaml
sed "s/uid: 5d1f6a8e-0000-4000-8000-000000000006/uid: $node_uid/" \
  "$samples/fleet-h100/resourceslice-h100-node-1.v1.yaml" | k apply -f -
for _ in $(seq 100); do
  devices=$(python3 - "$server" <<'PY'
import json, sys, urllib.request
p = json.load(urllib.request.urlopen(sys.argv[1] + "/apis/gpuprofile.io/v1alpha1/gpuprofiles/large-memory"))
print(p.get("status", {}).get("matchedDevices", 0))
PY
)
  [[ $devices -ge 20 ]] && break
  sleep 0.1
done
for r in gpuprofiles gpunodegroups; do say kubectl get "$r"; k get "$r"; done

say "operator log"
cat "$work/operator.log"

# 5. Offline: `render` computes the same objects for GitOps previews, and the CEL engine answers
# "which devices does this select" and "will Kubernetes X accept it".
nv="device.attributes['gpu.nvidia.com']"
guard="device.driver == 'gpu.nvidia.com' && $nv.type == 'gpu'"
say "$bin" render --kube-version 1.32 -f config/samples/profiles -f config/samples/namespaces.yaml \
  -f config/samples/fleet-v1beta1 "| (the large-memory DeviceClass, v1beta1)"
"$bin" render --kube-version 1.32 -f "$samples/profiles" -f "$samples/namespaces.yaml" \
  -f "$samples/fleet-v1beta1" 2>/dev/null | python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "DeviceClass" and d["metadata"]["name"] == "large-memory":
        print(yaml.safe_dump(d, sort_keys=False, width=200), end="")'
# At least 48 GiB excludes the L40S, whose driver reports 46068Mi (about 44.99 GiB).
run "$bin" cel match -f "$fleet" "$guard && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('48Gi')) >= 0"
# Reading an attribute some devices lack is a runtime error, not a silent false.
run "$bin" cel match -f "$fleet" "$nv.addressingMode == 'HMM'"
# What does each Kubernetes version accept?
run "$bin" cel check --kube-version 1.33 "$nv.driverVersion.compareTo(semver('550.0', true)) >= 0"
run "$bin" cel check --kube-version 1.34 "$nv.driverVersion.compareTo(semver('550.0', true)) >= 0"
run "$bin" cel check "device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')"
