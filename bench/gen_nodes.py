#!/usr/bin/env python3
"""Node lists for bench/nodes.sh: N nodes as `kubectl get nodes -o yaml` prints them.

A few realistic shapes (CPU workers, 8 x A100 and 8 x H100 training nodes, 1 x
T4 and time-sliced 4 x L4 inference nodes) spread over three zones, in the
proportions of a GPU cluster; every node has its own name and host name, its
own GPU Feature Discovery timestamp, addresses, conditions and node info (the
label and status noise of a real cluster). Same N -> byte-identical output.
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


def node(i, shape, rng):
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


def node_list(n):
    rng = random.Random(SEED + n)
    weights = [s[1] for s in SHAPES]
    # The first nodes cover every shape, so a small list has them all.
    shapes = SHAPES + rng.choices(SHAPES, weights=weights, k=max(0, n - len(SHAPES)))
    items = [node(i, shapes[i], rng) for i in range(n)]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
            "items": items}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.out, "w", encoding="utf-8") as fh:
        yaml.safe_dump(node_list(a.count), fh, default_flow_style=False, sort_keys=True, width=200)


if __name__ == "__main__":
    main()
