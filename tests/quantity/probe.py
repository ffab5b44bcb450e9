#!/usr/bin/env python3
"""Every string of testdata/quantity/apiserver.json as the memory request of a
Pod, sent through server-side dry-run: what the API server stores (its
canonical form) or why it refuses it, held to the file and to `gpulint
quantity --format json`. With --write, the API server's answers are written
to the file instead (the table's strings are kept, in their order).
"""
import argparse
import http.client
import json
import ssl
import subprocess
import sys
import urllib.parse

# The API server answers a request it gave up on with a Timeout status, or
# drops the connection: the same answer, written one way.
TIMEOUT = "Timeout: the request did not complete within the API server's request timeout"


def ask(conn, value):
    """(accepted, stored canonical form or the API server's message) for one string."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "quantity"},
           "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                    "resources": {"requests": {"memory": value}}}]}}
    conn.request("POST", "/api/v1/namespaces/default/pods?dryRun=All", body=json.dumps(pod),
                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    r = conn.getresponse()
    body = json.loads(r.read().decode("utf-8", "replace"))
    if r.status == 201:
        return True, body["spec"]["containers"][0]["resources"]["requests"]["memory"]
    if r.status == 504:
        return False, TIMEOUT
    return False, body.get("message", "HTTP %d" % r.status)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("--server", "--ca", "--cert", "--key", "--table"):
        p.add_argument(flag, required=True)
    p.add_argument("gpulint")
    p.add_argument("--write", action="store_true")
    a = p.parse_args()
    u = urllib.parse.urlsplit(a.server)
    context = ssl.create_default_context(cafile=a.ca)
    context.load_cert_chain(a.cert, a.key)
    with open(a.table) as f:
        table = json.load(f)
    inputs = [row["input"] for row in table["strings"]]
    answers = []
    for s in inputs:
        # A connection each: the API server drops one whose request outlasted
        # its timeout.
        conn = http.client.HTTPSConnection(u.hostname, u.port, context=context, timeout=30)
        try:
            answers.append(ask(conn, s))
        except (TimeoutError, http.client.RemoteDisconnected, ConnectionError):
            # Some exponents send the API server into arithmetic it does not
            # finish (10^2147483647) before its request timeout.
            answers.append((False, TIMEOUT))
        finally:
            conn.close()
    if a.write:
        table["strings"] = [{"input": s, "accepted": ok, ("stored" if ok else "error"): said}
                            for s, (ok, said) in zip(inputs, answers)]
        with open(a.table, "w") as f:
            f.write(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
        print("quantity-apiserver: wrote %d answers to %s" % (len(inputs), a.table))
        return 0
    out = subprocess.run([a.gpulint, "quantity", "--format", "json", "--", *inputs],
                         capture_output=True, text=True)
    ours = json.loads(out.stdout)
    problems = []
    for row, (ok, said), mine in zip(table["strings"], answers, ours):
        s = row["input"]
        recorded = row.get("stored") if row["accepted"] else row.get("error")
        if (ok, said) != (row["accepted"], recorded):
            problems.append("%r: the API server now answers %s %r; the file says %s %r" % (
                s, "stored" if ok else "refused:", said,
                "stored" if row["accepted"] else "refused:", recorded))
        if mine["valid"] != ok or (ok and mine["stored"] != said):
            problems.append("%r: the API server %s; gpulint quantity says %s" % (
                s, "stores %r" % said if ok else "refuses it (%s)" % said,
                "valid, stored as %r" % mine["stored"] if mine["valid"] else "invalid (%s)" % mine["error"]))
    for line in problems:
        print("FAIL " + line)
    print("quantity-apiserver: %d strings, %d disagreements" % (len(inputs), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
