#!/usr/bin/env python3
"""A tiny Kubernetes client for the demo where kubectl is absent: apply manifests, wait for a
condition, and print tables, over plain HTTP to a kube-emulator (no auth, no TLS).

  kube_client.py --server URL apply -f FILE_OR_DIR...
  kube_client.py --server URL wait-ready [--timeout 60]       every GpuProfile Ready
  kube_client.py --server URL get gpuprofiles|gpunodegroups|deviceclasses|resourceclaimtemplates

Only what the demo needs; kubectl is used whenever it is installed.
"""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

import yaml

# kind -> (group/version path prefix, plural, namespaced)
RESOURCES = {
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "GpuProfile": ("/apis/gpuprofile.io/v1alpha1", "gpuprofiles", False),
    "GpuNodeGroup": ("/apis/gpuprofile.io/v1alpha1", "gpunodegroups", False),
    "DeviceClass": ("/apis/resource.k8s.io/{v}", "deviceclasses", False),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/{v}", "resourceclaimtemplates", True),
    "ResourceSlice": ("/apis/resource.k8s.io/{v}", "resourceslices", False),
}
BY_PLURAL = {plural: kind for kind, (_, plural, _) in RESOURCES.items()}


def request(server, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def collection(kind, api_version, namespace=""):
    prefix, plural, namespaced = RESOURCES[kind]
    version = api_version.split("/")[-1]
    prefix = prefix.format(v=version)
    if namespaced and namespace:
        return f"{prefix}/namespaces/{namespace}/{plural}"
    return f"{prefix}/{plural}"


def manifests(paths):
    for path in paths:
        if path == "-":
            yield from (d for d in yaml.safe_load_all(sys.stdin) if d)
            continue
        files = [path]
        if os.path.isdir(path):
            files = sorted(os.path.join(path, f) for f in os.listdir(path)
                           if f.endswith((".yaml", ".yml", ".json")) and f != "kustomization.yaml")
        for f in files:
            with open(f) as handle:
                for doc in yaml.safe_load_all(handle):
                    if doc:
                        yield doc


def apply(server, paths):
    for obj in manifests(paths):
        kind, name = obj["kind"], obj["metadata"]["name"]
        ns = obj["metadata"].get("namespace", "")
        path = collection(kind, obj["apiVersion"], ns)
        code, body = request(server, "POST", path, obj)
        if code == 409:
            _, current = request(server, "GET", f"{path}/{name}")
            obj["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            code, body = request(server, "PUT", f"{path}/{name}", obj)
            verb = "configured"
        else:
            verb = "created"
        if code >= 300:
            sys.exit(f"{kind} {name}: {body.get('message', code)}")
        print(f"{kind.lower()}/{name} {verb}")


def condition(obj, ctype):
    for c in obj.get("status", {}).get("conditions", []):
        if c.get("type") == ctype:
            return c
    return {}


def wait_ready(server, timeout):
    deadline = time.time() + timeout
    while True:
        _, body = request(server, "GET", collection("GpuProfile", "v1alpha1"))
        items = body.get("items", [])
        pending = [p["metadata"]["name"] for p in items
                   if condition(p, "Ready").get("status") != "True"
                   or p.get("status", {}).get("observedGeneration") != p["metadata"].get("generation")]
        if items and not pending:
            for p in items:
                print(f"gpuprofile/{p['metadata']['name']} condition met")
            return
        if time.time() > deadline:
            sys.exit(f"timed out waiting for Ready: {', '.join(pending)}")
        time.sleep(0.2)


def get(server, plural, dra_version):
    kind = BY_PLURAL[plural]
    _, body = request(server, "GET", collection(kind, dra_version))
    rows = []
    for o in body.get("items", []):
        m, s = o["metadata"], o.get("status", {})
        if kind == "GpuProfile":
            rows.append([m["name"], condition(o, "Ready").get("status", ""),
                         condition(o, "Satisfiable").get("status", ""),
                         str(s.get("matchedDevices", "")), str(s.get("matchedNodes", "")),
                         str(s.get("claimTemplates", {}).get("ready", ""))])
        elif kind == "GpuNodeGroup":
            rows.append([m["name"], s.get("productName", ""), s.get("memory", ""),
                         s.get("driverVersion", ""), str(s.get("nodeCount", "")),
                         str(s.get("devices", "")), ",".join(s.get("profiles", []))])
        else:
            rows.append(([m.get("namespace", "")] if kind == "ResourceClaimTemplate" else [])
                        + [m["name"]])
    headers = {
        "GpuProfile": ["NAME", "READY", "SATISFIABLE", "DEVICES", "NODES", "NAMESPACES"],
        "GpuNodeGroup": ["NAME", "PRODUCT", "MEMORY", "DRIVER", "NODES", "DEVICES", "PROFILES"],
        "ResourceClaimTemplate": ["NAMESPACE", "NAME"],
    }.get(kind, ["NAME"])
    table = [headers] + sorted(rows)
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    for r in table:
        print("   ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--dra-version", default="v1")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("apply")
    a.add_argument("-f", dest="files", action="append", required=True)
    w = sub.add_parser("wait-ready")
    w.add_argument("--timeout", type=float, default=60)
    g = sub.add_parser("get")
    g.add_argument("resource", choices=sorted(BY_PLURAL))
    args = parser.parse_args()
    if args.command == "apply":
        apply(args.server, args.files)
    elif args.command == "wait-ready":
        wait_ready(args.server, args.timeout)
    else:
        get(args.server, args.resource, args.dra_version)


if __name__ == "__main__":
    main()
