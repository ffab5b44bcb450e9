#!/usr/bin/env python3
"""The exported ValidatingAdmissionPolicies against gpulint check, on a real
API server (tests/vap/README.md); tests/vap/run.sh starts the API server and
runs this against it.

    tests/vap/run.py --server URL --ca FILE --cert FILE --key FILE --work DIR \
        GPULINT DOCUMENTS [TESTDATA]

URL is the API server (https://127.0.0.1:PORT), CA the certificate it is
checked against, CERT and KEY a client certificate of the cluster admin, DIR
a directory this makes for its files. GPULINT is build/gpulint, DOCUMENTS
build/tests/gpulint_vap_documents, TESTDATA the directory of manifests
(default testdata/). Sends every manifest through server-side dry-run, then
again with `gpulint export vap --mode deny` applied, for the built-in policy
and for tests/vap/policy.yaml in turn, and compares, object by object, the
verdict and the messages with `gpulint check` on the same object. Exit status:
0 when they all agree, 1 on a disagreement.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, crds_for, namespace_of, policies_active, send_all, wait  # noqa: E402
from findings import Observed, engine_findings, fmt_rules, judge, key, print_table, short  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
# Each pass: the policy, and the name prefix of what `gpulint export vap` makes of it.
PASSES = [(os.path.join(ROOT, "policies", "default.yaml"), "gpulint"),
          (os.path.join(HERE, "policy.yaml"), "gpulint-vap-test")]


def run(argv, **kw):
    # $GPULINT_POLICY would stand in for the policy given; each pass names its own.
    env = dict(os.environ)
    env.pop("GPULINT_POLICY", None)
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **kw)


class Exported:
    """One pass's policies: `gpulint export vap` of a policy, as objects."""

    def __init__(self, gpulint, documents_tool, tmp, policy, name):
        self.policy = policy
        path = os.path.join(tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(run([gpulint, "export", "vap", "--mode", "deny", "--policy", policy, "--name", name]).stdout.decode())
        out = run([documents_tool, path]).stdout.decode()
        self.objects = [json.loads(line)["object"] for line in out.splitlines()]
        self.names, self.rules = {}, []
        for o in self.objects:
            if o["kind"] == "ValidatingAdmissionPolicy":
                cls = "errors" if o["metadata"]["name"].endswith("-errors") else "warnings"
                self.names[cls] = o["metadata"]["name"]
                # The errors policy first: the denial quotes its first failing validation.
                listed = [r for r in o["metadata"]["annotations"]["gpulint.io/rules"].split(",") if r]
                self.rules = self.rules + listed if cls == "warnings" else listed + self.rules
        # A second binding of the errors policy, in Warn: every failing
        # validation then shows, not only the first, which the denial quotes.
        self.objects.append({"apiVersion": "admissionregistration.k8s.io/v1",
                             "kind": "ValidatingAdmissionPolicyBinding",
                             "metadata": {"name": self.names["errors"] + "-observe"},
                             "spec": {"policyName": self.names["errors"], "validationActions": ["Warn"]}})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--server", "--ca", "--cert", "--key", "--work"):
        parser.add_argument(flag, required=True)
    parser.add_argument("gpulint")
    parser.add_argument("documents_tool")
    parser.add_argument("testdata", nargs="?", default=os.path.join(ROOT, "testdata"))
    args = parser.parse_args()
    gpulint, documents_tool, testdata, tmp = args.gpulint, args.documents_tool, args.testdata, args.work
    started = time.monotonic()

    # The documents, as gpulint reads them.
    entries = [json.loads(line) for line in run([documents_tool, testdata]).stdout.decode().splitlines()]
    objects = [e for e in entries if "object" in e]
    counts = collections.Counter(unparsed=sum("error" in e for e in entries))
    sources = [os.path.relpath(e["file"], ROOT) for e in entries if "source" in e]
    print("vap: %d objects from %s; %d documents do not parse; not rendered: %s" % (
        len(objects), os.path.relpath(testdata, ROOT), counts["unparsed"], ", ".join(sources) or "none"))

    os.makedirs(tmp)
    passes = [Exported(gpulint, documents_tool, tmp, policy, name) for policy, name in PASSES]
    return check(gpulint, tmp, Cluster(args.server, args.ca, args.cert, args.key), objects, passes, started)


def setup(cluster, objects):
    """CRDs for the kinds the API server does not serve, and every namespace named."""
    cluster.discover()
    crds = crds_for(objects, cluster)
    for crd in crds:
        status, body, _ = cluster.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        if status >= 300:
            raise RuntimeError("CRD %s: %s" % (crd["metadata"]["name"], body))

    def established():
        cluster.discover()
        return all((c["spec"]["group"] + "/" + v["name"], c["spec"]["names"]["kind"]) in cluster.resources
                   for c in crds for v in c["spec"]["versions"])
    wait("the CustomResourceDefinitions", 30, established)
    for ns in sorted({namespace_of(o["object"]) for o in objects} - {"default"}):
        cluster.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": ns}})


def write_objects(directory, objects):
    """Each object in a file of its own (None for none), for gpulint check."""
    os.makedirs(directory)
    files = []
    for i, obj in enumerate(objects):
        path = None
        if obj is not None:
            path = os.path.join(directory, "%04d.json" % i)
            with open(path, "w") as f:
                json.dump(obj, f)
        files.append(path)
    return files


def check(gpulint, tmp, cluster, objects, passes, started):
    setup(cluster, objects)
    print("vap: the objects read and the API server set up in %.1f s" % (time.monotonic() - started))
    # Without the policies: what the API server refuses before admission, and
    # the object it hands to admission otherwise (quantities in canonical
    # form, a Pod's requests defaulted).
    t = time.monotonic()
    before = send_all(cluster, objects)
    print("vap: %d objects sent without the policies in %.1f s" % (len(objects), time.monotonic() - t))
    raw_files = write_objects(os.path.join(tmp, "sent"), [o["object"] for o in objects])
    admitted = [b.body if b is not None and b.status < 300 and isinstance(b.body, dict) else None
                for b in before]
    norm_files = write_objects(os.path.join(tmp, "admitted"), admitted)
    failed = 0
    previous = None
    for n, exported in enumerate(passes):
        if previous is not None:  # one pass's bindings at a time
            for o in previous.objects:
                if o["kind"] == "ValidatingAdmissionPolicyBinding":
                    cluster.request("DELETE", "/apis/admissionregistration.k8s.io/v1/"
                                    "validatingadmissionpolicybindings/" + o["metadata"]["name"])
        t = time.monotonic()
        for o in exported.objects:
            cluster.apply(o)
        wait("the policies", 60, lambda: policies_active(cluster, exported.names))
        applied = time.monotonic() - t
        t = time.monotonic()
        after = send_all(cluster, objects)
        sent = time.monotonic() - t
        engine = engine_findings(gpulint, exported.policy, [os.path.join(tmp, "sent"), os.path.join(tmp, "admitted")],
                                 set(exported.rules))
        failed += report(n, exported, objects, before, after, engine, raw_files, norm_files, applied, sent)
        previous = exported
    return 1 if failed else 0


def report(n, exported, objects, before, after, engine, raw_files, norm_files, applied, sent):
    """One pass's table, counts and disagreements; the number of disagreements."""
    rows, failures = [], []
    counts = collections.Counter()
    for i, doc in enumerate(objects):
        obj = doc["object"]
        where = "%s#%d%s" % (os.path.relpath(doc["file"], ROOT), doc["doc"],
                             "[%d]" % doc["item"] if doc["item"] >= 0 else "")
        what = "%s %s" % (obj.get("kind"), (obj.get("metadata") or {}).get("name", "") or "(no name)")
        raw = engine.get(raw_files[i], [])
        b, a = before[i], after[i]
        if b is None:
            counts["not served"] += 1
            rows.append((where, what, "not served (%s)" % obj.get("apiVersion"), "-", fmt_rules(raw), ""))
            continue
        if b.status >= 300:
            counts["refused before admission"] += 1
            rows.append((where, what, "refused: " + short(b.message), "-", fmt_rules(raw), ""))
            continue
        norm = engine.get(norm_files[i], [])
        observed = Observed(a, exported.names, exported.rules)
        problems = judge(a, observed, raw, norm, exported.rules)
        requoted = key(raw) != key(norm)
        counts["admitted or denied"] += 1
        counts["with findings"] += bool(observed.found or observed.cut)
        counts["quoted as stored"] += requoted and not problems
        counts["cut"] += bool(observed.cut) and not problems
        status = "DISAGREE" if problems else (
            "ok, warnings cut" if observed.cut else "ok, quoted as stored" if requoted else "ok")
        outcome = "denied" if observed.denied is not None else ("admitted" if a.status < 300 else "refused")
        shown = observed.found + [(r, c, "", "") for r, c in observed.cut]
        rows.append((where, what, outcome, fmt_rules(shown), fmt_rules(raw), status))
        if problems:
            failures.append((where, what, problems))
    print("\nvap: pass %d, %s, `gpulint export vap --mode deny` of %s\n" % (
        n + 1, ", ".join(sorted(exported.names.values())), os.path.relpath(exported.policy, ROOT)))
    # The first pass in full; the next ones where something was found.
    print_table(rows if n == 0 else [r for r in rows if r[3] != "-" or r[4] != "-" or r[5] == "DISAGREE"])
    print("\nvap: pass %d: %d sent (%d with findings), %d refused by the API server before admission, "
          "%d of kinds it does not serve; %d whose messages quote a quantity as the API server stores "
          "it (docs/export.md), %d whose warnings the API server cut short (read in part); %.1f s for "
          "the policies to act, %.1f s to send; %d disagreements" % (
              n + 1, counts["admitted or denied"], counts["with findings"], counts["refused before admission"],
              counts["not served"], counts["quoted as stored"], counts["cut"], applied, sent, len(failures)))
    for where, what, problems in failures:
        print("\nDISAGREE %s (%s):" % (where, what))
        for p in problems:
            print("  " + p.replace("\n", "\n  "))
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
