"""Scenario l's random cases (tests/e2e/fit.py compares them): the fit
nodes, their DRA objects on 1.34 and later, and the pods, each from a random
source of its own so that what a newer version adds leaves older versions'
cases as they were for a seed."""
import random
import re

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
    dra_rnd = random.Random(seed * 7919 + 4)  # extended(): newer()'s pods stay as they were
    offers = sorted(set(offered(seed).values())) if minor >= 34 else []
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
            extended(dra_rnd, spec, offers)
        out.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "fit-%03d" % i, "labels": {"app": "gpulint-fit"}},
                    "spec": spec})
    return out


# DRA (1.34 and later): NVIDIA's class, backing nvidia.com/gpu as a device
# plugin names it (DRAExtendedResource) and its implicit name, so that the
# base pods' GPUs are DRA's wherever a node does not list them. Its selector
# keeps a GPU of 40Gi or more, or an L4, and drops MIG devices: which devices
# a node has for it depends on the selector. Each fit node publishes a
# ResourceSlice of a random number of devices, or none.
DEVICE_CLASS = "gpu.nvidia.com"
EXTENDED = "nvidia.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/" + DEVICE_CLASS
SELECTOR = ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
            " && (device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
            " || device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4')")
# Products and their memory in units a driver might write (the last A100
# one a byte short of 40Gi: dropped).
PRODUCTS = [("NVIDIA A100-SXM4-40GB", ["40Gi", "40960Mi", "42949672960", "42949672959"]),
            ("NVIDIA A100-SXM4-80GB", ["80Gi", "81920Mi"]),
            ("NVIDIA H100 80GB HBM3", ["81559Mi"]),
            ("NVIDIA A40", ["48G", "46068Mi"]),
            ("NVIDIA L4", ["23034Mi"]),
            ("NVIDIA A10", ["24Gi"]),
            ("Tesla T4", ["15360Mi"])]
CLAIM_TEMPLATES = {"gpulint-fit-gpu-%d" % n: n for n in (1, 2)}
# One GPU with at least 60Gi of memory (a claim extended() gives some pods).
BIG_TEMPLATE = "gpulint-fit-gpu-60gi"
BIG_MEMORY = "60Gi"


def dra_layout(seed):
    """The nodes 1.34 and later add, and each fit node's devices: (extra
    nodes, {node: [device]}). From a random source of its own. Three nodes
    make sure of the cases where a node has both: one whose device plugin
    lists fewer GPUs than its slice has, one listing none of them
    (nvidia.com/gpu: 0), beside one that lists nothing and has a slice."""
    rnd = random.Random(seed * 7919 + 3)
    extra = []
    for name, gpus in (("fit-6", rnd.choice(["1", "2"])), ("fit-7", None), ("fit-8", "0")):
        # Larger than the others, so that more pods come down to their GPUs.
        cap = {"cpu": rnd.choice(["4", "6"]), "memory": rnd.choice(["4Gi", "6Gi"]), "pods": "110"}
        if rnd.random() < 0.6:
            cap["ephemeral-storage"] = "10Gi"
        if rnd.random() < 0.5:
            cap["hugepages-2Mi"] = "512Mi"
        if gpus is not None:
            cap[EXTENDED] = gpus
        extra.append({"name": name, "capacity": cap})
    devices = {}
    for n in nodes(seed) + extra:
        forced = n["name"] in ("fit-6", "fit-7", "fit-8")
        if not forced and rnd.random() < 0.25:
            continue  # no slice: nothing DRA can give here
        out = []
        for i in range(rnd.choice([1, 2, 3, 4, 6])):
            product, memories = rnd.choice(PRODUCTS)
            out.append({"name": "gpu-%d" % i,
                        "attributes": {"type": {"string": "mig" if rnd.random() < 0.15 else "gpu"},
                                       "productName": {"string": product}},
                        "capacity": {"memory": {"value": rnd.choice(memories)}}})
        while forced and sum(map(selected, out)) < listed(n) + 2:
            out.append({"name": "gpu-%d" % len(out),
                        "attributes": {"type": {"string": "gpu"},
                                       "productName": {"string": "NVIDIA A100-SXM4-80GB"}},
                        "capacity": {"memory": {"value": "80Gi"}}})
        devices[n["name"]] = out
    return extra, devices


def selected(device):
    """Whether the class's selector keeps `device` (as the scheduler will)."""
    attrs = device["attributes"]
    product = attrs["productName"]["string"]
    return attrs["type"]["string"] == "gpu" and (
        quantity(device["capacity"]["memory"]["value"]) >= quantity("40Gi") or product == "NVIDIA L4")


def fit_nodes(seed, minor):
    return nodes(seed) + (dra_layout(seed)[0] if minor >= 34 else [])


def dra(seed):
    """The DeviceClass and each fit node's ResourceSlice (without the claim
    templates: gpulint reads these beside the nodes)."""
    items = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
              "metadata": {"name": DEVICE_CLASS},
              "spec": {"extendedResourceName": EXTENDED, "selectors": [{"cel": {"expression": SELECTOR}}]}}]
    for name, devices in sorted(dra_layout(seed)[1].items()):
        items.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                      "metadata": {"name": name + "-gpu"},
                      "spec": {"driver": DEVICE_CLASS, "nodeName": name,
                               "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                               "devices": devices}})
    return items


def templates():
    def template(name, exactly):
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": name},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}}
    return [template(name, {"deviceClassName": DEVICE_CLASS, "count": count})
            for name, count in CLAIM_TEMPLATES.items()] + [
        template(BIG_TEMPLATE, {"deviceClassName": DEVICE_CLASS, "count": 1,
                                "capacity": {"requests": {"memory": BIG_MEMORY}}})]


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


def listed(node):
    """The nvidia.com/gpu a node's device plugin lists; 0 when none."""
    return int(node["capacity"].get(EXTENDED, "0"))


def offered(seed):
    """How many nvidia.com/gpu each fit node holds, as kube-scheduler 1.36
    counts them: its allocatable when it lists some (a device plugin's,
    however many devices it publishes), else (none listed, or 0) the devices
    the class keeps."""
    extra, devices = dra_layout(seed)
    return {n["name"]: listed(n) or sum(map(selected, devices.get(n["name"], [])))
            for n in nodes(seed) + extra}


def extended(rnd, spec, offers):
    """GPUs DRA may serve, drawn from `rnd` alone: nvidia.com/gpu or the
    class's implicit name on one or two containers (an app container, or an
    init container or sidecar), as many as some node holds, one more, or
    more than any; and a claim for a device of 60Gi or more."""
    if rnd.random() < 0.45:
        every = spec["containers"] + spec.get("initContainers", [])
        for _ in range(rnd.choice([1, 1, 2])):
            c = rnd.choice(spec["containers"] if rnd.random() < 0.7 else every)
            resource = IMPLICIT if rnd.random() < 0.35 else EXTENDED
            most = max(offers)
            count = rnd.choice([1, 2, rnd.choice(offers), rnd.choice(offers) + 1, most, most + 1])
            if count > 0:
                c.setdefault("resources", {}).setdefault("limits", {})[resource] = str(count)
    if rnd.random() < 0.15:
        spec.setdefault("resourceClaims", []).append({"name": "big", "resourceClaimTemplateName": BIG_TEMPLATE})
        c = rnd.choice(spec["containers"])
        c.setdefault("resources", {}).setdefault("claims", []).append({"name": "big"})


def pod_request(spec, resource):
    """The pod's request of an extended resource as the scheduler adds it
    up: its app containers and sidecars together, or an init container with
    the sidecars started before it, whichever is more."""
    running, peak = Fraction(0), Fraction(0)
    for c in spec.get("initContainers", []):
        if c.get("restartPolicy") == "Always":
            running += effective(c, resource)
        else:
            peak = max(peak, running + effective(c, resource))
    return max(peak, running + sum(effective(c, resource) for c in spec["containers"]))


def asks_dra(spec):
    """Whether the pod asks for a resource the DeviceClass backs, or has claims."""
    return "resourceClaims" in spec or any(pod_request(spec, r) > 0 for r in (EXTENDED, IMPLICIT))


def two_rules(seed, all_pods, zero):
    """The pods whose nvidia.com/gpu some node that both lists it (some, or
    0 when `zero`) and publishes devices for it would hold by one rule and
    not by the other (allocatable or its devices)."""
    extra, devices = dra_layout(seed)
    both = [(listed(n), sum(map(selected, devices[n["name"]]))) for n in nodes(seed) + extra
            if EXTENDED in n["capacity"] and (listed(n) == 0) == zero and n["name"] in devices]
    return sum(1 for p in all_pods if pod_request(p["spec"], EXTENDED) > 0 and any(
        (pod_request(p["spec"], EXTENDED) <= plugin) != (pod_request(p["spec"], EXTENDED) <= held)
        for plugin, held in both))
