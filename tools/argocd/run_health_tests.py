#!/usr/bin/env python3
"""Runs the Argo CD health checks under config/argocd/ against their health_test.yaml.

Layout (Argo CD's resource_customizations): <group>/<Kind>/health.lua, health_test.yaml and
testdata/*.yaml. Each test's input object is turned into a Lua table literal bound to the global
`obj`, as Argo CD does, health.lua runs under Debian's `lua5.1` (Argo CD's gopher-lua implements
Lua 5.1), and the returned status and message must equal the test's exactly.

It also checks that config/argocd/argocd-cm-patch.yaml embeds every health.lua byte for byte
(--write-patch regenerates it), so the snippet users install is the script that was tested.

Usage: run_health_tests.py [--lua PATH] [--write-patch] [CONFIG_ARGOCD_DIR]
Exit 0 when every test passes, 1 otherwise.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

HEALTH_STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}
PATCH_FILE = "argocd-cm-patch.yaml"


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings, as Kubernetes' JSON (and so Argo CD) does."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp",
                        lambda loader, node: loader.construct_scalar(node))


def lua_string(s):
    out = ['"']
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif 32 <= b < 127:
            out.append(c)
        else:
            # Decimal escapes, always three digits so a following digit cannot join them.
            out.append("\\%03d" % b)
    out.append('"')
    return "".join(out)


def lua_literal(value):
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return lua_string(value)
    if isinstance(value, list):
        # Lua 1-based arrays; a nil element would end ipairs early, as it would in Argo CD.
        return "{" + ", ".join(lua_literal(v) for v in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join("[%s] = %s" % (lua_string(str(k)), lua_literal(v))
                               for k, v in value.items()) + "}"
    raise TypeError("cannot convert %r to Lua" % (value,))


DRIVER = r"""
local input, script = arg[1], arg[2]
dofile(input)
local chunk, err = loadfile(script)
if not chunk then
  io.stderr:write("cannot load health.lua: " .. tostring(err) .. "\n")
  os.exit(2)
end
local ok, hs = pcall(chunk)
if not ok then
  io.stderr:write("health.lua raised an error: " .. tostring(hs) .. "\n")
  os.exit(3)
end
if type(hs) ~= "table" then
  io.stderr:write("health.lua returned " .. type(hs) .. ", not a table\n")
  os.exit(4)
end
io.write(tostring(hs.status), "\0", hs.message == nil and "" or tostring(hs.message))
"""


def run_check(lua, script, obj, workdir):
    input_path = os.path.join(workdir, "input.lua")
    driver_path = os.path.join(workdir, "driver.lua")
    with open(input_path, "w", encoding="ascii") as f:
        f.write("obj = " + lua_literal(obj) + "\n")
    with open(driver_path, "w", encoding="ascii") as f:
        f.write(DRIVER)
    proc = subprocess.run([lua, driver_path, input_path, script], capture_output=True, timeout=30)
    if proc.returncode != 0:
        return None, None, proc.stderr.decode("utf-8", "replace").strip()
    status, _, message = proc.stdout.decode("utf-8").partition("\0")
    return status, message, None


def find_checks(root):
    checks = []
    for dirpath, _, files in os.walk(root):
        if "health.lua" in files:
            rel = os.path.relpath(dirpath, root).split(os.sep)
            if len(rel) != 2:
                raise SystemExit("%s: expected <group>/<Kind>/health.lua" % dirpath)
            checks.append((rel[0], rel[1], dirpath))
    return sorted(checks)


def patch_key(group, kind):
    return "resource.customizations.health.%s_%s" % (group, kind)


def render_patch(checks):
    lines = [
        "# Installs the health checks in Argo CD: a patch for the argocd-cm ConfigMap (Argo CD",
        "# 2.x and 3.x read resource.customizations.health.<group>_<Kind>). Generated from",
        "# gpuprofile.io/GpuProfile/health.lua by `tools/argocd/run_health_tests.py --write-patch`;",
        "# the tests fail when the two differ. Apply with",
        "#   kubectl -n argocd patch configmap argocd-cm --type merge --patch-file "
        "config/argocd/argocd-cm-patch.yaml",
        "# or list it under `patches:` in the kustomization that installs Argo CD.",
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata:",
        "  name: argocd-cm",
        "  namespace: argocd",
        "data:",
    ]
    for group, kind, path in checks:
        with open(os.path.join(path, "health.lua"), encoding="utf-8") as f:
            script = f.read()
        lines.append("  %s: |" % patch_key(group, kind))
        for line in script.splitlines():
            lines.append(("    " + line) if line else "")
    return "\n".join(lines) + "\n"


def check_patch(root, checks):
    path = os.path.join(root, PATCH_FILE)
    if not os.path.exists(path):
        return ["%s is missing (run with --write-patch)" % path]
    with open(path, encoding="utf-8") as f:
        data = (yaml.safe_load(f) or {}).get("data") or {}
    problems = []
    for group, kind, check_dir in checks:
        with open(os.path.join(check_dir, "health.lua"), encoding="utf-8") as f:
            script = f.read()
        if data.get(patch_key(group, kind)) != script:
            problems.append("%s: %s differs from %s/%s/health.lua (run with --write-patch)"
                            % (path, patch_key(group, kind), group, kind))
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?",
                        default=os.path.join(here, "..", "..", "config", "argocd"))
    parser.add_argument("--lua", default=os.environ.get("LUA", "lua5.1"))
    parser.add_argument("--write-patch", action="store_true")
    args = parser.parse_args()
    root = os.path.normpath(args.root)

    lua = shutil.which(args.lua)
    if lua is None:
        print("error: %s not found; install Debian's lua5.1 (scripts/install-deps.sh)" % args.lua,
              file=sys.stderr)
        return 1
    checks = find_checks(root)
    if not checks:
        print("error: no health.lua under %s" % root, file=sys.stderr)
        return 1

    if args.write_patch:
        with open(os.path.join(root, PATCH_FILE), "w", encoding="utf-8") as f:
            f.write(render_patch(checks))

    failures = check_patch(root, checks)
    passed = 0
    with tempfile.TemporaryDirectory() as workdir:
        for group, kind, path in checks:
            with open(os.path.join(path, "health_test.yaml"), encoding="utf-8") as f:
                tests = (yaml.load(f, Loader=_Loader) or {}).get("tests") or []
            if not tests:
                failures.append("%s/%s: health_test.yaml has no tests" % (group, kind))
            for test in tests:
                name = "%s/%s %s" % (group, kind, test["inputPath"])
                with open(os.path.join(path, test["inputPath"]), encoding="utf-8") as f:
                    obj = yaml.load(f, Loader=_Loader)
                want = test["healthStatus"]
                want_status, want_message = want["status"], want.get("message", "")
                if want_status not in HEALTH_STATUSES:
                    failures.append("%s: expected status %r is not an Argo CD health status"
                                    % (name, want_status))
                    continue
                status, message, error = run_check(lua, os.path.join(path, "health.lua"), obj,
                                                   workdir)
                if error is not None:
                    failures.append("%s: %s" % (name, error))
                elif (status, message) != (want_status, want_message):
                    failures.append("%s: got %s %r, want %s %r"
                                    % (name, status, message, want_status, want_message))
                else:
                    passed += 1

    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    print("argocd health checks: %d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
