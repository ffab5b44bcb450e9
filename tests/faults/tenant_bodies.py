"""The bodies of the security review that tenant.sh replays (issue 32), written
into DIR:
  giant-pod.json    a Pod of about 3 MB, valid to the API server: one container
                    with a million empty args (what a user with the `edit` role
                    may send; the API server's own request limit is 3 MiB)
  value-bomb.json   an AdmissionReview of 3 MiB whose object holds an array of
                    0s: 1.5 million values, sent straight to the webhook
  large-review.json an AdmissionReview of about 2.5 MB that the webhook judges
                    in full: a Pod whose container has 80,000 environment
                    variables (each a map of two strings)
Usage: tenant_bodies.py DIR"""
import json
import os
import sys

out = sys.argv[1]
MIB = 1 << 20


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def review(uid, obj):
    return json.dumps({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": uid, "kind": {"group": "", "version": "v1", "kind": "Pod"},
                    "resource": {"group": "", "version": "v1", "resource": "pods"},
                    "operation": "CREATE", "namespace": "tenant", "object": obj}},
        separators=(",", ":"))


pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "giant"},
       "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                "args": [""] * 1_000_000}]}}
write("giant-pod.json", json.dumps(pod, separators=(",", ":")))

head = review("00000000-0000-4000-8000-000000000b0b", {"apiVersion": "v1", "kind": "Pod", "x": []})
zeros = (3 * MIB - len(head)) // 2
write("value-bomb.json", head.replace('"x":[]', '"x":[' + ",".join(["0"] * zeros) + "]"))

env = [{"name": f"E{i}", "value": "v"} for i in range(80_000)]
large = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "large", "namespace": "tenant"},
         "spec": {"containers": [{"name": "c", "image": "busybox:1.36", "env": env,
                                  "resources": {"limits": {"memory": "1Gi"}}}]}}
write("large-review.json", review("00000000-0000-4000-8000-00000000042e", large))
