#!/usr/bin/env python3
"""Writes a v1 ResourceSliceList of N slices with 8 GPUs each (about 5 KB per slice) to stdout.

gen_slices.py N [SHAPE]: SHAPE "1.36" publishes as a driver does on Kubernetes 1.36+ with list
types on (the API server needs --kube-version 1.36+ --feature-gates DRAListTypeAttributes=true):
numaNode as a one-element `ints` list, allowMultipleAllocations and a memory requestPolicy on
every device, and a NoSchedule health taint on one device of every tenth slice.
"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
shape = sys.argv[2] if len(sys.argv) > 2 else "1.34"
items = []
for i in range(n):
    node = "node-%05d" % i
    devices = []
    for d in range(8):
        devices.append({
            "name": "gpu-%d" % d,
            "attributes": {
                "model": {"string": "H100-SXM5-80GB"},
                "uuid": {"string": "GPU-%s-%d-0000-1111-2222-333344445555" % (node, d)},
                "index": {"int": d},
                "driverVersion": {"version": "550.54.15"},
                "cudaComputeCapability": {"version": "9.0.0"},
                "pcieRoot": {"string": "pci0000:%02x" % d},
                "numaNode": {"int": d // 4},
                "productName": {"string": "NVIDIA H100 80GB HBM3"},
            },
            "capacity": {"memory": {"value": "80Gi"}, "sm": {"value": "132"}},
        })
        if shape == "1.36":
            device = devices[-1]
            device["attributes"]["numaNode"] = {"ints": [d // 4]}
            device["allowMultipleAllocations"] = True
            device["capacity"]["memory"]["requestPolicy"] = {
                "default": "1Gi", "validRange": {"min": "1Mi", "step": "1Mi"}}
            if i % 10 == 0 and d == 7:
                device["taints"] = [{"key": "gpu.nvidia.com/xid", "value": "79",
                                     "effect": "NoSchedule"}]
    items.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": node + "-gpu.example.com"},
        "spec": {"driver": "gpu.example.com", "nodeName": node,
                 "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices},
    })
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
