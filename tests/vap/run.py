#!/usr/bin/env python3
"""The exported ValidatingAdmissionPolicies against gpulint check, on a real
API server (tests/vap/README.md).

    tests/vap/run.py GPULINT DOCUMENTS [TESTDATA]

GPULINT is build/gpulint, DOCUMENTS build/tests/gpulint_vap_documents,
TESTDATA the directory of manifests (default testdata/). Starts etcd and
kube-apiserver v1.36 (tests/vap/control_plane.py), applies `gpulint export
vap --mode deny`, sends every manifest through server-side dry-run and
compares, object by object, the verdict and the messages with `gpulint check`
on the same object. Exit status: 0 when they all agree, 1 on a disagreement,
77 when the API server cannot be had (1 under CI=true).
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import control_plane  # noqa: E402
from cluster import Cluster, crds_for, namespace_of, policies_active, send_all, wait  # noqa: E402
from findings import engine_findings, fmt_rules, judge, key, print_table, short, vap_findings  # noqa: E402

ROOT = control_plane.ROOT


def run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def load_yaml_stream(gpulint_documents, path):
    """The objects of a YAML file (the exported policies), read by gpulint's loader."""
    out = run([gpulint_documents, path]).stdout.decode()
    return [json.loads(line)["object"] for line in out.splitlines()]


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    gpulint, documents_tool = sys.argv[1], sys.argv[2]
    testdata = sys.argv[3] if len(sys.argv) == 4 else os.path.join(ROOT, "testdata")
    started = time.monotonic()
    try:
        apiserver = control_plane.apiserver_binary()
        etcd = os.environ.get("GPULINT_ETCD") or shutil.which("etcd")
        if not etcd:
            raise control_plane.Unavailable("etcd is not installed (Debian package etcd-server)")
        for tool in ("openssl",):
            if not shutil.which(tool):
                raise control_plane.Unavailable("%s is not installed" % tool)
    except control_plane.Unavailable as e:
        control_plane.unavailable([str(e)])

    # The documents, as gpulint reads them.
    lines = run([documents_tool, testdata]).stdout.decode().splitlines()
    entries = [json.loads(line) for line in lines]
    objects = [e for e in entries if "object" in e]
    unparsed = [e for e in entries if "error" in e]
    sources = [e for e in entries if "source" in e]

    # The exported policies, deny mode, and the rules they hold.
    tmp = tempfile.mkdtemp(prefix="gpulint-vap.")
    try:
        return check(gpulint, documents_tool, testdata, tmp, apiserver, etcd, objects, unparsed,
                     sources, started)
    finally:
        if os.environ.get("GPULINT_VAP_KEEP") == "1":
            print("vap: kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def check(gpulint, documents_tool, testdata, tmp, apiserver, etcd, objects, unparsed, sources,
          started):
    exported_yaml = os.path.join(tmp, "vap.yaml")
    with open(exported_yaml, "w") as f:
        f.write(run([gpulint, "export", "vap", "--mode", "deny"]).stdout.decode())
    policy_objects = load_yaml_stream(documents_tool, exported_yaml)
    names = {}
    rules = []
    for o in policy_objects:
        if o["kind"] == "ValidatingAdmissionPolicy":
            cls = "errors" if o["metadata"]["name"].endswith("-errors") else "warnings"
            names[cls] = o["metadata"]["name"]
            rules += [r for r in o["metadata"]["annotations"]["gpulint.io/rules"].split(",") if r]
    exported = set(rules)

    plane = control_plane.ControlPlane(os.path.join(tmp, "cluster"))
    # GPULINT_VAP_EMULATED_VERSION=1.35: the same binary as the oldest release
    # the policies are for.
    emulated = os.environ.get("GPULINT_VAP_EMULATED_VERSION")
    try:
        plane.start(apiserver, etcd, ["--emulated-version=" + emulated] if emulated else [])
    except RuntimeError as e:
        print("FAIL vap: %s" % e, file=sys.stderr)
        return 1
    try:
        return compare(gpulint, tmp, plane, objects, unparsed, sources, policy_objects, names,
                       rules, exported, started)
    finally:
        plane.stop()


def compare(gpulint, tmp, plane, objects, unparsed, sources, policy_objects, names, rules,
            exported, started):
    cluster = Cluster(plane)
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
    setup_seconds = time.monotonic() - started

    # Phase 0, no policy: what the API server admits, and the object it hands
    # to admission (quantities in canonical form, a Pod's requests defaulted).
    t0 = time.monotonic()
    before = send_all(cluster, objects)
    t1 = time.monotonic()
    # Phase 1: the exported policies and bindings, and an observer binding of
    # the errors policy in Warn, so that every failing validation shows, not
    # only the first, which the denial quotes.
    for o in policy_objects:
        cluster.apply(o)
    observer = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": names["errors"] + "-observe"},
                "spec": {"policyName": names["errors"], "validationActions": ["Warn"]}}
    cluster.apply(observer)
    wait("the policies", 30, lambda: policies_active(cluster, names))
    t2 = time.monotonic()
    after = send_all(cluster, objects)
    send_seconds = (t1 - t0, t2 - t1, time.monotonic() - t2)

    # gpulint check on each object as sent, and as the API server admitted it.
    raw_dir, norm_dir = os.path.join(tmp, "raw"), os.path.join(tmp, "admitted")
    os.makedirs(raw_dir)
    os.makedirs(norm_dir)
    raw_files, norm_files = [], []
    for i, (doc, b) in enumerate(zip(objects, before)):
        raw = os.path.join(raw_dir, "%04d.json" % i)
        with open(raw, "w") as f:
            json.dump(doc["object"], f)
        raw_files.append(raw)
        norm = None
        if b is not None and b.status < 300 and isinstance(b.body, dict):
            norm = os.path.join(norm_dir, "%04d.json" % i)
            with open(norm, "w") as f:
                json.dump(b.body, f)
        norm_files.append(norm)
    engine = engine_findings(gpulint, [raw_dir, norm_dir], exported)

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
        found, denied = vap_findings(a, names, rules)
        problems = judge(a, found, denied, raw, norm, rules)
        requoted = key(raw) != key(norm)
        counts["admitted or denied"] += 1
        counts["with findings"] += bool(found)
        counts["quoted as stored"] += requoted and not problems
        status = "DISAGREE" if problems else ("ok, quoted as stored" if requoted else "ok")
        outcome = "denied" if denied is not None else ("admitted" if a.status < 300 else "refused")
        rows.append((where, what, outcome, fmt_rules(found), fmt_rules(raw), status))
        if problems:
            failures.append((where, what, problems))

    print_table(rows)
    print("\nvap: %d objects from %s: %d sent (%d with findings), %d refused by the API server "
          "before admission, %d of kinds it does not serve; %d documents do not parse, %d sources "
          "not rendered (%s)" % (
              len(objects), os.path.relpath(testdata_dir(objects), ROOT), counts["admitted or denied"],
              counts["with findings"], counts["refused before admission"], counts["not served"],
              len(unparsed), len(sources), ", ".join(os.path.relpath(s["file"], ROOT) for s in sources)))
    print("vap: %d objects whose messages quote a quantity as the API server stores it "
          "(docs/export.md); %d disagreements" % (counts["quoted as stored"], len(failures)))
    print("vap: %.1f s to start and set up; %d objects sent in %.1f s without the policies, "
          "%.1f s to apply them, %.1f s to send them again" %
          ((setup_seconds, len(objects)) + send_seconds))
    for where, what, problems in failures:
        print("\nDISAGREE %s (%s):" % (where, what))
        for p in problems:
            print("  " + p.replace("\n", "\n  "))
    return 1 if failures else 0


def testdata_dir(objects):
    return os.path.commonpath([o["file"] for o in objects]) if objects else ROOT



if __name__ == "__main__":
    sys.exit(main())
