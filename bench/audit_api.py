#!/usr/bin/env python3
"""A stand-in for kube-apiserver that `gpulint audit` can read at scale
(bench/audit.sh): discovery, and Nodes, Deployments, ReplicaSets and Pods made
up page by page from their index (fixed seed, nothing held in memory), served
over HTTPS with limit/continue as the API server pages lists.

  audit_api.py --nodes 5000 --deployments 10000 --pods-per 15 --port 0 DIR

writes DIR/kubeconfig (server, CA, token) once it listens, and serves until
killed. Each Deployment has a current ReplicaSet holding its pods and an old
one scaled to 0; pods are spread over the nodes round-robin; one node in five
has 8 GPUs (with GPU Feature Discovery's labels and the GPU taint), and one
Deployment in five asks for a GPU per pod and runs there. Objects look as the
API server writes them: managedFields, status, uids, ownerReferences.
"""
import argparse
import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

TOKEN = "bench-token"


def uid(kind, i):
    return f"{kind[:8]:0<8}-0000-4000-8000-{i:012d}"


def managed(manager, fields):
    return [{"manager": manager, "operation": "Update", "apiVersion": "v1",
             "time": "2026-11-22T07:43:33Z", "fieldsType": "FieldsV1", "fieldsV1": fields}]


class Cluster:
    def __init__(self, nodes, deployments, pods_per):
        self.nodes, self.deployments, self.pods_per = nodes, deployments, pods_per

    def gpu_node(self, i):
        return i % 5 == 0

    def node(self, i):
        name = f"node-{i:05d}"
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                  "node.kubernetes.io/instance-type": "p4d.24xlarge" if self.gpu_node(i) else "m6i.8xlarge",
                  "topology.kubernetes.io/zone": f"zone-{i % 3}"}
        alloc = {"cpu": "95690m", "memory": "1157221112Ki", "pods": "110", "ephemeral-storage": "3375000Mi"}
        taints = []
        if self.gpu_node(i):
            labels.update({"nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "8",
                           "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"})
            alloc.update({"nvidia.com/gpu": "8", "gpulint.io/vram": "640Gi"})
            taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        return {"metadata": {"name": name, "uid": uid("node", i), "resourceVersion": str(1000 + i),
                             "creationTimestamp": "2026-11-22T07:43:33Z", "labels": labels,
                             "managedFields": managed("kubelet", {"f:status": {"f:allocatable": {}}})},
                "spec": {"taints": taints},
                "status": {"capacity": alloc, "allocatable": alloc,
                           "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                           "lastHeartbeatTime": "2026-11-22T07:43:33Z"}],
                           "nodeInfo": {"kubeletVersion": "v1.28.7", "osImage": "Ubuntu 22.04"}}}

    def gpu_deployment(self, d):
        return d % 5 == 0

    def template(self, d):
        gpu = self.gpu_deployment(d)
        resources = {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}}
        if gpu:
            resources["requests"]["nvidia.com/gpu"] = "1"
            resources["limits"]["nvidia.com/gpu"] = "1"
        spec = {"containers": [{"name": "app", "image": "nvcr.io/nvidia/pytorch:24.05-py3" if gpu else "registry.example/app:1",
                                "resources": resources,
                                "env": [{"name": "MODE", "value": "serve"}, {"name": "PORT", "value": "8080"}],
                                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                                "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                "volumes": [{"name": "data", "emptyDir": {}}],
                "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst"}
        if gpu:
            spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        return {"metadata": {"labels": {"app": f"app-{d}"}}, "spec": spec}

    def ns(self, d):
        return f"team-{d % 200:03d}"

    def node_of(self, d, k):
        # GPU Deployments' pods on the GPU nodes (every fifth), the others on the rest.
        n = d * self.pods_per + k
        if self.gpu_deployment(d):
            return 5 * (n % (self.nodes // 5))
        m = n % (self.nodes - self.nodes // 5)
        return 5 * (m // 4) + m % 4 + 1

    def deployment(self, d):
        return {"metadata": {"name": f"app-{d}", "namespace": self.ns(d), "uid": uid("deploy", d),
                             "resourceVersion": str(d), "generation": 2,
                             "managedFields": managed("kubectl", {"f:spec": {"f:replicas": {}}})},
                "spec": {"replicas": self.pods_per, "selector": {"matchLabels": {"app": f"app-{d}"}},
                         "template": self.template(d)},
                "status": {"replicas": self.pods_per, "readyReplicas": self.pods_per}}

    def replicaset(self, r):
        d, old = divmod(r, 2)
        owner = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": f"app-{d}", "uid": uid("deploy", d),
                  "controller": True, "blockOwnerDeletion": True}]
        return {"metadata": {"name": f"app-{d}-{'old' if old else 'cur'}", "namespace": self.ns(d),
                             "uid": uid("rs", r), "ownerReferences": owner},
                "spec": {"replicas": 0 if old else self.pods_per, "template": self.template(d)},
                "status": {"replicas": 0 if old else self.pods_per}}

    def pod(self, p):
        d, k = divmod(p, self.pods_per)
        pod = self.template(d)
        meta = pod["metadata"]
        meta.update({"name": f"app-{d}-cur-{k:04d}", "namespace": self.ns(d), "uid": uid("pod", p),
                     "resourceVersion": str(p), "creationTimestamp": "2026-11-22T07:43:33Z",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"app-{d}-cur",
                                          "uid": uid("rs", 2 * d), "controller": True, "blockOwnerDeletion": True}],
                     "managedFields": managed("kube-controller-manager", {"f:metadata": {"f:labels": {}}})})
        pod["spec"]["nodeName"] = f"node-{self.node_of(d, k):05d}"
        pod["status"] = {"phase": "Running", "podIP": f"10.{p >> 16 & 255}.{p >> 8 & 255}.{p & 255}",
                         "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2026-11-22T07:43:40Z"}
                                        for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                         "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0,
                                                "image": "registry.example/app:1", "started": True,
                                                "state": {"running": {"startedAt": "2026-11-22T07:43:39Z"}}}]}
        return pod

    def resources(self):
        return {"nodes": (self.nodes, self.node), "pods": (self.deployments * self.pods_per, self.pod),
                "deployments": (self.deployments, self.deployment),
                "replicasets": (2 * self.deployments, self.replicaset)}


CORE = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
    {"name": "nodes", "namespaced": False, "kind": "Node", "verbs": ["list"]},
    {"name": "pods", "namespaced": True, "kind": "Pod", "verbs": ["list"]}]}
APPS = {"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
    {"name": "deployments", "namespaced": True, "kind": "Deployment", "verbs": ["list"]},
    {"name": "replicasets", "namespaced": True, "kind": "ReplicaSet", "verbs": ["list"]}]}
GROUPS = {"kind": "APIGroupList", "groups": [
    {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
     "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]}


def handler(cluster, served):
    paths = {"/api/v1/nodes": "nodes", "/api/v1/pods": "pods",
             "/apis/apps/v1/deployments": "deployments", "/apis/apps/v1/replicasets": "replicasets"}
    documents = {"/api/v1": CORE, "/apis": GROUPS, "/apis/apps/v1": APPS}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            served["bytes"] += len(data)

        def do_GET(self):
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self.send(401, json.dumps({"kind": "Status", "code": 401, "reason": "Unauthorized"}))
            url = urlparse(self.path)
            if url.path in documents:
                return self.send(200, json.dumps(documents[url.path]))
            if url.path not in paths:
                return self.send(404, json.dumps({"kind": "Status", "code": 404, "reason": "NotFound"}))
            count, make = cluster.resources()[paths[url.path]]
            query = parse_qs(url.query)
            limit = int(query.get("limit", ["500"])[0])
            start = int(query.get("continue", ["0"])[0])
            end = min(count, start + limit)
            items = ",".join(json.dumps(make(i), separators=(",", ":")) for i in range(start, end))
            meta = {"resourceVersion": "99"}
            if end < count:
                meta["continue"] = str(end)
            served["pages"] += 1
            self.send(200, '{"kind":"List","apiVersion":"v1","metadata":%s,"items":[%s]}' % (json.dumps(meta), items))

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--deployments", type=int, default=10000)
    ap.add_argument("--pods-per", type=int, default=15)
    ap.add_argument("dir")
    a = ap.parse_args()
    d = a.dir
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=bench-apiserver", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", f"{d}/key.pem", "-out", f"{d}/cert.pem"], check=True, capture_output=True)
    served = {"pages": 0, "bytes": 0}
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(Cluster(a.nodes, a.deployments, a.pods_per), served))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(f"{d}/cert.pem", f"{d}/key.pem")
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    with open(f"{d}/kubeconfig.tmp", "w") as f:
        f.write(f"""apiVersion: v1
kind: Config
current-context: bench
clusters:
- name: bench
  cluster: {{server: "https://127.0.0.1:{port}", certificate-authority: "{d}/cert.pem"}}
users:
- name: bench
  user: {{token: {TOKEN}}}
contexts:
- name: bench
  context: {{cluster: bench, user: bench}}
""")
    os.rename(f"{d}/kubeconfig.tmp", f"{d}/kubeconfig")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for line in sys.stdin:  # "stats" prints what was served
            print(json.dumps(served), flush=True)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
