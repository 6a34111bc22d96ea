#!/usr/bin/env bash
# Checks the deployment config (config/): the CRD copies in config/crd/bases match crds/, the
# Argo CD health check passes its tests (lua5.1), every kustomization builds, and the built
# manifests hold what config/README.md promises (RBAC rules exactly, the Deployment's security
# settings, probes, PDB, Service, ServiceMonitor), and the alerts pass promtool's checks and unit
# tests. Needs python3 with PyYAML, lua5.1 and promtool (scripts/install-deps.sh); the kustomize builds need kubectl (or kustomize) and are skipped,
# with a message, only when neither is found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# 1. crds/ is the source of truth; kustomize cannot load files outside config/crd, so it keeps
#    copies (config/crd/kustomization.yaml says why).
for crd in crds/*.yaml; do
  copy=config/crd/bases/$(basename "$crd")
  if ! cmp -s "$crd" "$copy"; then
    echo "check-config: $copy differs from $crd; refresh it with: cp crds/*.yaml config/crd/bases/" >&2
    exit 1
  fi
  grep -qx -- "- bases/$(basename "$crd")" config/crd/kustomization.yaml || {
    echo "check-config: config/crd/kustomization.yaml does not list bases/$(basename "$crd")" >&2
    exit 1
  }
done
for copy in config/crd/bases/*.yaml; do
  [ -e "crds/$(basename "$copy")" ] || {
    echo "check-config: $copy has no source in crds/; remove it" >&2
    exit 1
  }
done

# 2. The Argo CD health check and its argocd-cm snippet.
python3 tools/argocd/run_health_tests.py

# 2b. The alerts: the plain rules file is valid and passes its unit tests (promtool, from the
#     Debian package prometheus), the PrometheusRule is generated from it, and every alert has
#     a severity and a runbook_url naming a section of docs/monitoring.md.
command -v promtool >/dev/null 2>&1 || {
  echo "check-config: promtool not found; install the prometheus package (scripts/install-deps.sh)" >&2
  exit 1
}
promtool check rules config/prometheus/gpu-profile-operator.rules.yaml
promtool test rules config/prometheus/tests/*.yaml
python3 scripts/lib/prometheus_rule.py --check
python3 - <<'EOF'
import re
import sys
import yaml

groups = yaml.safe_load(open("config/prometheus/gpu-profile-operator.rules.yaml"))["groups"]
# GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes.
anchors = {re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
           for line in open("docs/monitoring.md") if line.startswith("#")}
bad = [r["alert"] for g in groups for r in g["rules"] if "alert" in r and (
    not r.get("labels", {}).get("severity")
    or r.get("annotations", {}).get("runbook_url", "").split("#")[-1] not in anchors)]
if bad:
    sys.exit("check-config: alerts without a severity or a runbook section in docs/monitoring.md: %s"
             % ", ".join(bad))
EOF

# 3. kustomize builds. The kubectl on PATH may be Google Cloud SDK's dispatcher, which asks a
#    server for its version first; prefer a versioned kubectl next to it (or on PATH).
kustomize_cmd=()
for candidate in kubectl.1.33 kubectl.1.32; do
  if command -v "$candidate" >/dev/null 2>&1; then kustomize_cmd=("$candidate" kustomize); break; fi
done
if [ ${#kustomize_cmd[@]} -eq 0 ] && command -v kubectl >/dev/null 2>&1; then
  dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
  for candidate in "$dir"/kubectl.1.33 "$dir"/kubectl.1.32; do
    if [ -x "$candidate" ]; then kustomize_cmd=("$candidate" kustomize); break; fi
  done
  [ ${#kustomize_cmd[@]} -gt 0 ] || kustomize_cmd=(kubectl kustomize)
fi
if [ ${#kustomize_cmd[@]} -eq 0 ] && command -v kustomize >/dev/null 2>&1; then
  kustomize_cmd=(kustomize build)
fi
if [ ${#kustomize_cmd[@]} -eq 0 ]; then
  echo "check-config: SKIPPED the kustomize builds and manifest checks: no kubectl or kustomize found"
  exit 0
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for dir in default samples rbac prometheus crd manager; do
  if ! "${kustomize_cmd[@]}" "config/$dir" >"$out/$dir.yaml" 2>"$out/$dir.err"; then
    echo "check-config: '${kustomize_cmd[*]} config/$dir' failed:" >&2
    cat "$out/$dir.err" >&2
    exit 1
  fi
done
# config/default with the optional ServiceMonitor switched on, as a user would (uncommenting the
# line). Built from a temporary copy whose paths lead back into config/ (kustomize accepts
# directories outside the root, only files are restricted, but the paths must be relative).
mkdir "$out/default-monitoring"
back=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' \
  "$root/config" "$out/default-monitoring")
sed -e 's|^#- \.\./prometheus$|- ../prometheus|' -e "s|^- \.\./|- $back/|" \
  config/default/kustomization.yaml >"$out/default-monitoring/kustomization.yaml"
grep -q "^- $back/prometheus$" "$out/default-monitoring/kustomization.yaml" || {
  echo "check-config: config/default/kustomization.yaml lost its '#- ../prometheus' line" >&2
  exit 1
}
if ! "${kustomize_cmd[@]}" "$out/default-monitoring" >"$out/default-monitoring.yaml" \
    2>"$out/default-monitoring.err"; then
  echo "check-config: config/default with ../prometheus enabled does not build:" >&2
  cat "$out/default-monitoring.err" >&2
  exit 1
fi

# 4. What the built manifests must say.
python3 - "$out" <<'EOF'
import sys
import yaml

out = sys.argv[1]
problems = []


def load(name):
    with open("%s/%s.yaml" % (out, name)) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def find(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    if len(found) != 1:
        problems.append("expected one %s %s, found %d" % (kind, name or "", len(found)))
        return {}
    return found[0]


def expect(what, got, want):
    if got != want:
        problems.append("%s: got %r, want %r" % (what, got, want))


NS = "gpu-profile-operator-system"
NAME = "gpu-profile-operator-controller-manager"
docs = load("default")

expect("namespaces", sorted(d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"), [NS])
expect("CRDs", sorted(d["metadata"]["name"] for d in docs if d["kind"] == "CustomResourceDefinition"),
       ["gpunodegroups.gpuprofile.io", "gpuprofiles.gpuprofile.io"])
for d in docs:
    scoped = d["kind"] in ("ServiceAccount", "Role", "RoleBinding", "Deployment", "Service",
                           "PodDisruptionBudget")
    if scoped:
        expect("%s %s namespace" % (d["kind"], d["metadata"]["name"]), d["metadata"].get("namespace"), NS)

# Deployment.
dep = find(docs, "Deployment", NAME)
spec = dep.get("spec", {})
pod = spec.get("template", {}).get("spec", {})
labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
expect("replicas", spec.get("replicas"), 2)
expect("selector matches pod labels",
       all(labels.get(k) == v for k, v in spec.get("selector", {}).get("matchLabels", {}).items()), True)
expect("serviceAccountName", pod.get("serviceAccountName"), NAME)
expect("terminationGracePeriodSeconds", pod.get("terminationGracePeriodSeconds"), 30)
spread = [c.get("topologyKey") for c in pod.get("topologySpreadConstraints", [])]
anti = [t.get("podAffinityTerm", {}).get("topologyKey") for t in
        pod.get("affinity", {}).get("podAntiAffinity", {})
           .get("preferredDuringSchedulingIgnoredDuringExecution", [])]
expect("replicas spread across nodes", "kubernetes.io/hostname" in spread + anti, True)
containers = pod.get("containers", [])
expect("containers", [c.get("name") for c in containers], ["manager"])
c = containers[0] if containers else {}
expect("image", c.get("image"), "ghcr.io/gpuprofile/gpu-profile-operator:v0.1.0")
expect("args", c.get("args"), ["run", "--leader-elect=true", "--metrics-secure",
                               "--metrics-bind-address=:8443",
                               "--health-probe-bind-address=:8081", "--log-format=json"])
env = {e["name"]: e for e in c.get("env", [])}
expect("POD_NAME", env.get("POD_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath"),
       "metadata.name")
expect("POD_NAMESPACE",
       env.get("POD_NAMESPACE", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath"),
       "metadata.namespace")
expect("MALLOC_ARENA_MAX", env.get("MALLOC_ARENA_MAX", {}).get("value"), "1")
ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
expect("metrics port", ports.get("metrics"), 8443)
for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
    get = c.get(probe, {}).get("httpGet", {})
    expect(probe, (get.get("path"), get.get("port")), (path, 8081))
res = c.get("resources", {})
expect("requests", res.get("requests"), {"cpu": "50m", "memory": "64Mi"})
expect("limits", res.get("limits"), {"cpu": "500m", "memory": "256Mi"})
# Effective security settings: the container's own, else the pod's.
psc, csc = pod.get("securityContext", {}), c.get("securityContext", {})
eff = lambda key: csc.get(key, psc.get(key))
expect("runAsNonRoot", eff("runAsNonRoot"), True)
expect("runAsUser", eff("runAsUser"), 65532)
expect("seccompProfile", (eff("seccompProfile") or {}).get("type"), "RuntimeDefault")
expect("readOnlyRootFilesystem", csc.get("readOnlyRootFilesystem"), True)
expect("allowPrivilegeEscalation", csc.get("allowPrivilegeEscalation"), False)
expect("capabilities.drop", csc.get("capabilities", {}).get("drop"), ["ALL"])
expect("privileged", csc.get("privileged", False), False)

pdb = find(docs, "PodDisruptionBudget", NAME)
expect("PDB minAvailable", pdb.get("spec", {}).get("minAvailable"), 1)
expect("PDB selector", pdb.get("spec", {}).get("selector", {}).get("matchLabels"),
       spec.get("selector", {}).get("matchLabels"))
svc = find(docs, "Service", NAME + "-metrics-service")
expect("Service selector", svc.get("spec", {}).get("selector"), spec.get("selector", {}).get("matchLabels"))
expect("Service ports", [(p.get("name"), p.get("port")) for p in svc.get("spec", {}).get("ports", [])],
       [("metrics", 8443)])
find(docs, "ServiceAccount", NAME)


# RBAC: exactly these rules, as a set of (group, resource, verb).
def rule_set(role):
    s = set()
    for r in role.get("rules", []):
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                for v in r.get("verbs", []):
                    s.add((g, res, v))
    return s


def triples(group, resources, verbs):
    return {(group, r, v) for r in resources for v in verbs}


crud = ["get", "list", "watch", "create", "update", "patch", "delete"]
want_cluster = (triples("gpuprofile.io", ["gpuprofiles"], ["get", "list", "watch", "update", "patch"])
                | triples("gpuprofile.io", ["gpuprofiles/status"], ["get", "update", "patch"])
                | triples("gpuprofile.io", ["gpuprofiles/finalizers"], ["update"])
                | triples("gpuprofile.io", ["gpunodegroups"], crud)
                | triples("gpuprofile.io", ["gpunodegroups/status"], ["get", "update", "patch"])
                | triples("resource.k8s.io", ["deviceclasses", "resourceclaimtemplates"], crud)
                | triples("resource.k8s.io", ["resourceslices"], ["get", "list", "watch"])
                | triples("resource.k8s.io", ["resourceclaims"], ["get", "list", "watch"])
                | triples("", ["nodes"], ["get", "list", "watch"])
                | triples("", ["namespaces"], ["get", "list", "watch"])
                | triples("", ["resourcequotas"], crud)
                | triples("events.k8s.io", ["events"], ["create", "patch", "update"]))
want_role = triples("coordination.k8s.io", ["leases"], ["get", "create", "update"])
manager_role = find(docs, "ClusterRole", "gpu-profile-operator-manager-role")
got = rule_set(manager_role)
for extra in sorted(got - want_cluster):
    problems.append("ClusterRole grants more than needed: %s" % (extra,))
for missing in sorted(want_cluster - got):
    problems.append("ClusterRole lacks: %s" % (missing,))
for r in manager_role.get("rules", []):
    if r.get("resourceNames") or r.get("nonResourceURLs") or "*" in str(r):
        problems.append("ClusterRole rule with wildcards or extras: %r" % (r,))
leader_role = find(docs, "Role", "gpu-profile-operator-leader-election-role")
expect("leader election Role", rule_set(leader_role), want_role)
for kind, name, role_kind, role in (
        ("ClusterRoleBinding", "gpu-profile-operator-manager-rolebinding", "ClusterRole",
         "gpu-profile-operator-manager-role"),
        ("RoleBinding", "gpu-profile-operator-leader-election-rolebinding", "Role",
         "gpu-profile-operator-leader-election-role")):
    b = find(docs, kind, name)
    expect(name + " roleRef", (b.get("roleRef", {}).get("kind"), b.get("roleRef", {}).get("name")),
           (role_kind, role))
    expect(name + " subjects", b.get("subjects"),
           [{"kind": "ServiceAccount", "name": NAME, "namespace": NS}])
# --metrics-secure: the operator may create token and access reviews, nothing else; scrapers are
# bound to metrics-reader, which allows GET /metrics only.
metrics_auth = find(docs, "ClusterRole", "gpu-profile-operator-metrics-auth-role")
expect("metrics-auth-role rules", rule_set(metrics_auth),
       triples("authentication.k8s.io", ["tokenreviews"], ["create"])
       | triples("authorization.k8s.io", ["subjectaccessreviews"], ["create"]))
b = find(docs, "ClusterRoleBinding", "gpu-profile-operator-metrics-auth-rolebinding")
expect("metrics-auth-rolebinding roleRef",
       (b.get("roleRef", {}).get("kind"), b.get("roleRef", {}).get("name")),
       ("ClusterRole", "gpu-profile-operator-metrics-auth-role"))
expect("metrics-auth-rolebinding subjects", b.get("subjects"),
       [{"kind": "ServiceAccount", "name": NAME, "namespace": NS}])
reader = find(docs, "ClusterRole", "gpu-profile-operator-metrics-reader")
expect("metrics-reader rules", reader.get("rules"),
       [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}])
editor = find(docs, "ClusterRole", "gpu-profile-operator-gpuprofile-editor")
viewer = find(docs, "ClusterRole", "gpu-profile-operator-gpuprofile-viewer")
expect("editor aggregation", {k: v for k, v in editor.get("metadata", {}).get("labels", {}).items()
                              if k.startswith("rbac.authorization.k8s.io/")},
       {"rbac.authorization.k8s.io/aggregate-to-admin": "true",
        "rbac.authorization.k8s.io/aggregate-to-edit": "true"})
expect("viewer aggregation", {k: v for k, v in viewer.get("metadata", {}).get("labels", {}).items()
                              if k.startswith("rbac.authorization.k8s.io/")},
       {"rbac.authorization.k8s.io/aggregate-to-view": "true"})
expect("viewer rules", rule_set(viewer),
       triples("gpuprofile.io", ["gpuprofiles"], ["get", "list", "watch"])
       | triples("gpuprofile.io", ["gpuprofiles/status"], ["get"]))
expect("editor rules", rule_set(editor),
       triples("gpuprofile.io", ["gpuprofiles"], crud) | triples("gpuprofile.io", ["gpuprofiles/status"], ["get"]))

# Samples: the profiles and namespaces, never the ResourceSlice fixtures.
samples = load("samples")
expect("sample kinds", sorted({d["kind"] for d in samples}), ["GpuProfile", "Namespace"])
expect("sample profiles", sorted(d["metadata"]["name"] for d in samples if d["kind"] == "GpuProfile"),
       ["ampere-or-newer", "large-memory", "light-inference", "recent-driver"])

# The ServiceMonitor, once switched on, sits next to the Service and selects it.
mon_docs = load("default-monitoring")
sm = find(mon_docs, "ServiceMonitor", NAME + "-metrics-monitor")
expect("ServiceMonitor namespace", sm.get("metadata", {}).get("namespace"), NS)
sel = sm.get("spec", {}).get("selector", {}).get("matchLabels", {})
expect("ServiceMonitor selects the Service",
       bool(sel) and all(svc.get("metadata", {}).get("labels", {}).get(k) == v for k, v in sel.items()),
       True)
expect("ServiceMonitor port", [e.get("port") for e in sm.get("spec", {}).get("endpoints", [])], ["metrics"])
# The metrics are HTTPS with a token (--metrics-secure): Prometheus sends its service account's.
for e in sm.get("spec", {}).get("endpoints", []):
    expect("ServiceMonitor scheme", e.get("scheme"), "https")
    expect("ServiceMonitor bearer token", e.get("bearerTokenFile"),
           "/var/run/secrets/kubernetes.io/serviceaccount/token")
    expect("ServiceMonitor TLS config", sorted(e.get("tlsConfig", {})) != [], True)
rule = find(mon_docs, "PrometheusRule", NAME + "-alerts")
expect("PrometheusRule namespace", rule.get("metadata", {}).get("namespace"), NS)
expect("monitoring build adds only the ServiceMonitor and the PrometheusRule", len(mon_docs),
       len(docs) + 2)

if problems:
    for p in problems:
        print("check-config: " + p, file=sys.stderr)
    sys.exit(1)
print("check-config: manifests OK (%d objects in config/default)" % len(docs))
EOF
echo "check-config: OK (${kustomize_cmd[*]})"
