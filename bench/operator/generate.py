#!/usr/bin/env python3
"""Generates the operator benchmark's inputs (deterministic, fixed seed).

  generate.py OUT_DIR [--nodes 5000] [--gpus-per-node 8] [--profiles 100] [--namespaces 200]
              [--advanced]

Reuses bench/render/generate_fleet.py for the ResourceSlices (one per node, NVIDIA attributes,
six node types with one or two driver versions each) and for the profiles' device selectors
(memory, product names, compute capability and architectures, driver and CUDA versions,
attributes, raw CEL; every fourth profile with a count), then writes:

  slices.json      one v1 ResourceSliceList, compact, without the Node ownerReferences (the
                   emulator would garbage-collect slices whose owner Node does not exist);
  namespaces.json  a List of NAMESPACES Namespaces, each labelled gpu-profiles=enabled and
                   team=team-<i % 20>;
  profiles.json    a List of PROFILES GpuProfiles. Every profile selects all NAMESPACES
                   namespaces, so profiles x namespaces templates are generated (100 x 200 =
                   20,000): half through a namespaceSelector (matchLabels gpu-profiles=enabled;
                   matchExpressions team Exists; or team In half the teams plus the other half
                   listed in claimTemplate.namespaces), half through an explicit namespaces list.

--advanced adds issue 14's fields to part of the profiles (see advanced_fields; 1.36+ defaults,
or 1.34/1.35 with the DRADeviceTaints, DRAConsumableCapacity and DRAExtendedResource gates),
and changes nothing else: the same slices, namespaces, selectors, counts and claimTemplates as
without it, so the two data sets differ only in those fields.

  generate.py OUT_DIR --claims N [--pending-claims M]

reads OUT_DIR's slices.json and profiles.json (generated before) and writes the ResourceClaims
of run_benchmark.py --claims into OUT_DIR/claims-N-M.json (see write_claims), nothing else.
"""
import argparse
import importlib.util
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_fleet_module():
    spec = importlib.util.spec_from_file_location(
        "generate_fleet", os.path.join(ROOT, "bench", "render", "generate_fleet.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def namespace_names(n):
    return ["team-ns-%03d" % i for i in range(n)]


def teams_of(names):
    return {name: "team-%d" % (i % 20) for i, name in enumerate(names)}


def claim_template(i, names):
    """Every form selects exactly `names` (and nothing else: no other namespace has the labels)."""
    teams = teams_of(names)
    if i % 2 == 1:
        return {"namespaces": list(names)}
    form = (i // 2) % 3
    if form == 0:
        return {"namespaceSelector": {"matchLabels": {"gpu-profiles": "enabled"}}}
    if form == 1:
        return {"namespaceSelector": {"matchExpressions": [
            {"key": "team", "operator": "Exists"}]}}
    half = ["team-%d" % t for t in range(10)]
    return {
        "namespaceSelector": {"matchExpressions": [
            {"key": "team", "operator": "In", "values": half}]},
        "namespaces": [n for n in names if teams[n] not in half],
    }


TOLERATIONS = [{"key": "gpu.nvidia.com/xid", "operator": "Exists", "effect": "NoSchedule"},
               {"key": "example.com/maintenance", "operator": "Equal", "value": "drain",
                "effect": "NoExecute", "tolerationSeconds": 300}]


CHURN_PRODUCT = "NVIDIA L4"   # the device run_benchmark.py's churn adds


def capacity_request_profiles(profiles, n=5):
    """The first n profiles that list productNames without the churn's product (and are no
    fallback profile or target): capacityRequests makes a class select only devices that allow
    multiple allocations, which this fleet has none of, so a profile that counted L4 devices
    would drop out of the churn's affected profiles and the churn figures would compare
    different sets of profiles."""
    out = []
    for i, p in enumerate(profiles):
        names = p["spec"].get("selector", {}).get("productNames")
        if names and CHURN_PRODUCT not in names and i % 10 not in (0, 5, 9) and len(out) < n:
            out.append(i)
    return set(out)


def advanced_fields(i, spec, capacity_request):
    """Issue 14's fields on profile i, by its index (and capacity_request_profiles); no random
    draw, so every other profile and every selector stays as without --advanced. Of 100
    profiles:
      quota            i % 10 == 3 (10): {devicesPerNamespace: 2 + i % 7}, a ResourceQuota in
                       each of their namespaces (10 x 200 = 2,000 quotas);
      extendedResourceName  i % 20 == 3 (5 of the quota profiles, so their quotas also carry
                       requests.<name>): example.com/gpu-profile-NNN, unique;
      sharing          i % 10 == 5 (10): MPS (i % 20 == 5) or TimeSlicing (i % 20 == 15);
      tolerations      i % 10 == 7 (10): the driver's XID taint, and a NoExecute one for 300 s;
      fallback         i % 10 == 9 (10): [profile-(i-9), profile-(i-4)] (i % 10 in 0 and 5:
                       profiles with no fallback or capacityRequests, so no cycle; the second
                       one shares its GPU);
      capacityRequests 5 (capacity_request_profiles: 7, 13, 31, 37 and 61 with the default
                       seed): {memory: 10Gi} (the generated fleet has no device that allows
                       multiple allocations, so these match no device: their class and
                       templates are still written, status.schedulableClaims is 0).
    """
    if i % 10 == 3:
        spec["quota"] = {"devicesPerNamespace": 2 + i % 7}
    if i % 20 == 3:
        spec["extendedResourceName"] = "example.com/gpu-profile-%03d" % i
    if i % 20 == 5:
        spec["sharing"] = {"strategy": "MPS", "mps": {
            "defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10Gi"}}
    elif i % 20 == 15:
        spec["sharing"] = {"strategy": "TimeSlicing", "timeSlicing": {"interval": "Long"}}
    if i % 10 == 7:
        spec["tolerations"] = [dict(t) for t in TOLERATIONS]
    if i % 10 == 9:
        spec["fallback"] = ["profile-%03d" % (i - 9), "profile-%03d" % (i - 4)]
    if capacity_request:
        spec["capacityRequests"] = {"memory": "10Gi"}


def _quantity(q):
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    for u, f in units.items():
        if q.endswith(u):
            return float(q[:-len(u)]) * f
    return float(q)


def _version(v):
    parts = [int(x) for x in v.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def matches(selector, device):
    """Whether a generated profile's selector (bench/render/generate_fleet.py profile(): one
    kind of selector each) selects a device of the generated fleet; the few forms that generator
    writes, evaluated as the operator's compiled CEL does for them."""
    a = {k: list(v.values())[0] for k, v in device["attributes"].items()}
    memory = _quantity(device["capacity"]["memory"]["value"])
    if "memory" in selector:
        m = selector["memory"]
        if "min" in m and memory < _quantity(m["min"]):
            return False
        if "max" in m and memory > _quantity(m["max"]):
            return False
    if "productNames" in selector and a["productName"] not in selector["productNames"]:
        return False
    if "architectures" in selector and a["architecture"] not in selector["architectures"]:
        return False
    if "computeCapability" in selector and (
            _version(a["cudaComputeCapability"]) < _version(selector["computeCapability"]["min"])):
        return False
    if "driverVersion" in selector and (
            _version(a["driverVersion"]) < _version(selector["driverVersion"]["min"])):
        return False
    if "cudaDriverVersion" in selector and (
            _version(a["cudaDriverVersion"]) < _version(selector["cudaDriverVersion"]["min"])):
        return False
    for attr in selector.get("attributes", []):
        name = attr["name"].split("/")[-1]
        if attr["operator"] == "Exists" and name not in a:
            return False
        if attr["operator"] == "In" and a.get(name) not in attr["values"]:
            return False
    for cel in selector.get("cel", []):
        if "!= 'Turing'" not in cel:
            raise ValueError("unknown generated CEL selector %r" % cel)
        if a["architecture"] == "Turing":
            return False
    return True


def claim_object(i, cls, namespace):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "claim-%05d" % i, "namespace": namespace,
                         "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"}},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}}]}}}


def allocation_status(i, device):
    """status as the scheduler writes it (allocation) and the kubelet's pod reserves it."""
    return {"allocation": {
        "devices": {"results": [{"request": "gpu", "driver": device["driver"],
                                 "pool": device["pool"], "device": device["device"]}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{
            "key": "metadata.name", "operator": "In", "values": [device["node"]]}]}]}},
        "reservedFor": [{"resource": "pods", "name": "pod-%05d" % i,
                         "uid": "00000000-2222-4000-8000-%012d" % i}]}


def write_claims(out_dir, allocated, pending, namespaces):
    """ResourceClaims as pods' templates make them and the scheduler allocates them, from the
    profiles' DeviceClasses (a profile's class has its name), each in one of the NAMESPACES:
      - `allocated` claims with status.allocation naming one device of the fleet (driver, pool,
        device; no device twice) that their class selects (matches()), and reservedFor a pod;
      - `pending` claims without status, each with a planned free device its class selects:
        run_benchmark.py's claim churn allocates them in order, writing that device.
    Devices are taken in a fixed shuffled order; each takes the next profile in round robin
    among those whose class selects it. run_benchmark.py's churn allocates pending claims of
    even-numbered profiles and deallocates allocated claims of odd-numbered ones (so each profile's
    allocated count moves one way only), hence pending claims are of even-numbered profiles.
    Writes claims-ALLOCATED-PENDING.json (a List; the seed) and
    claims-ALLOCATED-PENDING-plan.json (the pending claims' planned devices)."""
    with open(os.path.join(out_dir, "slices.json")) as f:
        slices = json.load(f)["items"]
    with open(os.path.join(out_dir, "profiles.json")) as f:
        profiles = json.load(f)["items"]
    names = namespace_names(namespaces)
    devices = []
    for s in slices:
        for d in s["spec"]["devices"]:
            devices.append(({"driver": s["spec"]["driver"], "pool": s["spec"]["pool"]["name"],
                             "node": s["spec"]["nodeName"], "device": d["name"]}, d))
    if allocated + pending > len(devices):
        raise SystemExit("%d claims but %d devices" % (allocated + pending, len(devices)))
    rng = random.Random(20261202)
    rng.shuffle(devices)
    selectors = [(p["metadata"]["name"], p["spec"].get("selector", {})) for p in profiles]
    turn = [0]

    def next_class(device, parity=None):
        for k in range(len(selectors)):
            j = (turn[0] + k) % len(selectors)
            if parity is not None and j % 2 != parity:
                continue
            if matches(selectors[j][1], device):
                turn[0] = j + 1
                return j
        return None

    items, plan = [], []
    it = iter(devices)
    i = 0
    while i < allocated + pending:
        ref, device = next(it)
        j = next_class(device, None if i < allocated else 0)
        if j is None:
            continue
        c = claim_object(i, selectors[j][0], names[i % len(names)])
        if i < allocated:
            c["status"] = allocation_status(i, ref)
        else:
            plan.append({"namespace": c["metadata"]["namespace"], "name": c["metadata"]["name"],
                         "profile": selectors[j][0], "status": allocation_status(i, ref)})
        items.append(c)
        i += 1
    base = os.path.join(out_dir, "claims-%d-%d" % (allocated, pending))
    with open(base + "-plan.json.tmp", "w") as f:
        json.dump(plan, f)
    with open(base + ".json.tmp", "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f,
                  separators=(",", ":"))
    os.rename(base + "-plan.json.tmp", base + "-plan.json")
    os.rename(base + ".json.tmp", base + ".json")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--profiles", type=int, default=100)
    parser.add_argument("--namespaces", type=int, default=200)
    parser.add_argument("--advanced", action="store_true",
                        help="issue 14's fields on part of the profiles (advanced_fields)")
    parser.add_argument("--claims", type=int, default=None,
                        help="only write OUT_DIR/claims-N-M.json (write_claims) from OUT_DIR's "
                             "slices and profiles")
    parser.add_argument("--pending-claims", type=int, default=0)
    args = parser.parse_args()
    if args.claims is not None:
        write_claims(args.out_dir, args.claims, args.pending_claims, args.namespaces)
        return
    fleet = load_fleet_module()
    os.makedirs(args.out_dir, exist_ok=True)
    # The same random sequence as generate_fleet.py: slices first, then the profiles.
    rng = random.Random(20261129)
    items = []
    for n in range(args.nodes):
        s = fleet.slice_for(n, rng, args.gpus_per_node)
        del s["metadata"]["ownerReferences"]
        del s["metadata"]["resourceVersion"]
        items.append(s)
    with open(os.path.join(args.out_dir, "slices.json"), "w") as f:
        json.dump({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList",
                   "metadata": {}, "items": items}, f, separators=(",", ":"))
    names = namespace_names(args.namespaces)
    teams = teams_of(names)
    profiles = []
    for i in range(args.profiles):
        p = fleet.profile(i, rng)
        p["spec"]["claimTemplate"] = claim_template(i, names)
        profiles.append(p)
    if args.advanced:
        capacity = capacity_request_profiles(profiles)
        for i, p in enumerate(profiles):
            advanced_fields(i, p["spec"], i in capacity)
    with open(os.path.join(args.out_dir, "profiles.json"), "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": profiles}, f)
    with open(os.path.join(args.out_dir, "namespaces.json"), "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": n, "labels": {"gpu-profiles": "enabled", "team": teams[n]}}}
            for n in names]}, f)


if __name__ == "__main__":
    main()
