#!/usr/bin/env python3
"""The operator at scale: `gpu-profile-controller run` against kube-emulator, next to kubectl apply.

  python3 bench/operator/run_benchmark.py [--build build] [--rounds 3] [--nodes 5000]
          [--data DIR] [--churn-rate 100] [--churn-seconds 20] [--idle-seconds 30]
          [--kube-version 1.34] [--feature-gates G=true,...] [--advanced]

--kube-version and --feature-gates go to kube-emulator, the operator and render alike (default
1.34, no gates: the README's figures). --advanced generates the profiles with issue 14's fields
on part of them (generate.py --advanced: quotas, sharing, tolerations, fallback,
extendedResourceName, capacityRequests) into BUILD/bench-operator-NODES-NAMESPACES-advanced; those
fields need 1.36+ (or 1.34/1.35 with the DRADeviceTaints, DRAConsumableCapacity and
DRAExtendedResource gates), else the profiles are Stalled (FeatureNotServed) and never Ready.
Compare it with a run without --advanced at the same --kube-version.

Each round:
 A. The operator. A fresh kube-emulator (--kube-version KUBE_VERSION, no --state, --token-file so the
    audit log tells the operator's requests from the benchmark's) seeded with crds/, the fleet
    (NODES ResourceSlices x 8 GPUs) and 200 labelled namespaces. At t0 the operator starts
    (--kube-api-qps 1000 --kube-api-burst 2000 --leader-elect=false, metrics and probes off) and
    the benchmark creates the 100 GpuProfiles (raw HTTP POSTs). Measured:
    - ready_s: t0 to the first moment every profile has status.observedGeneration ==
      metadata.generation and Ready=True (seen on a watch of gpuprofiles); the generated objects
      (classes, templates, node groups, and the operator's ResourceQuotas) are then counted on
      the server and compared with `render`'s;
    - requests: the operator's requests (audit log, by verb and resource) from t0 until it has
      been quiet (no write) for 3 s after Ready, against the minimum (see MINIMUM below);
    - churn latency: a writer adds one device to an L4 node's ResourceSlice (a merge patch of
      spec.devices) CHURN_RATE times a second for CHURN_SECONDS; every profile that selects L4
      devices must count one more matched device per update. For each (update, affected profile)
      the latency is from sending the update to the first watch event of that profile whose
      status.matchedDevices includes it; p50 and p99 over all pairs;
    - idle writes: the operator's writes in IDLE_SECONDS of quiet after the churn has settled,
      then in IDLE_SECONDS after POST /emulator/compact and POST /emulator/watches/drop (every
      watch ends, and resuming from the old resourceVersion gets 410, so every informer
      relists);
    - rss: the operator's VmHWM (peak RSS) at the end (also its VmRSS at Ready, VmHWM after the
      churn, VmRSS before and after the forced relist). The operator runs with
      MALLOC_ARENA_MAX=2 as the Deployment in config/manager sets it (--malloc-arena-max 0:
      glibc's default).
 B. kubectl. A fresh emulator with the same seed; `kubectl.1.33 apply --server-side=false -f`
    render's output (GpuProfiles first, then GpuNodeGroups, DeviceClasses and
    ResourceClaimTemplates, the last two with the controller ownerReference to their profile's
    uid as the operator writes them; --no-owner-refs: as render prints them) in chunks of
    --chunk objects, one kubectl process per chunk, one after the other; wall time of all of
    them, from the first kubectl's start.

MINIMUM requests for the operator to converge (with G node groups, P profiles, T templates, Q
ResourceQuotas): a list and a watch on each of the 7 kinds it caches (profiles, namespaces, node
groups, ResourceQuotas, slices, classes, templates; the list of NODES slices in pages of 100,
kSlicePageSize in controller/reconciler/cluster_cache.h: 7 + 6 + NODES/100 = 63 reads) + 1
  finalizer patch per profile + 1 DeviceClass create per profile + T template creates + Q quota
  creates + 1 status write per profile + 2 per node group (create, status) = 63 + 3P + T + Q + 2G
  (20,383 for P=100, T=20,000, Q=0, G=10; 22,383 with --advanced's 2,000 quotas). Until the
  ResourceQuota informer (issue 14) it was 6 kinds and 61 reads. Discovery (/version, /apis...)
  and Events are reported apart.

Prints each round and a table of medians; writes the medians as JSON (--json).
"""
import argparse
import collections
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROFILES_PATH = "/apis/gpuprofile.io/v1alpha1/gpuprofiles"
SLICES_PATH = "/apis/resource.k8s.io/v1/resourceslices"
BENCH_TOKEN = "bench-token-0123456789"
OPERATOR_TOKEN = "operator-token-0123456789"
OPERATOR_USER = "gpu-profile-operator"
WRITE_VERBS = ("create", "update", "patch", "delete", "deletecollection")
STARTED = []   # every process this benchmark started, stopped on exit
SLICE_PAGE_SIZE = 100  # the operator's ResourceSlice list page (kSlicePageSize)
CACHED_KINDS = 7       # informers: profiles, namespaces, node groups, quotas, slices, classes,
                       # templates (controller/reconciler/cluster_cache.h)
MANAGED_BY = "app.kubernetes.io/managed-by=gpu-profile-operator"


def log(msg):
    sys.stderr.write("[%s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def kubeconfig(url, token):
    return ("apiVersion: v1\nkind: Config\nclusters:\n- name: e\n  cluster:\n    server: %s\n"
            "contexts:\n- name: e\n  context:\n    cluster: e\n    user: u\n"
            "current-context: e\nusers:\n- name: u\n  user:\n    token: %s\n" % (url, token))


class Client:
    """One keep-alive HTTP connection; not thread-safe (one per thread)."""

    def __init__(self, url, token=None):
        u = urllib.parse.urlparse(url)
        self.host, self.port = u.hostname, u.port
        self.headers = {"Accept": "application/json"}
        if token:
            self.headers["Authorization"] = "Bearer " + token
        self.conn = None

    def request(self, method, path, body=None, ctype="application/json"):
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            headers = dict(self.headers)
            data = None
            if body is not None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                headers["Content-Type"] = ctype
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                text = r.read()
                return r.status, (json.loads(text) if text else None)
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise RuntimeError("unreachable")


class ProfileWatch(threading.Thread):
    """Watches gpuprofiles; keeps every profile's latest state and a timeline of matchedDevices."""

    def __init__(self, url, token, expected):
        super().__init__(daemon=True)
        self.url, self.token, self.expected = url, token, expected
        self.lock = threading.Lock()
        self.state = {}          # name -> (generation, observedGeneration, ready, matched)
        self.timeline = collections.defaultdict(list)   # name -> [(t, matchedDevices)]
        self.all_ready_at = None
        self.status_events = 0
        self.stopped = False
        self.rv = None

    def run(self):
        u = urllib.parse.urlparse(self.url)
        while not self.stopped:
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=3600)
            q = "watch=true"
            if self.rv:
                q += "&resourceVersion=" + self.rv
            try:
                conn.request("GET", PROFILES_PATH + "?" + q,
                             headers={"Authorization": "Bearer " + self.token})
                r = conn.getresponse()
                while not self.stopped:
                    line = r.readline()
                    if not line:
                        break
                    t = time.monotonic()
                    ev = json.loads(line)
                    if ev.get("type") == "ERROR":
                        self.rv = None   # 410: start over from the current state
                        break
                    self.on_event(t, ev)
            except (http.client.HTTPException, ConnectionError, OSError, ValueError):
                pass
            conn.close()
            time.sleep(0.05)

    def on_event(self, t, ev):
        obj = ev["object"]
        meta = obj.get("metadata", {})
        self.rv = meta.get("resourceVersion", self.rv)
        if ev["type"] not in ("ADDED", "MODIFIED"):
            return
        status = obj.get("status") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                    for c in status.get("conditions", []))
        entry = (meta.get("generation"), status.get("observedGeneration"), ready,
                 status.get("matchedDevices"))
        with self.lock:
            self.status_events += 1
            self.state[meta["name"]] = entry
            if entry[3] is not None:
                self.timeline[meta["name"]].append((t, entry[3]))
            if self.all_ready_at is None and len(self.state) == self.expected and all(
                    g is not None and g == og and rd for g, og, rd, _ in self.state.values()):
                self.all_ready_at = t

    def snapshot(self):
        with self.lock:
            return dict(self.state)


class Audit:
    """Reads the emulator's audit log between byte offsets."""

    def __init__(self, path):
        self.path = path

    def offset(self):
        return os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def lines(self, start, end=None):
        with open(self.path, "rb") as f:
            f.seek(start)
            data = f.read() if end is None else f.read(end - start)
        out = []
        for raw in data.splitlines():
            try:
                out.append(json.loads(raw))
            except ValueError:
                pass
        return out

    def last_write_line(self, start, user):
        """Byte offset up to which the log has been read, and the number of user writes."""
        end = self.offset()
        writes = sum(1 for a in self.lines(start, end)
                     if a.get("user") == user and a.get("verb") in WRITE_VERBS)
        return end, writes


def resource_of(path):
    parts = [p for p in path.split("/") if p]
    if not parts or parts[0] not in ("api", "apis"):
        return "other"
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    if not rest:
        return "discovery"
    if rest[0] == "namespaces" and len(rest) > 2:
        rest = rest[2:]
    return rest[0] + ("/" + rest[2] if len(rest) > 2 else "")


def count(lines, user=None):
    by_verb = collections.Counter()
    by_verb_resource = collections.Counter()
    errors = collections.Counter()
    for a in lines:
        if user is not None and a.get("user") != user:
            continue
        res = resource_of(a.get("path", ""))
        verb = a.get("verb", "?")
        if res == "discovery" or a.get("path", "").startswith("/version"):
            verb = "discovery"
        by_verb[verb] += 1
        by_verb_resource["%s %s" % (verb, res)] += 1
        if a.get("code", 200) >= 400:
            errors["%s %s %s" % (a.get("code"), verb, res)] += 1
    return by_verb, by_verb_resource, errors


def version_flags(args):
    """--kube-version and --feature-gates, as kube-emulator, `run` and `render` take them."""
    argv = ["--kube-version", args.kube_version]
    if args.feature_gates:
        argv += ["--feature-gates", args.feature_gates]
    return argv


def start_emulator(args, work, name, seeds, token_file=None):
    url_file = os.path.join(work, name + ".url")
    audit = os.path.join(work, name + ".audit.jsonl")
    argv = [os.path.join(args.build, "e2e", "kube-emulator")] + version_flags(args) + [
            "--audit-log", audit, "--kubeconfig-out", os.path.join(work, name + ".kubeconfig")]
    for s in seeds:
        argv += ["-f", s]
    if token_file:
        argv += ["--token-file", token_file]
    out = open(url_file, "w")
    err = open(os.path.join(work, name + ".err"), "w")
    t = time.monotonic()
    proc = subprocess.Popen(argv, stdout=out, stderr=err)
    STARTED.append(proc)
    while True:
        if proc.poll() is not None:
            sys.exit("kube-emulator exited: see %s" % err.name)
        with open(url_file) as f:
            url = f.readline().strip()
        if url and os.path.exists(os.path.join(work, name + ".kubeconfig")):
            break
        time.sleep(0.1)
    log("%s emulator up at %s (seeded in %.1f s)" % (name, url, time.monotonic() - t))
    return proc, url, audit


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def proc_status(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def wait_quiet(audit, start, user, quiet_s, timeout_s):
    """Waits until `user` issued no write for quiet_s; returns the offset at the last write seen."""
    deadline = time.monotonic() + timeout_s
    pos = start
    last_change = time.monotonic()
    mark = audit.offset()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        end, writes = audit.last_write_line(pos, user)
        pos = end
        if writes:
            last_change = time.monotonic()
            mark = end
        elif time.monotonic() - last_change >= quiet_s:
            return mark, True
    return audit.offset(), False


def percentile(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(round(q / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def operator_round(args, data, desired_counts, work):
    tokens = os.path.join(work, "tokens.csv")
    with open(tokens, "w") as f:
        f.write('%s,bench,bench-uid,"system:masters"\n' % BENCH_TOKEN)
        f.write('%s,%s,operator-uid,"system:masters"\n' % (OPERATOR_TOKEN, OPERATOR_USER))
    seeds = [os.path.join(ROOT, "crds"), os.path.join(data, "slices.json"),
             os.path.join(data, "namespaces.json")]
    emu, url, audit_path = start_emulator(args, work, "operator", seeds, tokens)
    audit = Audit(audit_path)
    opcfg = os.path.join(work, "operator.kubeconfig")
    with open(opcfg, "w") as f:
        f.write(kubeconfig(url, OPERATOR_TOKEN))
    with open(os.path.join(data, "profiles.json")) as f:
        profiles = json.load(f)["items"]
    client = Client(url, BENCH_TOKEN)
    # Remember the L4 slices (the churn's targets) while nothing else is happening.
    code, slices = client.request("GET", SLICES_PATH)
    assert code == 200, code
    l4 = [s for s in slices["items"]
          if s["spec"]["devices"][0]["attributes"]["productName"]["string"] == "NVIDIA L4"]
    del slices
    watch = ProfileWatch(url, BENCH_TOKEN, len(profiles))
    watch.start()
    time.sleep(0.5)
    r = {}
    audit_start = audit.offset()
    oplog = open(os.path.join(work, "operator.log"), "w")
    argv = [args.controller, "run", "--kubeconfig", opcfg,
            "--leader-elect=false", "--metrics-bind-address", "0",
            "--health-probe-bind-address", "0", "--kube-api-qps", "1000",
            "--kube-api-burst", "2000", "--log-level", args.log_level] + args.operator_flag
    if args.feature_gates:
        argv += ["--feature-gates", args.feature_gates]
    env = dict(os.environ)
    if args.malloc_arena_max:
        env["MALLOC_ARENA_MAX"] = str(args.malloc_arena_max)  # as config/manager sets it
    else:
        env.pop("MALLOC_ARENA_MAX", None)
    t0 = time.monotonic()
    op = subprocess.Popen(argv, stderr=oplog, stdout=oplog, env=env)
    STARTED.append(op)
    for p in profiles:
        code, body = client.request("POST", PROFILES_PATH, p)
        if code != 201:
            sys.exit("creating %s: %d %s" % (p["metadata"]["name"], code, body))
    r["profiles_applied_s"] = time.monotonic() - t0
    deadline = t0 + args.ready_timeout
    while watch.all_ready_at is None and time.monotonic() < deadline:
        if op.poll() is not None:
            sys.exit("the operator exited (%s): see %s" % (op.returncode, oplog.name))
        time.sleep(0.1)
    if watch.all_ready_at is None:
        st = watch.snapshot()
        n_ready = sum(1 for g, og, rd, _ in st.values() if g == og and rd)
        log("TIMEOUT: %d of %d profiles Ready after %d s" % (n_ready, len(profiles),
                                                             args.ready_timeout))
        r["ready_s"] = None
    else:
        r["ready_s"] = watch.all_ready_at - t0
        log("all %d profiles Ready after %.2f s" % (len(profiles), r["ready_s"]))
    r["rss_at_ready"] = proc_status(op.pid, "VmRSS")
    conv_end, quiet = wait_quiet(audit, audit_start, OPERATOR_USER, 3, 120)
    r["converge_quiet"] = quiet
    by_verb, by_vr, errors = count(audit.lines(audit_start, conv_end), OPERATOR_USER)
    r["requests"] = dict(by_verb)
    r["requests_detail"] = dict(by_vr)
    r["request_errors"] = dict(errors)
    # What is on the server, against render's output.
    on_server = {}
    for kind, path in (("ResourceClaimTemplate", "/apis/resource.k8s.io/v1/resourceclaimtemplates"),
                       ("DeviceClass", "/apis/resource.k8s.io/v1/deviceclasses"),
                       ("GpuNodeGroup", "/apis/gpuprofile.io/v1alpha1/gpunodegroups")):
        code, body = client.request("GET", path)
        on_server[kind] = len(body["items"]) if code == 200 else None
    # The operator's quotas only (labelled as it labels them); namespaces may hold others.
    code, body = client.request("GET", "/api/v1/resourcequotas?labelSelector=" +
                                urllib.parse.quote(MANAGED_BY))
    on_server["ResourceQuota"] = len(body["items"]) if code == 200 else None
    r["on_server"] = on_server
    r["matches_render"] = all(on_server[k] == desired_counts.get(k, 0) for k in on_server)
    log("on the server: %s (render: %s)" % (on_server, desired_counts))

    # Churn: one more device on an L4 slice per update.
    base = {n: e[3] for n, e in watch.snapshot().items()}
    n_updates = int(args.churn_rate * args.churn_seconds)
    sent = []
    devices = {s["metadata"]["name"]: list(s["spec"]["devices"]) for s in l4}
    names = [s["metadata"]["name"] for s in l4]
    writer = Client(url, BENCH_TOKEN)
    write_errors = 0
    churn_start = time.monotonic()
    audit_churn = audit.offset()
    for j in range(n_updates):
        due = churn_start + j / args.churn_rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        name = names[j % len(names)]
        dev = json.loads(json.dumps(devices[name][0]))
        dev["name"] = "gpu-x%d" % j
        dev["attributes"]["uuid"] = {"string": "GPU-bench-%08d" % j}
        dev["attributes"]["resource.kubernetes.io/pciBusID"] = {
            "string": "0001:%02x:%02x.0" % (j // 256 % 256, j % 256)}
        devices[name].append(dev)
        ts = time.monotonic()
        code, _ = writer.request("PATCH", SLICES_PATH + "/" + name,
                                 {"spec": {"devices": devices[name]}},
                                 "application/merge-patch+json")
        if code != 200:
            write_errors += 1
        sent.append(ts)
    churn_end = time.monotonic()
    r["churn_rate_achieved"] = n_updates / (churn_end - churn_start)
    r["churn_write_errors"] = write_errors
    # Which profiles select L4 devices: those whose count must grow by n_updates.
    deadline = time.monotonic() + args.churn_timeout
    affected = []
    while time.monotonic() < deadline:
        st = watch.snapshot()
        affected = [n for n in st if st[n][3] is not None and base.get(n) is not None
                    and st[n][3] > base[n]]
        done = [n for n in affected if st[n][3] >= base[n] + n_updates]
        if affected and len(done) == len(affected) and time.monotonic() - churn_end > 3:
            break
        time.sleep(0.25)
    st = watch.snapshot()
    r["churn_settle_s"] = time.monotonic() - churn_end
    r["churn_affected_profiles"] = len(affected)
    r["churn_incomplete_profiles"] = sum(1 for n in affected if st[n][3] < base[n] + n_updates)
    lat = []
    missing = 0
    with watch.lock:
        timelines = {n: list(watch.timeline[n]) for n in affected}
    for n in affected:
        tl = [(t, m) for t, m in timelines[n] if t >= churn_start]
        k = 0
        for j, ts in enumerate(sent):
            need = base[n] + j + 1
            while k < len(tl) and tl[k][1] < need:
                k += 1
            if k == len(tl):
                missing += len(sent) - j
                break
            lat.append(tl[k][0] - ts)
    r["churn_latency_p50_ms"] = percentile(lat, 50) * 1000
    r["churn_latency_p99_ms"] = percentile(lat, 99) * 1000
    r["churn_latency_max_ms"] = max(lat) * 1000 if lat else float("nan")
    r["churn_pairs"] = len(lat)
    r["churn_pairs_missing"] = missing
    log("churn: %d updates at %.1f/s, %d profiles affected, p50 %.0f ms p99 %.0f ms" % (
        n_updates, r["churn_rate_achieved"], len(affected), r["churn_latency_p50_ms"],
        r["churn_latency_p99_ms"]))
    churn_quiet_end, _ = wait_quiet(audit, audit_churn, OPERATOR_USER, 3, 120)
    by_verb, by_vr, _ = count(audit.lines(audit_churn, churn_quiet_end), OPERATOR_USER)
    r["churn_requests"] = dict(by_vr)
    r["rss_peak_before_relist"] = proc_status(op.pid, "VmHWM")

    # Idle, then idle after every watch is dropped and the history compacted (forced relist).
    idle_start = audit.offset()
    time.sleep(args.idle_seconds)
    by_verb, by_vr, _ = count(audit.lines(idle_start), OPERATOR_USER)
    r["idle_requests"] = dict(by_vr)
    r["idle_writes"] = sum(v for k, v in by_verb.items() if k in WRITE_VERBS)
    r["rss_before_relist"] = proc_status(op.pid, "VmRSS")
    relist_start = audit.offset()
    code1, _ = client.request("POST", "/emulator/compact", b"")
    code2, _ = client.request("POST", "/emulator/watches/drop", b"")
    time.sleep(args.idle_seconds)
    by_verb, by_vr, _ = count(audit.lines(relist_start), OPERATOR_USER)
    r["relist_requests"] = dict(by_vr)
    r["relist_writes"] = sum(v for k, v in by_verb.items() if k in WRITE_VERBS)
    r["relist_lists"] = by_verb.get("list", 0)
    log("idle writes %d; after compact+drop (%d %d): writes %d, lists %d" % (
        r["idle_writes"], code1, code2, r["relist_writes"], r["relist_lists"]))
    r["rss_peak"] = proc_status(op.pid, "VmHWM")
    r["rss_end"] = proc_status(op.pid, "VmRSS")
    watch.stopped = True
    stop(op)
    stop(emu)
    return r


def kubectl_round(args, data, work):
    """kubectl apply of render's output. The operator's objects carry a controller
    ownerReference to their profile (render omits it: uids are the server's), and on
    kube-emulator every write costs a garbage-collector scan once any object has an
    ownerReference; so, to apply the same objects, the profiles go first and the classes and
    templates get the ownerReference to the profile's uid (--no-owner-refs: render's bytes)."""
    seeds = [os.path.join(ROOT, "crds"), os.path.join(data, "slices.json"),
             os.path.join(data, "namespaces.json")]
    emu, url, audit_path = start_emulator(args, work, "kubectl", seeds)
    cfg = os.path.join(work, "kubectl.kubeconfig")
    cache = os.path.join(work, "kube-cache")
    items = []
    for c in sorted(os.listdir(args.desired)):
        with open(os.path.join(args.desired, c)) as f:
            items += json.load(f)["items"]
    profiles = [i for i in items if i["kind"] == "GpuProfile"]
    rest = [i for i in items if i["kind"] != "GpuProfile"]

    def write_chunks(objs, prefix):
        paths = []
        for i in range(0, len(objs), args.chunk):
            # A stream of documents, not a List: kubectl validates a List against
            # /openapi/v2, which the emulator does not serve.
            path = os.path.join(work, "%s-%05d.yaml" % (prefix, i // args.chunk))
            with open(path, "w") as f:
                f.write("\n---\n".join(json.dumps(o) for o in objs[i:i + args.chunk]) + "\n")
            paths.append(path)
        return paths

    def apply(paths):
        for c in paths:
            res = subprocess.run([args.kubectl, "--kubeconfig", cfg, "--cache-dir", cache,
                                  "apply", "--server-side=false", "-f", c],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if res.returncode != 0:
                sys.exit("kubectl apply -f %s failed: %s" % (c, res.stderr.decode()[-2000:]))

    if args.no_owner_refs:
        t0 = time.monotonic()
        apply(write_chunks(items, "all"))
    else:
        profile_chunks = write_chunks(profiles, "profiles")
        t0 = time.monotonic()
        apply(profile_chunks)
        code, body = Client(url).request("GET", PROFILES_PATH)
        uids = {p["metadata"]["name"]: p["metadata"]["uid"] for p in body["items"]}
        for obj in rest:
            owner = obj["metadata"].get("labels", {}).get("gpuprofile.io/profile")
            if owner in uids and obj["kind"] != "GpuNodeGroup":
                obj["metadata"]["ownerReferences"] = [{
                    "apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
                    "name": owner, "uid": uids[owner], "controller": True,
                    "blockOwnerDeletion": True}]
        apply(write_chunks(rest, "rest"))
    r = {"kubectl_s": time.monotonic() - t0}
    by_verb, _, errors = count(Audit(audit_path).lines(0))
    r["kubectl_requests"] = dict(by_verb)
    log("kubectl apply: %.1f s, %s" % (r["kubectl_s"], dict(by_verb)))
    stop(emu)
    return r


def prepare(args):
    data = args.data
    if not os.path.exists(os.path.join(data, "profiles.json")):
        log("generating into %s" % data)
        subprocess.check_call([sys.executable, os.path.join(HERE, "generate.py"), data,
                               "--nodes", str(args.nodes), "--namespaces", str(args.namespaces)]
                              + (["--advanced"] if args.advanced else []))
    # render's objects per release and gates ("desired" for 1.34 without gates, as before).
    desired = os.path.join(data, "desired")
    if args.kube_version != "1.34" or args.feature_gates:
        desired += "-" + args.kube_version + (
            "-" + args.feature_gates.replace("=", "-").replace(",", "_")
            if args.feature_gates else "")
    args.desired = desired
    if not os.path.isdir(desired):
        out = subprocess.run([os.path.join(args.build, "gpu-profile-controller"), "render"]
                             + version_flags(args) + ["-o", "json",
                              "-f", os.path.join(data, "slices.json"),
                              "-f", os.path.join(data, "namespaces.json"),
                              "-f", os.path.join(data, "profiles.json")],
                             stdout=subprocess.PIPE, check=True).stdout
        items = json.loads(out)["items"]
        tmp = desired + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        for i in range(0, len(items), args.chunk):
            with open(os.path.join(tmp, "chunk-%05d.json" % (i // args.chunk)), "w") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "items": items[i:i + args.chunk]}, f)
        os.rename(tmp, desired)
    counts = collections.Counter()
    for c in os.listdir(desired):
        with open(os.path.join(desired, c)) as f:
            for item in json.load(f)["items"]:
                counts[item["kind"]] += 1
    return dict(counts)


def med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--namespaces", type=int, default=200,
                        help="labelled namespaces; every profile selects all of them")
    parser.add_argument("--data", default=None,
                        help="inputs (default BUILD/bench-operator-NODES-NAMESPACES[-advanced])")
    parser.add_argument("--kube-version", default="1.34",
                        help="for kube-emulator, the operator and render (default 1.34)")
    parser.add_argument("--feature-gates", default="",
                        help="--feature-gates for kube-emulator, the operator and render")
    parser.add_argument("--advanced", action="store_true",
                        help="issue 14's fields on part of the profiles (generate.py --advanced)")
    parser.add_argument("--controller", default=None,
                        help="the gpu-profile-controller binary to run (default BUILD's)")
    parser.add_argument("--no-owner-refs", action="store_true",
                        help="kubectl applies render's output as is (no ownerReferences)")
    parser.add_argument("--churn-rate", type=float, default=100)
    parser.add_argument("--churn-seconds", type=float, default=20)
    parser.add_argument("--churn-timeout", type=float, default=120)
    parser.add_argument("--idle-seconds", type=float, default=30)
    parser.add_argument("--ready-timeout", type=float, default=900)
    parser.add_argument("--chunk", type=int, default=2000, help="objects per kubectl apply")
    parser.add_argument("--kubectl", default=None)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--operator-flag", action="append", default=[])
    parser.add_argument("--malloc-arena-max", type=int, default=2,
                        help="MALLOC_ARENA_MAX for the operator, as config/manager/manager.yaml "
                             "sets it (0: unset, glibc's default)")
    parser.add_argument("--skip-kubectl", action="store_true")
    parser.add_argument("--json", default=None, help="write every round and the medians here")
    parser.add_argument("--keep", action="store_true", help="keep each round's work directory")
    parser.add_argument("--summarize", default=None, metavar="JSON", nargs="+",
                        help="print the table of --json files (their rounds together, same "
                             "inputs) and exit")
    args = parser.parse_args()
    if args.summarize:
        rows, meta = [], None
        for path in args.summarize:
            with open(path) as f:
                saved = json.load(f)
            if meta is not None and saved["meta"] != meta:
                sys.exit("%s: not the same inputs as %s" % (path, args.summarize[0]))
            rows += saved["rounds"]
            meta = saved["meta"]
        summarize(rows, meta)
        return 0
    args.data = args.data or os.path.join(args.build, "bench-operator-%d-%d%s" % (
        args.nodes, args.namespaces, "-advanced" if args.advanced else ""))
    args.controller = args.controller or os.path.join(args.build, "gpu-profile-controller")
    if args.kubectl is None:
        found = shutil.which("kubectl")
        d = os.path.dirname(os.path.realpath(found)) if found else ""
        cand = os.path.join(d, "kubectl.1.33")
        args.kubectl = cand if os.path.exists(cand) else found
    desired_counts = prepare(args)
    log("render: %s" % desired_counts)
    rows = []
    meta = {"nodes": args.nodes, "namespaces": args.namespaces, "churn_rate": args.churn_rate,
            "churn_seconds": args.churn_seconds, "idle_seconds": args.idle_seconds,
            "render": desired_counts, "kubectl": not args.skip_kubectl,
            "kube_version": args.kube_version, "feature_gates": args.feature_gates,
            "advanced": args.advanced}
    for i in range(args.rounds):
        work = tempfile.mkdtemp(prefix="gpo-opbench-")
        r = operator_round(args, args.data, desired_counts, work)
        if not args.skip_kubectl:
            r.update(kubectl_round(args, args.data, work))
        rows.append(r)
        log("round %d: %s" % (i + 1, json.dumps(r, sort_keys=True)))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"rounds": rows, "meta": meta}, f, indent=1, sort_keys=True)
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    summarize(rows, meta)
    return 0


def summarize(rows, meta):
    """Prints the table of medians (also: run_benchmark.py --summarize FILE.json)."""
    counts = meta["render"]
    p = counts.get("GpuProfile", 0)
    t = counts.get("ResourceClaimTemplate", 0)
    g = counts.get("GpuNodeGroup", 0)
    q = counts.get("ResourceQuota", 0)
    slice_pages = max(1, -(-meta["nodes"] // SLICE_PAGE_SIZE))
    reads = CACHED_KINDS + (CACHED_KINDS - 1) + slice_pages
    minimum = reads + 3 * p + t + q + 2 * g
    for r in rows:
        req = r["requests"]
        r["requests_total"] = sum(v for k, v in req.items() if k != "discovery")
        r["requests_events"] = r["requests_detail"].get("create events", 0)
        r["requests_no_events"] = r["requests_total"] - r["requests_events"]
        r["matches_render_n"] = int(bool(r.get("matches_render")))
        for key in ("rss_peak", "rss_at_ready", "rss_peak_before_relist", "rss_end"):
            r[key + "_mib"] = (r.get(key) or 0) / 2**20
        if "kubectl_requests" in r:
            r["kubectl_requests_total"] = sum(r["kubectl_requests"].values())
    m = {k: med(rows, k) for k in rows[0] if isinstance(rows[0][k], (int, float))
         and not isinstance(rows[0][k], bool)}
    print()
    print("Operator at scale: Kubernetes %s%s, %d nodes x 8 GPUs, %d profiles%s, %d namespaces, "
          "%d templates, %d ResourceQuotas, %d node groups; churn %g updates/s for %g s; "
          "medians of %d rounds" % (
              meta.get("kube_version", "1.34"),
              " (--feature-gates %s)" % meta["feature_gates"] if meta.get("feature_gates") else "",
              meta["nodes"], p, " (--advanced)" if meta.get("advanced") else "",
              meta["namespaces"], t, q, g, meta["churn_rate"], meta["churn_seconds"], len(rows)))
    print("| figure | median | rounds | target |")
    print("|---|---|---|---|")

    def line(name, key, fmt, target=""):
        vals = [r.get(key) for r in rows]
        each = ", ".join("-" if v is None else fmt % v for v in vals)
        print("| %s | %s | %s | %s |" % (name, "-" if m.get(key) is None else fmt % m[key],
                                         each, target))
    line("operator: start to every profile Ready (s)", "ready_s", "%.1f")
    if meta.get("kubectl"):
        line("kubectl apply of the same objects (s)", "kubectl_s", "%.1f",
             "operator faster")
        line("kubectl requests", "kubectl_requests_total", "%d")
    line("operator requests to converge (no discovery, no events)", "requests_no_events", "%d",
         "minimum %d" % minimum)
    line("operator Events created while converging", "requests_events", "%d")
    line("objects on the server match render's (1 = yes)", "matches_render_n", "%d", "1")
    line("slice updates/s achieved", "churn_rate_achieved", "%.1f", "%g" % meta["churn_rate"])
    line("slice change to profile status, p50 (ms)", "churn_latency_p50_ms", "%.0f")
    line("slice change to profile status, p99 (ms)", "churn_latency_p99_ms", "%.0f")
    line("(update, profile) pairs never observed", "churn_pairs_missing", "%d", "0")
    line("writes in %g s idle" % meta["idle_seconds"], "idle_writes", "%d", "0")
    line("writes in %g s after compact + watch drop" % meta["idle_seconds"], "relist_writes",
         "%d", "0")
    line("lists re-issued after the drop", "relist_lists", "%d")
    line("operator RSS at Ready, VmRSS (MiB)", "rss_at_ready_mib", "%.0f")
    line("operator peak RSS before the forced relist, VmHWM (MiB)", "rss_peak_before_relist_mib",
         "%.0f")
    line("operator peak RSS, VmHWM (MiB)", "rss_peak_mib", "%.0f", "< 100")
    line("operator RSS at the end, VmRSS (MiB)", "rss_end_mib", "%.0f")
    print()
    print("requests by verb and resource (round 1): %s" % json.dumps(
        rows[0]["requests_detail"], sort_keys=True))
    print("minimum = %d reads (a list and a watch per cached kind, slices in %d pages of %d) + "
          "3 x %d profiles + %d templates + %d quotas + 2 x %d node groups = %d" % (
              reads, slice_pages, SLICE_PAGE_SIZE, p, t, q, g, minimum))


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        code = main()
    finally:
        for started in reversed(STARTED):
            stop(started)
    sys.exit(code)
