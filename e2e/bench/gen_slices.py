#!/usr/bin/env python3
"""Writes a v1 ResourceSliceList of N slices with 8 GPUs each (about 5 KB per slice) to stdout."""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
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
    items.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": node + "-gpu.example.com"},
        "spec": {"driver": "gpu.example.com", "nodeName": node,
                 "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices},
    })
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
