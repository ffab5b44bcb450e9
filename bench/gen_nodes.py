#!/usr/bin/env python3
"""Node lists for bench/nodes.sh: N nodes as `kubectl get nodes -o yaml` prints them.

A few realistic shapes (CPU workers, 8 x A100 and 8 x H100 training nodes, 1 x
T4 and time-sliced 4 x L4 inference nodes) spread over three zones, in the
proportions of a GPU cluster; every node has its own name and host name, its
own GPU Feature Discovery timestamp, addresses, conditions and node info (the
label and status noise of a real cluster).

--eight makes every GPU node an 8-GPU node (the T4 and time-sliced L4 shapes
become 8 x T4 g4dn.metal and 8 x L4 g6.48xlarge, without time-slicing); the
other nodes are the same. --dra gives the GPUs through Dynamic Resource
Allocation, as `kubectl get nodes,deviceclasses,resourceslices -o yaml` prints
a cluster running NVIDIA's DRA driver: no node lists nvidia.com/gpu, the
DeviceClasses gpu.nvidia.com (with extendedResourceName: nvidia.com/gpu) and
mig.nvidia.com follow the nodes, then one ResourceSlice per GPU node with its
GPUs (the attributes the driver publishes, memory as a capacity). GPU Feature
Discovery's labels stay. Same arguments -> byte-identical output.
"""
import argparse
import random

import yaml  # PyYAML (python3-yaml)

SEED = 20261122
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]

# name, weight, instance type, cpu, memory, pods, gpu, taint
SHAPES = [
    ("cpu", 60, "m6i.4xlarge", "16", "64978Mi", "110", None, False),
    ("a100", 15, "p4d.24xlarge", "96", "1176Gi", "250",
     {"product": "NVIDIA-A100-SXM4-40GB", "count": 8, "memory": 40960, "family": "ampere"}, True),
    ("h100", 10, "p5.48xlarge", "192", "2000Gi", "250",
     {"product": "NVIDIA-H100-80GB-HBM3", "count": 8, "memory": 81559, "family": "hopper"}, True),
    ("t4", 10, "g4dn.xlarge", "4", "15Gi", "29",
     {"product": "Tesla-T4", "count": 1, "memory": 15360, "family": "turing"}, True),
    ("l4ts", 5, "g6.12xlarge", "48", "187Gi", "110",
     {"product": "NVIDIA-L4-SHARED", "count": 4, "memory": 23034, "family": "ada-lovelace",
      "replicas": 4}, True),
]

# --eight: the shapes with fewer than 8 GPUs, as their 8-GPU instance types.
EIGHT = {
    "t4": ("t4", 10, "g4dn.metal", "96", "384Gi", "737",
           {"product": "Tesla-T4", "count": 8, "memory": 15360, "family": "turing"}, True),
    "l4ts": ("l4", 5, "g6.48xlarge", "192", "768Gi", "737",
             {"product": "NVIDIA-L4", "count": 8, "memory": 23034, "family": "ada-lovelace"}, True),
}

# What NVIDIA's DRA driver publishes for each GPU family: the product name as
# NVML gives it, the architecture and the CUDA compute capability.
DRA_GPU = {
    "ampere": ("NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0"),
    "hopper": ("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0"),
    "turing": ("Tesla T4", "Turing", "7.5.0"),
    "ada-lovelace": ("NVIDIA L4", "Ada Lovelace", "8.9.0"),
}
DRIVER = "gpu.nvidia.com"


def node(i, shape, rng, dra=False):
    name, _, itype, cpu, mem, pods, gpu, tainted = shape
    zone = ZONES[i % len(ZONES)]
    host = "ip-10-%d-%d-%d.ec2.internal" % (i // 65536 % 256, i // 256 % 256, i % 256)
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": host,
        "node.kubernetes.io/instance-type": itype,
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "eks.amazonaws.com/nodegroup": "%s-%s" % (name, zone[-1]),
        "eks.amazonaws.com/capacityType": "ON_DEMAND",
    }
    capacity = {"cpu": cpu, "memory": mem, "pods": pods, "ephemeral-storage": "104845292Ki",
                "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
    allocatable = dict(capacity)
    allocatable["ephemeral-storage"] = "95551679124"
    taints = []
    if gpu:
        replicas = gpu.get("replicas", 1)
        labels.update({
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": gpu["product"],
            "nvidia.com/gpu.count": str(gpu["count"]),
            "nvidia.com/gpu.memory": str(gpu["memory"]),
            "nvidia.com/gpu.family": gpu["family"],
            "nvidia.com/gpu.replicas": str(replicas),
            "nvidia.com/gpu.sharing-strategy": "time-slicing" if replicas > 1 else "none",
            "nvidia.com/cuda.driver.major": "550",
            "nvidia.com/cuda.driver.minor": "90",
            "nvidia.com/gfd.timestamp": str(1760000000 + rng.randrange(86400 * 30)),
        })
        if not dra:  # with DRA no device plugin lists the GPUs
            capacity["nvidia.com/gpu"] = str(gpu["count"] * replicas)
            allocatable["nvidia.com/gpu"] = str(gpu["count"] * replicas)
    if tainted:
        taints.append({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"})
    spec = {"providerID": "aws:///%s/i-%017x" % (zone, rng.getrandbits(68))}
    if taints:
        spec["taints"] = taints
    ip = "10.%d.%d.%d" % (i // 65536 % 256, i // 256 % 256, i % 256)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": host, "labels": labels,
                     "resourceVersion": str(1000000 + i),
                     "uid": "%08x-0000-4000-8000-%012x" % (i, rng.getrandbits(48))},
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip},
                          {"type": "Hostname", "address": host}],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": [
                {"type": t, "status": "False", "reason": "Kubelet" + r,
                 "lastHeartbeatTime": "2026-11-22T10:%02d:00Z" % rng.randrange(60)}
                for t, r in [("MemoryPressure", "HasSufficientMemory"),
                             ("DiskPressure", "HasNoDiskPressure"),
                             ("PIDPressure", "HasSufficientPID")]
            ] + [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                  "lastHeartbeatTime": "2026-11-22T10:%02d:00Z" % rng.randrange(60)}],
            "nodeInfo": {"kubeletVersion": "v1.31.2-eks-7f9249a", "containerRuntimeVersion":
                         "containerd://1.7.22", "osImage": "Amazon Linux 2023",
                         "kernelVersion": "6.1.112-122.189.amzn2023.x86_64",
                         "architecture": "amd64", "operatingSystem": "linux"},
        },
    }


def quantity_mib(mib):
    """MiB as the driver writes bytes (a BinarySI quantity): 40Gi, 81559Mi."""
    return "%dGi" % (mib // 1024) if mib % 1024 == 0 else "%dMi" % mib


def resource_slice(node_obj, gpu, rng):
    """The ResourceSlice NVIDIA's DRA driver publishes for a node's GPUs."""
    name = node_obj["metadata"]["name"]
    product, arch, cc = DRA_GPU[gpu["family"]]
    devices = []
    for g in range(gpu["count"]):
        bus = 0x10 + 0x10 * g
        devices.append({
            "name": "gpu-%d" % g,
            "attributes": {
                "type": {"string": "gpu"},
                "uuid": {"string": "GPU-%08x-%04x-%04x-%04x-%012x" % (
                    rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                    rng.getrandbits(16), rng.getrandbits(48))},
                "productName": {"string": product},
                "brand": {"string": "Nvidia"},
                "architecture": {"string": arch},
                "cudaComputeCapability": {"version": cc},
                "driverVersion": {"version": "550.90.7"},
                "cudaDriverVersion": {"version": "12.4.0"},
                "pcieBusID": {"string": "0000:%02x:00.0" % bus},
                "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%02x" % bus},
            },
            "capacity": {"memory": {"value": quantity_mib(gpu["memory"])}},
        })
    suffix = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "%s-%s-%s" % (name, DRIVER, suffix),
                     "generateName": "%s-%s-" % (name, DRIVER),
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                          "uid": node_obj["metadata"]["uid"],
                                          "controller": True}]},
        "spec": {"driver": DRIVER, "nodeName": name,
                 "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices},
    }


def device_classes():
    """The classes NVIDIA's DRA driver chart installs for GPUs and MIG devices."""
    def cls(name, typ, extended):
        expression = "device.driver == '%s' && device.attributes['%s'].type == '%s'" % (
            DRIVER, DRIVER, typ)
        spec = {"selectors": [{"cel": {"expression": expression}}]}
        if extended:
            spec["extendedResourceName"] = "nvidia.com/gpu"
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": name, "creationTimestamp": "2026-10-01T09:00:00Z"},
                "spec": spec}
    return [cls("gpu.nvidia.com", "gpu", True), cls("mig.nvidia.com", "mig", False)]


def node_list(n, eight=False, dra=False):
    rng = random.Random(SEED + n)
    weights = [s[1] for s in SHAPES]
    # The first nodes cover every shape, so a small list has them all.
    shapes = SHAPES + rng.choices(SHAPES, weights=weights, k=max(0, n - len(SHAPES)))
    if eight:
        shapes = [EIGHT.get(s[0], s) for s in shapes]
    # Same draws from rng with or without --dra, so the nodes are the same.
    items = [node(i, shapes[i], rng, dra) for i in range(n)]
    if dra:
        dra_rng = random.Random(SEED + n + 1)
        items += device_classes()
        items += [resource_slice(items[i], shapes[i][6], dra_rng) for i in range(n) if shapes[i][6]]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--eight", action="store_true", help="every GPU node has 8 GPUs")
    p.add_argument("--dra", action="store_true",
                   help="GPUs through DRA: DeviceClasses and ResourceSlices, none in allocatable")
    a = p.parse_args()
    with open(a.out, "w", encoding="utf-8") as fh:
        yaml.safe_dump(node_list(a.count, a.eight, a.dra), fh, default_flow_style=False,
                       sort_keys=True, width=200)


if __name__ == "__main__":
    main()
