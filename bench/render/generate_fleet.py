#!/usr/bin/env python3
"""Generates the render benchmark's inputs: a large GPU fleet and many profiles.

  generate_fleet.py OUT_DIR [--nodes 5000] [--gpus-per-node 8] [--profiles 100]
                    [--namespaces 200]

Writes, deterministically (fixed seed):
  resourceslices.json  one v1 ResourceSliceList, indented as `kubectl get resourceslices -o json`
                       prints it (4 spaces): one slice per node with its GPUs, attributes as the
                       NVIDIA DRA driver publishes them;
  profiles.yaml        GpuProfiles mixing every structured term and some raw CEL;
  namespaces.yaml      labelled Namespaces that the profiles' selectors pick from.
"""
import argparse
import json
import os
import random

# (product, architecture, compute capability, memory, [driver versions], cuda version)
NODE_TYPES = [
    ("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40Gi", ["535.161.8", "550.127.8"], "12.4.0"),
    ("NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", "80Gi", ["550.127.8", "570.133.20"], "12.8.0"),
    ("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81559Mi", ["570.133.20", "580.95.5"], "12.8.0"),
    ("NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi", ["550.127.8", "570.133.20"], "12.8.0"),
    ("NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi", ["570.133.20"], "12.8.0"),
    ("Tesla T4", "Turing", "7.5.0", "15360Mi", ["535.161.8"], "12.2.0"),
]


def slice_for(node_index, rng, gpus):
    product, arch, cc, memory, drivers, cuda = NODE_TYPES[node_index % len(NODE_TYPES)]
    driver_version = drivers[(node_index // len(NODE_TYPES)) % len(drivers)]
    node = "gpu-node-%05d" % node_index
    devices = []
    for g in range(gpus):
        uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (
            rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
            rng.getrandbits(16), rng.getrandbits(48))
        bus = "0000:%02x:00.0" % (0x07 + g * 0x10)
        devices.append({
            "name": "gpu-%d" % g,
            "attributes": {
                "type": {"string": "gpu"},
                "uuid": {"string": uuid},
                "productName": {"string": product},
                "brand": {"string": "Nvidia"},
                "architecture": {"string": arch},
                "cudaComputeCapability": {"version": cc},
                "driverVersion": {"version": driver_version},
                "cudaDriverVersion": {"version": cuda},
                "resource.kubernetes.io/pciBusID": {"string": bus},
                "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%02x" % (g // 4)},
            },
            "capacity": {"memory": {"value": memory}},
        })
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "creationTimestamp": "2026-11-01T10:%02d:%02dZ" % (node_index // 60 % 60,
                                                                node_index % 60),
            "generateName": node + "-gpu.nvidia.com-",
            "generation": 1,
            "name": "%s-gpu.nvidia.com-%05x" % (node, rng.getrandbits(20)),
            "ownerReferences": [{
                "apiVersion": "v1", "controller": True, "kind": "Node", "name": node,
                "uid": "%08x-0000-4000-8000-%012x" % (node_index, rng.getrandbits(48)),
            }],
            "resourceVersion": str(100000 + node_index),
            "uid": "%08x-1111-4000-8000-%012x" % (node_index, rng.getrandbits(48)),
        },
        "spec": {
            "devices": devices,
            "driver": "gpu.nvidia.com",
            "nodeName": node,
            "pool": {"generation": 1, "name": node, "resourceSliceCount": 1},
        },
    }


def profile(i, rng):
    kind = i % 6
    spec = {"description": "generated profile %d" % i, "claimTemplate": {}}
    selector = {}
    if kind == 0:
        selector["memory"] = {"min": rng.choice(["16Gi", "24Gi", "40Gi", "48Gi", "80Gi"])}
    elif kind == 1:
        selector["productNames"] = rng.sample([t[0] for t in NODE_TYPES], 2)
    elif kind == 2:
        selector["computeCapability"] = {"min": rng.choice(["7.5", "8.0", "8.9", "9.0"])}
        selector["architectures"] = ["Ampere", "Ada Lovelace", "Hopper"]
    elif kind == 3:
        selector["driverVersion"] = {"min": rng.choice(["535", "550.0", "570.133.20"])}
        selector["cudaDriverVersion"] = {"min": "12.4"}
    elif kind == 4:
        selector["attributes"] = [
            {"name": "resource.kubernetes.io/pcieRoot", "operator": "Exists"},
            {"name": "brand", "operator": "In", "values": ["Nvidia", "Tesla"]},
        ]
        selector["memory"] = {"min": "20Gi", "max": "50Gi"}
    else:
        selector["cel"] = ["device.attributes['gpu.nvidia.com'].architecture != 'Turing'"]
    if selector:
        spec["selector"] = selector
    if i % 4 == 0:
        spec["count"] = 1 + i % 3
    spec["claimTemplate"]["namespaceSelector"] = {"matchLabels": {"team": "team-%d" % (i % 20)}}
    if i % 10 == 0:
        spec["claimTemplate"]["namespaces"] = ["shared-%d" % (i % 7)]
    return {"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
            "metadata": {"name": "profile-%03d" % i}, "spec": spec}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--profiles", type=int, default=100)
    parser.add_argument("--namespaces", type=int, default=200)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = random.Random(20261129)
    slices = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
              "items": [slice_for(n, rng, args.gpus_per_node) for n in range(args.nodes)]}
    slices["apiVersion"] = "resource.k8s.io/v1"
    slices["kind"] = "ResourceSliceList"
    with open(os.path.join(args.out_dir, "resourceslices.json"), "w") as f:
        json.dump(slices, f, indent=4)
        f.write("\n")
    with open(os.path.join(args.out_dir, "profiles.yaml"), "w") as f:
        f.write("\n---\n".join(json.dumps(profile(i, rng)) for i in range(args.profiles)))
        f.write("\n")
    with open(os.path.join(args.out_dir, "namespaces.yaml"), "w") as f:
        docs = []
        for i in range(args.namespaces):
            docs.append(json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                    "metadata": {"name": "ns-%03d" % i,
                                                 "labels": {"team": "team-%d" % (i % 20)}}}))
        for i in range(7):
            docs.append(json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                    "metadata": {"name": "shared-%d" % i}}))
        f.write("\n---\n".join(docs))
        f.write("\n")


if __name__ == "__main__":
    main()
