#!/usr/bin/env python3
"""Writes the ResourceSlice corpus under nvidia-1.35/ and k8s-1.37/, and corpus-expectations.json.

    python3 test/testdata/dra/generate_corpus.py          # rewrite the files
    python3 test/testdata/dra/generate_corpus.py --check  # fail if a file differs from its rewrite

The slices follow how the NVIDIA DRA driver (gpu.nvidia.com, kubelet plugin with its DynamicMIG
gate) builds them, restated here from its behaviour: one counter set `gpu-<minor>-counter-set`
per GPU whose counters are the largest MIG capacity of each kind (counter names are the capacity
names in DNS-label form: copyEngines -> copy-engines) plus one `memory-slice-<i>` counter of 1 per
memory slice; the full GPU consumes all of it; each MIG placement
`gpu-<minor>-mig-<profile without dots>-<profileId>-<placementStart>` consumes its profile's
capacities and the memory slices of its placement. On Kubernetes 1.35+ the driver publishes one
counters-only slice and one devices slice per GPU; on 1.34 one slice per GPU with both.

Every file is checked here against the API server rules of the release it names (the limits
below), and the expectations are counted from the files as written, read back from disk.
Numbers (MIG profile table of an A100-SXM4-40GB as nvidia-smi lists it, UUIDs, PCI addresses,
driver versions) are illustrative.
"""

import argparse
import copy
import hashlib
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = "gpu.nvidia.com"
NVIDIA_DIR = "nvidia-1.35"
K137_DIR = "k8s-1.37"

# ---------------------------------------------------------------------------------------------
# Hardware model

# name, GI profile id, multiprocessors, copy engines, decoders, encoders, jpeg, ofa, memory (MiB),
# placement starts, placement size (memory slices).
A100_40GB_PROFILES = [
    ("1g.5gb", 19, 14, 1, 0, 0, 0, 0, 4864, [0, 1, 2, 3, 4, 5, 6], 1),
    ("1g.5gb+me", 20, 14, 1, 1, 0, 1, 1, 4864, [0, 1, 2, 3, 4, 5, 6], 1),
    ("1g.10gb", 15, 14, 1, 1, 0, 0, 0, 9856, [0, 2, 4, 6], 2),
    ("2g.10gb", 14, 28, 2, 1, 0, 0, 0, 9856, [0, 2, 4], 2),
    ("3g.20gb", 9, 42, 3, 2, 0, 0, 0, 20096, [0, 4], 4),
    ("4g.20gb", 5, 56, 4, 2, 0, 0, 0, 20096, [0], 4),
    ("7g.40gb", 0, 98, 7, 5, 0, 1, 1, 40192, [0], 8),
]

A100 = {
    "productName": "NVIDIA A100-SXM4-40GB",
    "brand": "Nvidia",
    "architecture": "Ampere",
    "cudaComputeCapability": "8.0.0",
    "memory_bytes": 40960 * 1024 * 1024,  # the full framebuffer (legacy, non-MIG path)
    "profiles": A100_40GB_PROFILES,
}

DRIVER_VERSION = "580.95.5"  # NVML "580.95.05"; the driver's semver drops the leading zero
CUDA_DRIVER_VERSION = "13.0.0"


def fake_uuid(seed, prefix=""):
    h = hashlib.sha256(seed.encode()).hexdigest()
    return f"{prefix}{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def suffix(seed):
    """A generateName-style 5-character suffix, deterministic."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    n = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    out = ""
    for _ in range(5):
        out += alphabet[n % len(alphabet)]
        n //= len(alphabet)
    return out


def gpus_of_node(node):
    return [
        {"minor": 0, "uuid": fake_uuid(node + "/0", "GPU-"), "pci": "0000:07:00.0",
         "root": "pci0000:00", "numa": 0, **A100},
        {"minor": 1, "uuid": fake_uuid(node + "/1", "GPU-"), "pci": "0000:87:00.0",
         "root": "pci0000:80", "numa": 1, **A100},
    ]


def mib(n):
    return f"{n}Mi" if n % 1024 else f"{n // 1024}Gi"


def camel_to_dns(name):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name).lower()


def profile_capacity(p):
    _, _, sm, ce, dec, enc, jpg, ofa, mem, _, _ = p
    return {"multiprocessors": str(sm), "copyEngines": str(ce), "decoders": str(dec),
            "encoders": str(enc), "jpegEngines": str(jpg), "ofaEngines": str(ofa),
            "memory": mib(mem)}


def quantity_value(q):
    m = re.fullmatch(r"(\d+)(Mi|Gi)?", q)
    return int(m.group(1)) * {None: 1, "Mi": 1 << 20, "Gi": 1 << 30}[m.group(2)]


def max_capacity(gpu):
    best = {}
    for p in gpu["profiles"]:
        for k, v in profile_capacity(p).items():
            if k not in best or quantity_value(v) > quantity_value(best[k]):
                best[k] = v
    return best


def memory_slices(gpu):
    return max(p[10] for p in gpu["profiles"])


def counters(capacity, first_slice, slice_count):
    out = {camel_to_dns(k): {"value": v} for k, v in capacity.items()}
    for i in range(first_slice, first_slice + slice_count):
        out[f"memory-slice-{i}"] = {"value": "1"}
    return out


def counter_set_name(gpu):
    return f"gpu-{gpu['minor']}-counter-set"


def common_attributes(gpu, numa_list):
    attrs = {
        "productName": {"string": gpu["productName"]},
        "brand": {"string": gpu["brand"]},
        "architecture": {"string": gpu["architecture"]},
        "cudaComputeCapability": {"version": gpu["cudaComputeCapability"]},
        "driverVersion": {"version": DRIVER_VERSION},
        "cudaDriverVersion": {"version": CUDA_DRIVER_VERSION},
        "resource.kubernetes.io/pciBusID": {"string": gpu["pci"]},
        "resource.kubernetes.io/pcieRoot": {"string": gpu["root"]},
        # The driver's DRAListTypeAttributes gate publishes the NUMA node as a one-element list.
        "resource.kubernetes.io/numaNode": ({"ints": [gpu["numa"]]} if numa_list
                                            else {"int": gpu["numa"]}),
    }
    return attrs


def full_gpu(gpu, numa_list, partitionable):
    attrs = {"type": {"string": "gpu"}, "uuid": {"string": gpu["uuid"]}}
    attrs.update(common_attributes(gpu, numa_list))
    dev = {"name": f"gpu-{gpu['minor']}", "attributes": attrs}
    if partitionable:
        cap = max_capacity(gpu)
        dev["capacity"] = {k: {"value": v} for k, v in cap.items()}
        dev["consumesCounters"] = [{"counterSet": counter_set_name(gpu),
                                    "counters": counters(cap, 0, memory_slices(gpu))}]
    else:
        dev["capacity"] = {"memory": {"value": mib(gpu["memory_bytes"] >> 20)}}
    return dev


def mig_devices(gpu, numa_list):
    out = []
    for p in gpu["profiles"]:
        name, pid, *_rest = p
        starts, size = p[9], p[10]
        dns_profile = re.sub(r"[^a-z0-9-]", "-", name.replace(".", "").lower()).strip("-")
        for start in starts:
            attrs = {"type": {"string": "mig"}, "parentUUID": {"string": gpu["uuid"]},
                     "profile": {"string": name}}
            attrs.update(common_attributes(gpu, numa_list))
            cap = profile_capacity(p)
            out.append({
                "name": f"gpu-{gpu['minor']}-mig-{dns_profile}-{pid}-{start}",
                "attributes": attrs,
                "capacity": {k: {"value": v} for k, v in cap.items()},
                "consumesCounters": [{"counterSet": counter_set_name(gpu),
                                      "counters": counters(cap, start, size)}],
            })
    return out


def gpu_devices(gpu, numa_list):
    devices = [full_gpu(gpu, numa_list, True)] + mig_devices(gpu, numa_list)
    return sorted(devices, key=lambda d: d["name"])  # the driver sorts by device name


def counter_set(gpu):
    return {"name": counter_set_name(gpu),
            "counters": counters(max_capacity(gpu), 0, memory_slices(gpu))}


# ---------------------------------------------------------------------------------------------
# Objects

def metadata(node, seed, node_owner=True):
    name_prefix = f"{node}-{DRIVER}-"
    # Only what a create accepts: no resourceVersion, uid or creationTimestamp.
    meta = {"name": name_prefix + suffix(seed), "generateName": name_prefix}
    if node_owner:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node,
                                    "uid": fake_uuid("node/" + node), "controller": True}]
    return meta


def slice_object(meta, spec):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": meta,
            "spec": spec}


def split_slices(node, publish, numa_list, taint_full_gpu=None):
    """What the driver publishes on 1.35+: counters-only slice first, then one per GPU."""
    gpus = gpus_of_node(node)
    count = len(gpus) + 1
    pool = {"name": node, "generation": 1, "resourceSliceCount": count}
    out = [slice_object(metadata(node, f"{publish}/counters"),
                        {"driver": DRIVER, "nodeName": node, "pool": dict(pool),
                         "sharedCounters": [counter_set(g) for g in gpus]})]
    for i, g in enumerate(gpus):
        devices = gpu_devices(g, numa_list)
        if taint_full_gpu is not None and g["minor"] == taint_full_gpu:
            for d in devices:
                if d["name"] == f"gpu-{g['minor']}":
                    d["taints"] = [{"key": f"{DRIVER}/xid", "value": "79", "effect": "NoSchedule",
                                    "timeAdded": "2026-11-30T09:03:17Z"}]
        out.append(slice_object(metadata(node, f"{publish}/gpu-{i}"),
                                {"driver": DRIVER, "nodeName": node, "pool": dict(pool),
                                 "devices": devices}))
    return out


def combined_slices(node, publish):
    """What the driver publishes on 1.34: one slice per GPU with its counters and devices."""
    gpus = gpus_of_node(node)
    pool = {"name": node, "generation": 1, "resourceSliceCount": len(gpus)}
    return [slice_object(metadata(node, f"{publish}/gpu-{i}"),
                         {"driver": DRIVER, "nodeName": node, "pool": dict(pool),
                          "sharedCounters": [counter_set(g)],
                          "devices": gpu_devices(g, False)})
            for i, g in enumerate(gpus)]


def consumable_slice(node, publish):
    """Driver without DynamicMIG, with its ConsumableShares gate and `--consumable-shares=4`:
    every full GPU may be allocated many times; memory in 1Mi steps, plus 4 shares."""
    gpus = gpus_of_node(node)
    devices = []
    for g in gpus:
        d = full_gpu(g, False, False)
        memory = d["capacity"]["memory"]["value"]
        d["allowMultipleAllocations"] = True
        d["capacity"]["memory"]["requestPolicy"] = {
            "default": "0", "validRange": {"min": "0", "max": memory, "step": "1Mi"}}
        d["capacity"]["shares"] = {"value": "4", "requestPolicy": {
            "default": "1", "validRange": {"min": "1", "max": "4", "step": "1"}}}
        devices.append(d)
    return [slice_object(metadata(node, publish),
                         {"driver": DRIVER, "nodeName": node,
                          "pool": {"name": node, "generation": 3, "resourceSliceCount": 1},
                          "devices": devices})]


FABRIC_DRIVER = "fabric.gpu.example.com"


def fabric_gpu(index, pool):
    return {
        "name": f"fgpu-{index}",
        "attributes": {
            "type": {"string": "gpu"},
            "uuid": {"string": fake_uuid(f"{pool}/{index}", "GPU-")},
            "productName": {"string": "NVIDIA H100 80GB HBM3"},
            "architecture": {"string": "Hopper"},
            "cudaComputeCapability": {"version": "9.0.0"},
            "driverVersion": {"version": DRIVER_VERSION},
            "chassis": {"string": "chassis-3"},
            "slot": {"int": index},
        },
        "capacity": {"memory": {"value": "80Gi"}},
    }


def fabric_meta(pool, seed):
    return {"name": f"{pool}-{suffix(seed)}"}


RACK_SELECTOR = {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "topology.example.com/rack", "operator": "In", "values": ["rack-7"]}]}]}


def fabric_allnodes():
    pool = "fabric-pool-all"
    return [slice_object(fabric_meta(pool, "allnodes"), {
        "driver": FABRIC_DRIVER, "allNodes": True,
        "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
        "devices": [fabric_gpu(i, pool) for i in range(3)]})]


def fabric_nodeselector():
    pool = "fabric-pool-rack-7"
    return [slice_object(fabric_meta(pool, "nodeselector"), {
        "driver": FABRIC_DRIVER, "nodeSelector": copy.deepcopy(RACK_SELECTOR),
        "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
        "devices": [fabric_gpu(i, pool) for i in range(4)]})]


def fabric_per_device():
    """Composable (fabric-attached) GPUs: some already attached to a node, others attachable to
    any node (or any node of a rack) and bound to it only once the fabric reports them attached."""
    pool = "fabric-pool-composable"
    devs = [fabric_gpu(i, pool) for i in range(5)]
    devs[0]["nodeName"] = "worker-a"
    devs[1]["nodeName"] = "worker-b"
    devs[1]["taints"] = [{"key": "fabric.gpu.example.com/link-degraded", "value": "lane-3",
                          "effect": "NoExecute", "timeAdded": "2026-11-30T10:20:00Z"}]
    devs[2]["nodeName"] = "worker-a"
    devs[2]["taints"] = [{"key": "fabric.gpu.example.com/maintenance", "effect": "None",
                          "timeAdded": "2026-11-30T10:21:00Z"}]
    for d, where in ((devs[3], "all"), (devs[4], "rack")):
        if where == "all":
            d["allNodes"] = True
        else:
            d["nodeSelector"] = copy.deepcopy(RACK_SELECTOR)
        d["bindsToNode"] = True
        d["bindingConditions"] = ["fabric.gpu.example.com/attached"]
        d["bindingFailureConditions"] = ["fabric.gpu.example.com/attach-failed"]
    return [slice_object(fabric_meta(pool, "perdevice"), {
        "driver": FABRIC_DRIVER, "perDeviceNodeSelection": True,
        "pool": {"name": pool, "generation": 2, "resourceSliceCount": 1},
        "devices": devs})]


def unknown_fields():
    """A newer server's view of an NVIDIA-style node: fields and an attribute kind that no release
    up to 1.37 has, next to 1.37 alpha fields that this project does not model."""
    node = "future-node-1"
    gpus = gpus_of_node(node)[:1]
    g = gpus[0]
    pool = {"name": node, "generation": 1, "resourceSliceCount": 2,
            "futurePoolField": "ignored"}
    counters_slice = slice_object(metadata(node, "future/counters"),
                                  {"driver": DRIVER, "nodeName": node, "pool": dict(pool),
                                   "sharedCounters": [counter_set(g)],
                                   "futureSpecField": {"nested": [1, 2, {"deep": True}]}})
    counters_slice["futureTopLevelField"] = "ignored"
    cs = counters_slice["spec"]["sharedCounters"][0]
    cs["futureCounterSetField"] = 7
    cs["counters"]["memory"]["futureCounterField"] = "ignored"
    counters_slice["metadata"]["futureMetadataField"] = {"x": "y"}

    full = full_gpu(g, True, True)
    mig = mig_devices(g, True)[-1]  # 7g.40gb
    full["attributes"]["gpu.nvidia.com/powerLimit"] = {"floats": [1.5]}  # a kind 1.37 lacks
    full["attributes"]["clockRatio"] = {"int": 3, "futureUnit": "percent"}  # known kind + extra
    full["futureDeviceField"] = {"a": [True, None, 1.25]}
    full["capacity"]["memory"]["futureCapacityField"] = "ignored"
    full["consumesCounters"][0]["compatibilityGroups"] = ["whole-gpu"]  # 1.37 alpha
    full["consumesCounters"][0]["futureConsumptionField"] = 1
    full["taints"] = [{"key": f"{DRIVER}/gpu-lost", "effect": "NoSchedule",
                       "timeAdded": "2026-11-30T11:00:00Z", "futureTaintField": "x"}]
    mig["taints"] = [{"key": f"{DRIVER}/future-check", "effect": "FutureEffect",
                      "timeAdded": "2026-11-30T11:00:00Z"}]
    devices_slice = slice_object(metadata(node, "future/gpu-0"), {
        "driver": DRIVER, "nodeName": node, "pool": dict(pool),
        "partitionTypeAttribute": "gpu.nvidia.com/profile",  # 1.37 alpha
        "devices": sorted([full, mig], key=lambda d: d["name"]),
        "futureSpecList": [{"name": "x"}]})
    devices_slice["status"] = {"futureStatus": True}
    return [counters_slice, devices_slice]


# ---------------------------------------------------------------------------------------------
# Rendering per API version

DEVICE_BASIC_FIELDS = ("attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector",
                       "allNodes", "taints", "bindsToNode", "bindingConditions",
                       "bindingFailureConditions", "allowMultipleAllocations")


def as_version(obj, version):
    obj = copy.deepcopy(obj)
    obj["apiVersion"] = f"resource.k8s.io/{version}"
    if version == "v1beta1":
        devices = []
        for d in obj["spec"].get("devices", []):
            basic = {k: d.pop(k) for k in DEVICE_BASIC_FIELDS if k in d}
            devices.append({**d, "basic": basic})
        if "devices" in obj["spec"]:
            obj["spec"]["devices"] = devices
    return obj


# ---------------------------------------------------------------------------------------------
# API server rules (facts sheet; kubernetes validation of the release)

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
                    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$")
KNOWN_ATTRIBUTE_KINDS = {"int", "bool", "string", "version"}
LIST_ATTRIBUTE_KINDS = {"ints", "bools", "strings", "versions"}


def device_fields(device):
    return device.get("basic", device)


def check_objects(path, objects, minor, allow_unknown=False):
    """Raises on anything the API server of 1.<minor> would reject (for the rules modelled)."""
    problems = []

    def bad(where, msg):
        problems.append(f"{path}: {where}: {msg}")

    pools = {}
    for obj in objects:
        name = obj["metadata"]["name"]
        spec = obj["spec"]
        where = f"ResourceSlice {name}"
        pools.setdefault((spec["driver"], spec["pool"]["name"]), []).append(obj)
        node_fields = [f for f in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
                       if spec.get(f) not in (None, False, "")]
        if len(node_fields) != 1:
            bad(where, f"exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection: "
                       f"{node_fields}")
        if "nodeSelector" in spec and len(spec["nodeSelector"]["nodeSelectorTerms"]) != 1:
            bad(where, "nodeSelector must have exactly one term")
        devices = spec.get("devices", [])
        sets = spec.get("sharedCounters", [])
        if minor >= 35 and "devices" in spec and "sharedCounters" in spec:
            bad(where, "only one of sharedCounters or devices (1.35+)")
        if minor >= 35 and len(sets) > 8:
            bad(where, "more than 8 counter sets")
        total_counters = sum(len(s["counters"]) for s in sets)
        if minor == 34 and total_counters > 32:
            bad(where, "more than 32 counters in all sets (1.34)")
        for s in sets:
            if not DNS_LABEL.match(s["name"]) or not s["counters"] or len(s["counters"]) > 32:
                bad(where, f"counter set {s['name']}")
            for c in s["counters"]:
                if not DNS_LABEL.match(c):
                    bad(where, f"counter name {c}")
        if len({s["name"] for s in sets}) != len(sets):
            bad(where, "duplicate counter set")
        advanced = any(device_fields(d).get("taints") or device_fields(d).get("consumesCounters")
                       or any(k in LIST_ATTRIBUTE_KINDS
                              for a in device_fields(d).get("attributes", {}).values() for k in a)
                       for d in devices)
        limit = 64 if (advanced and minor >= 35) else 128
        if len(devices) > limit:
            bad(where, f"{len(devices)} devices, limit {limit}")
        if len({d["name"] for d in devices}) != len(devices):
            bad(where, "duplicate device names")
        consumed_entries = 0
        for d in devices:
            f = device_fields(d)
            dw = f"{where} device {d['name']}"
            if not DNS_LABEL.match(d["name"]):
                bad(dw, "name is not a DNS label")
            attrs, caps = f.get("attributes", {}), f.get("capacity", {})
            if len(attrs) + len(caps) > 32:
                bad(dw, "more than 32 attributes and capacities")
            values = 0
            for an, av in attrs.items():
                ident = an.split("/")[-1]
                if not C_IDENT.match(ident):
                    bad(dw, f"attribute name {an}")
                kinds = [k for k in av if k in KNOWN_ATTRIBUTE_KINDS | LIST_ATTRIBUTE_KINDS]
                if len(kinds) != 1 and not (allow_unknown and not kinds):
                    bad(dw, f"attribute {an} must have exactly one value: {av}")
                for k in kinds:
                    if k in LIST_ATTRIBUTE_KINDS:
                        if minor < 36:
                            bad(dw, f"list attribute {an} needs 1.36+")
                        if not av[k]:
                            bad(dw, f"empty list attribute {an}")
                        items = av[k]
                    else:
                        items = [av[k]]
                    values += len(items)
                    for item in items:
                        if k in ("string", "strings", "version", "versions") and len(item) > 64:
                            bad(dw, f"attribute {an} longer than 64")
                        if k in ("version", "versions") and not SEMVER.match(item):
                            bad(dw, f"attribute {an} is not semver")
            if values > 48:
                bad(dw, "more than 48 attribute values")
            multi = f.get("allowMultipleAllocations") is True
            for cn, cv in caps.items():
                if not C_IDENT.match(cn.split("/")[-1]):
                    bad(dw, f"capacity name {cn}")
                rp = cv.get("requestPolicy")
                if rp is None:
                    continue
                if not multi:
                    bad(dw, f"capacity {cn}: requestPolicy needs allowMultipleAllocations")
                rng, value = rp.get("validRange"), quantity_value(cv["value"])
                if rng:
                    lo, step = quantity_value(rng["min"]), quantity_value(rng.get("step", "0"))
                    hi = quantity_value(rng["max"]) if "max" in rng else None
                    default = quantity_value(rp["default"])
                    if lo > value or default < lo or (hi is not None and (hi > value or default > hi
                                                                         or lo > hi)):
                        bad(dw, f"capacity {cn}: range")
                    if step and (lo + step > value or (default - lo) % step
                                 or (hi is not None and (hi - lo) % step)):
                        bad(dw, f"capacity {cn}: step")
            taints = f.get("taints", [])
            if len(taints) > (16 if minor >= 35 else 4):
                bad(dw, "too many taints")
            for t in taints:
                if t["effect"] not in ("None", "NoSchedule", "NoExecute") and not allow_unknown:
                    bad(dw, f"taint effect {t['effect']}")
            ccs = f.get("consumesCounters", [])
            if len(ccs) > (2 if minor >= 35 else 32):
                bad(dw, "too many counter consumptions")
            for cc in ccs:
                consumed_entries += len(cc["counters"])
                if len(cc["counters"]) > 32:
                    bad(dw, "more than 32 counters consumed from one set")
                if minor == 34 and cc["counterSet"] not in {s["name"] for s in sets}:
                    bad(dw, f"counter set {cc['counterSet']} not in this slice (1.34)")
            per_device = [k for k in ("nodeName", "nodeSelector", "allNodes")
                          if f.get(k) not in (None, False, "")]
            if spec.get("perDeviceNodeSelection"):
                if len(per_device) != 1:
                    bad(dw, "exactly one of nodeName, nodeSelector, allNodes per device")
            elif per_device:
                bad(dw, "device node fields need perDeviceNodeSelection")
            for k in ("bindingConditions", "bindingFailureConditions"):
                if len(f.get(k, [])) > 4:
                    bad(dw, f"more than 4 {k}")
            if set(f.get("bindingConditions", [])) & set(f.get("bindingFailureConditions", [])):
                bad(dw, "binding conditions overlap")
        if minor == 34 and consumed_entries > 1024:
            bad(where, "more than 1024 consumed counters in the slice (1.34)")

    for (driver, pool), slices in pools.items():
        counts = {s["spec"]["pool"]["resourceSliceCount"] for s in slices}
        if counts != {len(slices)}:
            bad(f"pool {pool}", f"resourceSliceCount {counts} but {len(slices)} slices in the file")
        sets = {}
        for s in slices:
            for cs in s["spec"].get("sharedCounters", []):
                if cs["name"] in sets:
                    bad(f"pool {pool}", f"counter set {cs['name']} twice in the pool")
                sets[cs["name"]] = {k: quantity_value(v["value"]) for k, v in cs["counters"].items()}
        for s in slices:
            for d in s["spec"].get("devices", []):
                for cc in device_fields(d).get("consumesCounters", []):
                    have = sets.get(cc["counterSet"])
                    if have is None:
                        bad(f"pool {pool}", f"{d['name']}: unknown counter set {cc['counterSet']}")
                        continue
                    for k, v in cc["counters"].items():
                        if k not in have or quantity_value(v["value"]) > have[k]:
                            bad(f"pool {pool}", f"{d['name']}: counter {k} exceeds its set")
    if problems:
        raise SystemExit("\n".join(problems))


# ---------------------------------------------------------------------------------------------
# Files

def header(lines):
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def dump_yaml(objects, comment):
    docs = [yaml.safe_dump(o, sort_keys=True, default_flow_style=False, width=100)
            for o in objects]
    return header(comment) + "---\n".join(docs)


def dump_list_json(objects, indent=4):
    """As `kubectl get -o json` prints several objects (indent 4), or compact (indent None)."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                       "items": objects}, indent=indent, sort_keys=True) + "\n"


def dump_typed_list_json(objects, version):
    items = []
    for o in objects:
        o = copy.deepcopy(o)
        del o["apiVersion"], o["kind"]
        items.append(o)
    return json.dumps({"apiVersion": f"resource.k8s.io/{version}", "kind": "ResourceSliceList",
                       "metadata": {"resourceVersion": "71003"}, "items": items},
                      separators=(",", ":"), sort_keys=True) + "\n"


def corpus():
    """(relative path, objects, release minor for the checks, text, allow unknown)."""
    files = []
    node = "a100-mig-node-1"
    s134 = combined_slices(node, "k8s-1.34")
    files.append((f"{NVIDIA_DIR}/dynamicmig-a100x2.k8s-1.34.v1.yaml", s134, 34, dump_yaml(s134, [
        "NVIDIA DRA driver, DynamicMIG gate on, Kubernetes 1.34 (resource.k8s.io/v1, gate",
        "DRAPartitionableDevices on): one slice per GPU holding its counter set and its devices",
        "(full GPU + every MIG placement). Node with 2x A100-SXM4-40GB. See README.md."]), False))
    s135 = split_slices(node, "k8s-1.35", numa_list=False)
    files.append((f"{NVIDIA_DIR}/dynamicmig-a100x2.k8s-1.35.v1.yaml", s135, 35, dump_yaml(s135, [
        "NVIDIA DRA driver, DynamicMIG gate on, Kubernetes 1.35 (resource.k8s.io/v1, gate",
        "DRAPartitionableDevices on): a counters-only slice (one counter set per GPU) and one",
        "devices slice per GPU; resourceSliceCount 3 counts the counters-only slice.",
        "numaNode is a scalar int (driver's DRAListTypeAttributes gate off). See README.md."]),
        False))
    s136 = split_slices(node, "k8s-1.36", numa_list=True, taint_full_gpu=1)
    comment = [
        "NVIDIA DRA driver, DynamicMIG and DRAListTypeAttributes gates on, Kubernetes 1.36+",
        "(gates DRAListTypeAttributes on; DRAPartitionableDevices and DRADeviceTaints are beta, on",
        "by default): the 1.35 shape with numaNode as a one-element `ints` list and an XID 79",
        "NoSchedule health taint on the full GPU gpu-1. Rendered as resource.k8s.io/{v}."]
    for v in ("v1", "v1beta2", "v1beta1"):
        objs = [as_version(o, v) for o in s136]
        files.append((f"{NVIDIA_DIR}/dynamicmig-a100x2-numalist-taint.k8s-1.36.{v}.yaml", objs,
                      36, dump_yaml(objs, [c.replace("{v}", v) for c in comment]), False))
    files.append((f"{NVIDIA_DIR}/dynamicmig-a100x2-numalist-taint.k8s-1.36.list.json", s136, 36,
                  dump_list_json(s136), False))
    cons = consumable_slice("a100-shared-node-2", "consumable")
    files.append((f"{NVIDIA_DIR}/consumable-shares-a100x2.k8s-1.36.v1.yaml", cons, 36, dump_yaml(
        cons, ["NVIDIA DRA driver without DynamicMIG, ConsumableShares gate on and",
               "--consumable-shares=4, Kubernetes 1.36+ (DRAConsumableCapacity beta, on by default):",
               "two full GPUs with allowMultipleAllocations, memory consumable in 1Mi steps and a",
               "`shares` capacity of 4. See README.md."]), False))

    for name, objs, text in (
            ("fabric-allnodes.k8s-1.37.v1.yaml", fabric_allnodes(),
             ["A pool of fabric-attached GPUs reachable from every node: spec.allNodes, no",
              "nodeName. Kubernetes 1.37, resource.k8s.io/v1. See README.md."]),
            ("fabric-nodeselector.k8s-1.37.v1.yaml", fabric_nodeselector(),
             ["A pool of GPUs reachable from the nodes of one rack: spec.nodeSelector (one term).",
              "Kubernetes 1.37, resource.k8s.io/v1. See README.md."]),
            ("fabric-per-device.k8s-1.37.v1.yaml", fabric_per_device(),
             ["Composable GPUs with perDeviceNodeSelection: devices carry nodeName, allNodes or",
              "nodeSelector themselves; attachable ones use bindsToNode and binding conditions;",
              "taints NoExecute and None. Kubernetes 1.37 (DRADeviceBindingConditions and",
              "DRAResourceClaimDeviceStatus on), resource.k8s.io/v1. See README.md."])):
        files.append((f"{K137_DIR}/{name}", objs, 37, dump_yaml(objs, text), False))
    per_device = fabric_per_device()
    files.append((f"{K137_DIR}/fabric-per-device.k8s-1.37.v1.list.json", per_device, 37,
                  dump_typed_list_json(per_device, "v1"), False))
    fut = unknown_fields()
    files.append((f"{K137_DIR}/unknown-fields.newer-than-1.37.v1.yaml", fut, 37, dump_yaml(fut, [
        "NOT valid for any released API server: what a server newer than 1.37 could serve.",
        "Unknown members at every level (metadata, spec, pool, counter sets, devices, capacities,",
        "taints, status), an attribute of an unknown kind ({floats: [1.5]}), a known kind with an",
        "extra member, a taint effect no release defines, and the 1.37 alpha fields",
        "partitionTypeAttribute and consumesCounters[].compatibilityGroups. See README.md."]), True))
    files.append((f"{K137_DIR}/unknown-fields.newer-than-1.37.v1.list.json", fut, 37,
                  dump_typed_list_json(fut, "v1"), True))
    return files


FUZZ_SEEDS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "fuzz", "reader_corpus"))


def trimmed(obj, keep):
    """The slice with only its first `keep` devices (seeds stay under the fuzzer's max_len)."""
    obj = copy.deepcopy(obj)
    if "devices" in obj["spec"]:
        obj["spec"]["devices"] = obj["spec"]["devices"][:keep]
    return obj


def fuzz_seeds():
    """Small inputs for fuzz/reader_corpus cut from the corpus: (file name, text)."""
    node = "a100-mig-node-1"
    s136 = split_slices(node, "k8s-1.36", numa_list=True, taint_full_gpu=1)
    tainted_gpu = trimmed(s136[2], 3)  # gpu-1 (tainted) and two MIG placements
    s134 = trimmed(combined_slices(node, "k8s-1.34")[0], 2)
    seeds = [
        ("slice-counters-only.v1.yaml", dump_yaml([s136[0]], ["Seed: counters-only slice"])),
        ("slice-dynamicmig-devices.v1.yaml",
         dump_yaml([tainted_gpu], ["Seed: devices consuming counters, ints list, taint"])),
        ("slice-dynamicmig-devices.v1beta1.yaml",
         dump_yaml([as_version(tainted_gpu, "v1beta1")], ["Seed: the same in v1beta1 (basic)"])),
        ("slice-dynamicmig.v1beta2.json",
         dump_typed_list_json([as_version(s136[0], "v1beta2"),
                               as_version(tainted_gpu, "v1beta2")], "v1beta2")),
        ("slice-combined-1.34.v1.yaml",
         dump_yaml([s134], ["Seed: 1.34 slice with sharedCounters and devices"])),
        ("slice-consumable.v1.json",
         json.dumps(consumable_slice("a100-shared-node-2", "consumable")[0], sort_keys=True) + "\n"),
        ("slice-per-device.k8s-1.37.yaml",
         dump_yaml(fabric_per_device(), ["Seed: perDeviceNodeSelection, binding conditions"])),
        ("slice-per-device.k8s-1.37.json", dump_list_json(fabric_per_device(), None)),
        ("slice-unknown-fields.yaml",
         dump_yaml(unknown_fields(), ["Seed: unknown fields and attribute kind"])),
        ("slice-unknown-fields.json", json.dumps(unknown_fields()[1], sort_keys=True) + "\n"),
    ]
    for name, text in seeds:
        if len(text) > 8192:
            raise SystemExit(f"fuzz seed {name} is {len(text)} bytes, over the fuzzer's max_len")
    return seeds


def read_back(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        doc = json.loads(text)
        items = doc["items"]
        for item in items:
            item.setdefault("apiVersion", doc["apiVersion"])
            item.setdefault("kind", doc["kind"][:-len("List")])
        return items
    return [d for d in yaml.safe_load_all(text) if d is not None]


def expectations(objects):
    """Counted from the objects as read back (see the `fields` member of the output)."""
    devices = [(o, d) for o in objects for d in o["spec"].get("devices", [])]
    nodes = set()
    for o, d in devices:
        own = device_fields(d).get("nodeName")
        node = own or o["spec"].get("nodeName")
        if node:
            nodes.add(node)
    tainted = sum(1 for _, d in devices
                  if any(t.get("effect") in ("NoSchedule", "NoExecute")
                         for t in device_fields(d).get("taints", [])))
    return {
        "slices": len(objects),
        "devices": len(devices),
        "nodes": len(nodes),
        "tainted_devices": tainted,
        "counter_sets": sum(len(o["spec"].get("sharedCounters", [])) for o in objects),
        "devices_consuming_counters": sum(
            1 for _, d in devices if device_fields(d).get("consumesCounters")),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true",
                        help="fail when a file differs from what this script writes")
    args = parser.parse_args()
    outputs = {}
    expected = {}
    files = corpus()
    for rel, objs, minor, text, allow_unknown in files:
        check_objects(rel, objs, minor, allow_unknown)
        outputs[rel] = text
    for rel, text in outputs.items():
        path = os.path.join(HERE, rel)
        if args.check:
            with open(path) as f:
                if f.read() != text:
                    raise SystemExit(f"{rel} differs from generate_corpus.py's output")
        else:
            with open(path, "w") as f:
                f.write(text)
    for name, text in fuzz_seeds():
        path = os.path.join(FUZZ_SEEDS, name)
        if args.check:
            with open(path) as f:
                if f.read() != text:
                    raise SystemExit(f"fuzz/reader_corpus/{name} differs")
        else:
            with open(path, "w") as f:
                f.write(text)
    for rel, _objs, minor, _text, allow_unknown in files:
        back = read_back(os.path.join(HERE, rel))
        check_objects(rel + " (read back)", back, minor, allow_unknown)
        expected[rel] = expectations(back)
    doc = {
        # apiVersion and kind make this file a manifest that readers of the directory skip
        # (render ignores kinds it does not read) instead of an error.
        "apiVersion": "testdata.gpuprofile.io/v1",
        "kind": "CorpusExpectations",
        "metadata": {"name": "resourceslice-corpus"},
        "fields": {
            "slices": "ResourceSlice objects in the file",
            "devices": "entries of spec.devices over all slices",
            "nodes": "distinct node names devices are tied to: spec.nodeName of the device's "
                     "slice, or the device's own nodeName (perDeviceNodeSelection); devices "
                     "selected by nodeSelector or allNodes name no node",
            "tainted_devices": "devices with at least one taint of effect NoSchedule or NoExecute",
            "counter_sets": "entries of spec.sharedCounters over all slices",
            "devices_consuming_counters": "devices with a non-empty consumesCounters",
        },
        "files": expected,
    }
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    path = os.path.join(HERE, "corpus-expectations.json")
    if args.check:
        with open(path) as f:
            if f.read() != text:
                raise SystemExit("corpus-expectations.json differs from generate_corpus.py's output")
    else:
        with open(path, "w") as f:
            f.write(text)
    for rel, e in expected.items():
        print(rel, json.dumps(e))


if __name__ == "__main__":
    sys.exit(main())
