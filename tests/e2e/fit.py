#!/usr/bin/env python3
"""gpulint's fit arithmetic against the real kube-scheduler, on random pods.

    fit.py nodes SEED MINOR             the hollow nodes to make: one JSON per
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
since 1.34), DRA claims from ResourceClaimTemplates (resource.k8s.io/v1, GA
in 1.34), and GPUs through DRA's extended resources (DRAExtendedResource,
beta and on in 1.36): a DeviceClass backs nvidia.com/gpu, the name the
nodes' device plugins list, its CEL selector keeps some of the devices each
node publishes in a ResourceSlice and drops others, and pods ask
nvidia.com/gpu or the class's implicit name, as many as some node holds,
one more, or more than any. Three more nodes make sure of a node with both a
device plugin's GPUs and devices (kube-scheduler 1.36 fits nvidia.com/gpu on
it by its allocatable when that is more than 0, by its devices otherwise).
All of this is drawn from random sources of their own, so 1.28's nodes and
pods stay as they were for a seed, byte for byte. Each pod's claims, and
the one the scheduler makes for its extended resources, are gone before the
next pod is made: no device is taken when the next is judged.

For each pod: the same verdict (bound, or unschedulable), and when
unschedulable the same count of nodes under each Insufficient resource and
under "cannot allocate all claims". Exit 1 with every disagreement printed,
or when a run on 1.36 of 24 pods or more misses a DRA case it is meant to
cover. Needs KUBECTL and NS in the environment, as lib.sh sets them.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from fit_cases import (EXTENDED, FIT_LABEL, FIT_TAINT, IMPLICIT, asks_dra, dra, fit_nodes, pod_request,
                       pods, templates, two_rules)


def kubectl(*args, stdin=None, check=True):
    r = subprocess.run([os.environ["KUBECTL"], "--request-timeout=20s", *args], input=stdin,
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("kubectl %s: %s" % (" ".join(args), r.stderr.strip()))
    return r


INSUFFICIENT_SCHED = re.compile(r"(\d+) Insufficient ([\w./-]*\w)")
INSUFFICIENT_GPULINT = re.compile(r"(\d+) insufficient ([\w./-]*\w)( \(limit\))?:")
CANDIDATES = re.compile(r"fits on none of its (\d+) candidate")
# The DynamicResources filter's word for a node whose devices cannot serve
# the pod's claims (the scheduler's) or its DRA-backed extended resources.
CLAIMS = "cannot allocate all claims"
CLAIMS_COUNT = re.compile(r"(\d+) cannot allocate all claims")


# kube-scheduler 1.36.2 picks a node for a pod with a ResourceClaim and an
# extended resource the class backs where the node's device plugin lists
# that resource, and then fails its PreBind every time: DynamicResources
# makes the claim for the pod's extended resources with nothing in it. The
# pod fits (every filter passed on the node it picked); it is never bound.
PREBIND_BUG = re.compile(r'running PreBind plugin "DynamicResources": nil or empty request mappings')


def scheduler_verdict(ns, name, limit=20):
    """('bound', {}, how) or ('unschedulable', {resource or CLAIMS: nodes},
    None); `how` names the claim made for its extended resources, or is
    PREBIND_BUG when a node was picked but the binding failed so."""
    deadline = time.time() + limit
    while time.time() < deadline:
        pod = json.loads(kubectl("get", "pod", name, "-n", ns, "-o", "json").stdout)
        if pod["spec"].get("nodeName"):
            claim = (pod.get("status", {}).get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
            return "bound", {}, claim
        events = json.loads(kubectl("get", "events", "-n", ns, "-o", "json",
                                    "--field-selector", "involvedObject.name=" + name).stdout)
        for e in events["items"]:
            if e.get("reason") == "FailedScheduling" and PREBIND_BUG.match(e["message"]):
                return "bound", {}, PREBIND_BUG
            # A pod with claims may first wait for them to be made: not a verdict.
            if e.get("reason") == "FailedScheduling" and re.match(r"0/\d+ nodes are available", e["message"]):
                msg = e["message"].split("preemption:")[0]
                counts = {r: int(n) for n, r in INSUFFICIENT_SCHED.findall(msg)}
                counts.update({CLAIMS: int(n) for n in CLAIMS_COUNT.findall(msg)})
                return "unschedulable", counts, None
        time.sleep(0.2)
    return "undecided", {}, None


def gpulint_verdicts(gpulint, all_pods, fit, dra_objects, tmp):
    """gpulint check --nodes of the fit nodes and their DRA objects, as
    `kubectl get nodes,deviceclasses,resourceslices` gives them."""
    nodes_file = os.path.join(tmp, "nodes.json")
    with open(nodes_file, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": n["name"], "labels": {FIT_LABEL: "true",
                                                         "kubernetes.io/hostname": n["name"]}},
             "spec": {"taints": [FIT_TAINT]},
             "status": {"capacity": n["capacity"], "allocatable": n["capacity"]}}
            for n in fit] + dra_objects}, f)
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
            groups.update({CLAIMS: int(n) for n in CLAIMS_COUNT.findall(f["message"])})
            out[name][1].update(groups)
            if groups:
                out[name][0] = "unschedulable"
        elif f["rule"] == "dra-cannot-tell":
            # Every device here is one gpulint can judge: never expected.
            out[name][0] = "cannot tell"
        elif f["rule"] == "unknown-resource":
            # No node offers it: the scheduler counts it insufficient on every
            # node the pod may go to, all the fit nodes here.
            res = re.search(r"asks for ([\w./-]+), which no node", f["message"]).group(1)
            out[name][1][res] = len(fit)
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
    fit = fit_nodes(seed, minor)
    all_pods = pods(seed, count, minor)
    with tempfile.TemporaryDirectory() as tmp:
        ours = gpulint_verdicts(gpulint, all_pods, fit, dra(seed) if minor >= 34 else [], tmp)
    disagreements, rejected, tally = [], [], {"bound": 0, "unschedulable": 0}
    through_claims, short_of_devices, prebind, problems = 0, 0, [], []
    for pod in all_pods:
        name = pod["metadata"]["name"]
        r = kubectl("create", "-n", ns, "-f", "-", stdin=json.dumps(pod), check=False)
        if r.returncode != 0:
            rejected.append("%s: %s" % (name, r.stderr.strip()))
            continue
        *theirs, how = scheduler_verdict(ns, name)
        kubectl("delete", "pod", name, "-n", ns, "--force", "--grace-period=0", check=False)
        # Its claims, and the one the scheduler made for its extended
        # resources (<pod>-extended-resources-*), hold devices until deleted.
        if minor >= 34 and asks_dra(pod["spec"]) and not claims_gone(ns):
            problems.append("%s: its ResourceClaims were not deleted within 30 s" % name)
        if how is PREBIND_BUG:
            prebind.append(name)
        elif how:
            through_claims += 1
            if not how.startswith(name + "-extended-resources-"):
                problems.append("%s: bound through claim %s, not %s-extended-resources-*" % (name, how, name))
        short_of_devices += 1 if theirs[1].get(CLAIMS) else 0
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
              seed, count, len(fit), tally["bound"], tally["unschedulable"], len(rejected),
              len(disagreements), "" if minor < 34 else "; with %s" % ", ".join(
                  "%s %d" % (k, n) for k, n in newer_pods.items())))
    if minor >= 34:
        asking = sum(1 for p in all_pods if any(pod_request(p["spec"], r) > 0 for r in (EXTENDED, IMPLICIT)))
        by_plugin, by_devices = two_rules(seed, all_pods, False), two_rules(seed, all_pods, True)
        print("  DRA: %d slices; %d pods ask nvidia.com/gpu or %s, %d bound through a claim the "
              "scheduler made, %d with nodes that cannot allocate all claims; on a node with "
              "both, %d decided by allocatable, not devices, %d by devices, allocatable 0" % (
                  len(dra(seed)) - 1, asking, IMPLICIT, through_claims, short_of_devices,
                  by_plugin, by_devices))
        if prebind:
            print("  %d given a node, never bound (kube-scheduler's PreBind fails: a claim and a "
                  "device plugin's nvidia.com/gpu): %s" % (len(prebind), " ".join(prebind)))
        if count >= 24 and not (through_claims and short_of_devices and by_plugin and by_devices):
            problems.append("seed %d covers not every DRA case above: pick another" % seed)
    for line in rejected:
        print("  refused: " + line)
    for line in problems:
        print("  problem: " + line)
    for line in disagreements:
        print("  DISAGREE " + line)
    return 1 if disagreements or rejected or problems or tally.get("undecided") else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "nodes":
        for n in fit_nodes(int(sys.argv[2]), int(sys.argv[3])):
            print(json.dumps(n))
    elif len(sys.argv) == 3 and sys.argv[1] == "dra":
        print(json.dumps({"apiVersion": "v1", "kind": "List", "items": dra(int(sys.argv[2])) + templates()}))
    elif len(sys.argv) == 6 and sys.argv[1] == "run":
        sys.exit(run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])))
    else:
        sys.exit(__doc__)
