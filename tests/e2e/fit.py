#!/usr/bin/env python3
"""gpulint's fit arithmetic against the real kube-scheduler, on random pods.

    fit.py nodes SEED                   the hollow nodes to make: one JSON per
                                        line {"name", "capacity"}
    fit.py dra SEED                     the DeviceClass, each node's
                                        ResourceSlice and the claim templates,
                                        as one JSON List (1.34 and later)
    fit.py run SEED PODS GPULINT MINOR  each pod created alone in $NS, the
                                        scheduler's verdict read, compared
                                        with gpulint check --nodes on the
                                        same pods

Pods exercise what NodeResourcesFit adds up: app and init containers, limits
without requests, cpu and memory in mixed units at a node's boundary,
nvidia.com/gpu, hugepages-2Mi, ephemeral-storage, and a RuntimeClass's
overhead. A pod never sets a memory limit above its request: gpulint also
checks the memory limit against the node, which the scheduler does not, and
that check is not what is compared. On a server of minor version MINOR 1.34
or later (1.36 here), pods also have what 1.28 did not take: native sidecars
(init containers with restartPolicy Always, beta and on since 1.29) among
their init containers, pod-level requests and limits (spec.resources, beta
since 1.34), and DRA claims from a ResourceClaimTemplate (resource.k8s.io/v1,
GA in 1.34) for GPUs each node publishes in a ResourceSlice. These are drawn
from a random source of their own, so 1.28's pods stay as they were for a
seed. Every node publishes more devices than a claim asks for, and each
pod's claims are gone before the next pod is made: DRA never decides a pod's
fit here (gpulint does not read ResourceSlices), and what is compared is
that a pod with claims is fit like any other.

For each pod: the same verdict (bound, or unschedulable), and when
unschedulable the same count of nodes under each Insufficient resource.
Exit 1 with every disagreement printed. Needs KUBECTL and NS in the
environment, as lib.sh sets them.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from fractions import Fraction

FIT_LABEL = "gpulint-fit"
FIT_TAINT = {"key": "gpulint-fit", "value": "only", "effect": "NoSchedule"}
RUNTIME_CLASS = "gpulint-fit-kata"
OVERHEAD = {"cpu": "250m", "memory": "120Mi"}

MEMORY = ["1Gi", "1073741824", "1073741823", "1G", "1024Mi", "1025Mi", "1048576Ki", "2G",
          "1536Mi", "2Gi", "1610612736", "1500M", "3000M", "2861Mi", "512Mi", "536870912"]
CPU = ["100m", "250m", "500m", "1", "1500m", "2", "0.5", "1.25", "3500m", "4"]
NODE_CPU = ["1", "2", "3500m", "4", "1.5"]
NODE_MEMORY = ["1Gi", "2G", "1536Mi", "2Gi", "3000M", "1073741824", "4Gi"]


def nodes(seed):
    rnd = random.Random(seed)
    out = []
    for i in range(6):
        cap = {"cpu": rnd.choice(NODE_CPU), "memory": rnd.choice(NODE_MEMORY), "pods": "110"}
        if rnd.random() < 0.6:
            cap["ephemeral-storage"] = rnd.choice(["10Gi", "5G", "2Gi"])
        if rnd.random() < 0.5:
            cap["hugepages-2Mi"] = rnd.choice(["256Mi", "512Mi"])
        if rnd.random() < 0.6:
            cap["nvidia.com/gpu"] = rnd.choice(["1", "2", "4"])
        out.append({"name": "fit-%d" % i, "capacity": cap})
    return out


def container(rnd, name):
    res = {"requests": {}, "limits": {}}
    cpu = rnd.choice(CPU)
    if rnd.random() < 0.5:
        res["requests"]["cpu"] = cpu
        if rnd.random() < 0.3:
            res["limits"]["cpu"] = rnd.choice(["4", "8"])  # at least any request
    else:
        res["limits"]["cpu"] = cpu  # the request defaults to the limit
    memory = rnd.choice(MEMORY)
    mode = rnd.choice(["request", "limit", "both"])
    if mode in ("request", "both"):
        res["requests"]["memory"] = memory
    if mode in ("limit", "both"):
        res["limits"]["memory"] = memory
    if rnd.random() < 0.35:
        gpus = str(rnd.choice([1, 1, 2, 3, 4]))
        res["limits"]["nvidia.com/gpu"] = gpus
    if rnd.random() < 0.2:
        huge = rnd.choice(["128Mi", "256Mi", "512Mi"])
        res["requests"]["hugepages-2Mi"] = huge
        res["limits"]["hugepages-2Mi"] = huge
    if rnd.random() < 0.25:
        res["requests"]["ephemeral-storage"] = rnd.choice(["1Gi", "5G", "6Gi", "10Gi"])
    res = {k: v for k, v in res.items() if v}
    return {"name": name, "image": "busybox:1.36", "resources": res}


def pods(seed, count, minor):
    rnd = random.Random(seed * 7919 + 1)
    extra = random.Random(seed * 7919 + 2)  # newer(): 1.28's pods stay as they were
    out = []
    for i in range(count):
        spec = {
            "restartPolicy": "Never",
            "nodeSelector": {FIT_LABEL: "true"},
            "tolerations": [dict(FIT_TAINT, operator="Equal")],
            "containers": [container(rnd, "app-%d" % j) for j in range(rnd.choice([1, 1, 2]))],
        }
        if rnd.random() < 0.35:
            spec["initContainers"] = [container(rnd, "init-%d" % j)
                                      for j in range(rnd.choice([1, 2]))]
        if rnd.random() < 0.25:
            # What the RuntimeClass admission plugin would set; written here
            # too, so that gpulint's CLI sees it (the API server accepts it
            # when it equals the class's).
            spec["runtimeClassName"] = RUNTIME_CLASS
            spec["overhead"] = dict(OVERHEAD)
        if minor >= 34:
            newer(extra, spec, i)
        out.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "fit-%03d" % i, "labels": {"app": "gpulint-fit"}},
                    "spec": spec})
    return out


# DRA: a class of the policy's GPU device classes, DEVICES devices on every
# node, and claim templates asking 1 or 2 of them.
DEVICE_CLASS = "gpu.nvidia.com"
DEVICES = 4
CLAIM_TEMPLATES = {"gpulint-fit-gpu-%d" % n: n for n in (1, 2)}


def dra(seed):
    """The DeviceClass, each fit node's ResourceSlice and the templates."""
    items = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
              "metadata": {"name": DEVICE_CLASS},
              "spec": {"selectors": [{"cel": {"expression": "device.driver == '%s'" % DEVICE_CLASS}}]}}]
    for n in nodes(seed):
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                      "metadata": {"name": n["name"] + "-gpu"},
                      "spec": {"driver": DEVICE_CLASS, "nodeName": n["name"],
                               "pool": {"name": n["name"], "generation": 1, "resourceSliceCount": 1},
                               "devices": [{"name": "gpu-%d" % i,
                                            "capacity": {"memory": {"value": "80Gi"}}}
                                           for i in range(DEVICES)]}})
    return items + templates()


def templates():
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": name},
             "spec": {"spec": {"devices": {"requests": [
                 {"name": "gpu", "exactly": {"deviceClassName": DEVICE_CLASS, "count": count}}]}}}}
            for name, count in CLAIM_TEMPLATES.items()]


def quantity(text):
    """A Kubernetes quantity as an exact Fraction (bytes, cores)."""
    m = re.fullmatch(r"([0-9.]+)(Ki|Mi|Gi|Ti|m|k|M|G|T)?", text)
    binary = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4}
    decimal = {"m": -3, None: 0, "k": 3, "M": 6, "G": 9, "T": 12}
    n, suffix = Fraction(m.group(1)), m.group(2)
    return n * 1024 ** binary[suffix] if suffix in binary else n * Fraction(10) ** decimal[suffix]


def effective(c, resource):
    """A container's request as the API server defaults it: else its limit."""
    res = c.get("resources", {})
    q = res.get("requests", {}).get(resource) or res.get("limits", {}).get(resource)
    return quantity(q) if q else Fraction(0)


def text_of(value, resource):
    return "%dm" % (value * 1000) if resource == "cpu" else str(int(value))


def add_pod_level(rnd, spec):
    """spec.resources for cpu and/or memory that the API server accepts: the
    request at least every container's requests together (at least what
    Kubernetes aggregates, sidecars or not), the limit at least the request
    and any container's limit; memory's limit is its request."""
    containers = spec["containers"] + spec.get("initContainers", [])
    requests, limits = {}, {}
    for resource, choices in (("cpu", CPU), ("memory", MEMORY)):
        if rnd.random() < 0.4:
            continue
        floor = sum(effective(c, resource) for c in containers)
        pick = rnd.choice(choices)
        requests[resource] = pick if quantity(pick) >= floor else text_of(floor, resource)
        biggest = max([quantity(requests[resource])] +
                      [quantity(c["resources"]["limits"][resource]) for c in containers
                       if resource in c.get("resources", {}).get("limits", {})])
        if resource == "memory" or rnd.random() < 0.5:
            limits[resource] = requests[resource] if biggest == quantity(requests[resource]) \
                else text_of(biggest, resource)
    if requests:
        spec["resources"] = {"requests": requests}
        if limits:
            spec["resources"]["limits"] = limits


def newer(rnd, spec, i):
    """What 1.28 does not take, drawn from `rnd` alone."""
    if rnd.random() < 0.35:
        inits = spec.setdefault("initContainers", [])
        for j in range(rnd.choice([1, 1, 2])):
            sidecar = container(rnd, "sidecar-%d" % j)
            sidecar["restartPolicy"] = "Always"
            inits.insert(rnd.randint(0, len(inits)), sidecar)
    if rnd.random() < 0.3:
        add_pod_level(rnd, spec)
    if rnd.random() < 0.3:
        template = rnd.choice(sorted(CLAIM_TEMPLATES))
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
        rnd.choice(spec["containers"])["resources"]["claims"] = [{"name": "gpu"}]


def kubectl(*args, stdin=None, check=True):
    r = subprocess.run([os.environ["KUBECTL"], "--request-timeout=20s", *args], input=stdin,
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("kubectl %s: %s" % (" ".join(args), r.stderr.strip()))
    return r


INSUFFICIENT_SCHED = re.compile(r"(\d+) Insufficient ([\w./-]*\w)")
INSUFFICIENT_GPULINT = re.compile(r"(\d+) insufficient ([\w./-]*\w)( \(limit\))?:")
CANDIDATES = re.compile(r"fits on none of its (\d+) candidate")


def scheduler_verdict(ns, name, limit=20):
    """('bound', {}) or ('unschedulable', {resource: nodes})."""
    deadline = time.time() + limit
    while time.time() < deadline:
        pod = json.loads(kubectl("get", "pod", name, "-n", ns, "-o", "json").stdout)
        if pod["spec"].get("nodeName"):
            return "bound", {}
        events = json.loads(kubectl("get", "events", "-n", ns, "-o", "json",
                                    "--field-selector", "involvedObject.name=" + name).stdout)
        for e in events["items"]:
            # A pod with claims may first wait for them to be made: not a verdict.
            if e.get("reason") == "FailedScheduling" and re.match(r"0/\d+ nodes are available", e["message"]):
                msg = e["message"].split("preemption:")[0]
                return "unschedulable", {r: int(n) for n, r in INSUFFICIENT_SCHED.findall(msg)}
        time.sleep(0.2)
    return "undecided", {}


def gpulint_verdicts(gpulint, all_pods, fit_nodes, tmp):
    nodes_file = os.path.join(tmp, "nodes.json")
    with open(nodes_file, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": n["name"], "labels": {FIT_LABEL: "true",
                                                         "kubernetes.io/hostname": n["name"]}},
             "spec": {"taints": [FIT_TAINT]},
             "status": {"capacity": n["capacity"], "allocatable": n["capacity"]}}
            for n in fit_nodes]}, f)
    policy = os.path.join(tmp, "policy.yaml")
    with open(policy, "w") as f:
        # The scheduler keeps nothing free beyond allocatable: no reserve.
        f.write("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                "  reserved: {memory: {percent: 0, perGpu: '0'}}\n")
    pods_file = os.path.join(tmp, "pods.json")
    with open(pods_file, "w") as f:
        # The claim templates first, so that the pods' claims resolve.
        json.dump({"apiVersion": "v1", "kind": "List", "items": templates() + all_pods}, f)
    r = subprocess.run([gpulint, "check", "--format", "json", "--fail-on", "none", "--policy", policy,
                        "--nodes", nodes_file, pods_file], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: gpulint check exited %d: %s" % (r.returncode, r.stderr.strip()))
    out = {p["metadata"]["name"]: ["bound", {}] for p in all_pods}
    for f in json.loads(r.stdout)["findings"]:
        name = (f.get("object") or {}).get("name")
        if name not in out:
            continue
        if f["rule"] == "exceeds-allocatable":
            groups = {res: int(n) for n, res, limit in INSUFFICIENT_GPULINT.findall(f["message"])
                      if not limit}
            out[name][1].update(groups)
            if groups:
                out[name][0] = "unschedulable"
        elif f["rule"] == "unknown-resource":
            # No node offers it: the scheduler counts it insufficient on every
            # node the pod may go to, all the fit nodes here.
            res = re.search(r"asks for ([\w./-]+), which no node", f["message"]).group(1)
            out[name][1][res] = len(fit_nodes)
            out[name][0] = "unschedulable"
    return out


def claims_gone(ns, limit=30):
    """Whether the namespace's ResourceClaims are all deleted (the pods that
    held them are), within `limit` seconds."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if not json.loads(kubectl("get", "resourceclaims", "-n", ns, "-o", "json").stdout)["items"]:
            return True
        time.sleep(0.2)
    return False


def run(seed, count, gpulint, minor):
    ns = os.environ["NS"]
    fit_nodes = nodes(seed)
    all_pods = pods(seed, count, minor)
    with tempfile.TemporaryDirectory() as tmp:
        ours = gpulint_verdicts(gpulint, all_pods, fit_nodes, tmp)
    disagreements, rejected, tally = [], [], {"bound": 0, "unschedulable": 0}
    for pod in all_pods:
        name = pod["metadata"]["name"]
        r = kubectl("create", "-n", ns, "-f", "-", stdin=json.dumps(pod), check=False)
        if r.returncode != 0:
            rejected.append("%s: %s" % (name, r.stderr.strip()))
            continue
        theirs = scheduler_verdict(ns, name)
        kubectl("delete", "pod", name, "-n", ns, "--force", "--grace-period=0", check=False)
        if pod["spec"].get("resourceClaims") and not claims_gone(ns):
            rejected.append("%s: its ResourceClaims were not deleted within 30 s" % name)
        tally[theirs[0]] = tally.get(theirs[0], 0) + 1
        if list(theirs) != ours[name]:
            disagreements.append("%s: scheduler %s %s, gpulint %s %s\n      %s" % (
                name, theirs[0], json.dumps(theirs[1], sort_keys=True), ours[name][0],
                json.dumps(ours[name][1], sort_keys=True), json.dumps(pod["spec"])))
    newer_pods = {k: sum(1 for p in all_pods if has(p["spec"])) for k, has in (
        ("sidecars", lambda s: any(c.get("restartPolicy") == "Always" for c in s.get("initContainers", []))),
        ("pod-level", lambda s: "resources" in s), ("DRA claims", lambda s: "resourceClaims" in s))}
    print("fit: seed %d, %d pods on %d nodes: %d bound, %d unschedulable by the scheduler; "
          "%d refused by the API server; %d disagreements%s" % (
              seed, count, len(fit_nodes), tally["bound"], tally["unschedulable"], len(rejected),
              len(disagreements), "" if minor < 34 else "; with %s" % ", ".join(
                  "%s %d" % (k, n) for k, n in newer_pods.items())))
    for line in rejected:
        print("  refused: " + line)
    for line in disagreements:
        print("  DISAGREE " + line)
    return 1 if disagreements or rejected or tally.get("undecided") else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "nodes":
        for n in nodes(int(sys.argv[2])):
            print(json.dumps(n))
    elif len(sys.argv) == 3 and sys.argv[1] == "dra":
        print(json.dumps({"apiVersion": "v1", "kind": "List", "items": dra(int(sys.argv[2]))}))
    elif len(sys.argv) == 6 and sys.argv[1] == "run":
        sys.exit(run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])))
    else:
        sys.exit(__doc__)
