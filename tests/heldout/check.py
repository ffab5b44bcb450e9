#!/usr/bin/env python3
"""The held-out measurement: gpulint on real GPU manifests it was not tuned on,
against the verdicts given by hand to each of its findings.

    tests/heldout/check.py GPULINT [--report]

The manifests (third-party files, unmodified, with their licences) live
outside the repository, in $GPULINT_HELDOUT_DIR or ../shared/heldout beside
it; testdata/heldout/classified.json holds the verdicts: each finding true,
false or debatable, and the problems no rule reported ("missed").

Fails when a finding judged false comes back, when one judged true is lost,
or when a finding has no verdict yet (it prints the line to add, to be judged
by hand). A finding of a problem listed as missed is true: that was judged. Prints precision and recall per run. Exit 77 (skipped) when the
manifests are not there.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = {
    "nonodes": [],
    "cloud": ["--nodes", os.path.join(ROOT, "testdata/nodes/cloud-shapes.yaml")],
}


def data_dir():
    d = os.environ.get("GPULINT_HELDOUT_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "heldout")
    return d if os.path.isdir(d) else None


def findings(gpulint, data, extra):
    """Each finding of one run, keyed as classified.json keys them."""
    with tempfile.TemporaryDirectory() as tmp:
        link = os.path.join(tmp, "heldout")
        os.symlink(os.path.abspath(data), link)
        out = subprocess.run([gpulint, "check", "--format", "json", "-j", "2", *extra, "heldout"],
                             cwd=tmp, capture_output=True, text=True)
    if out.returncode > 1:
        sys.exit(f"FAIL: gpulint check exited {out.returncode}: {out.stderr.strip()}")
    result = []
    for f in json.loads(out.stdout)["findings"]:
        obj = f.get("object") or {}
        result.append({"file": f["file"].split("/", 1)[1], "kind": obj.get("kind", ""),
                       "name": obj.get("name", ""), "rule": f["rule"],
                       "severity": f["severity"], "path": f["path"], "message": f["message"]})
    return result


def key(f):
    # A verdict is for a finding as it was given: at another severity it is
    # another finding, to be judged again.
    return (f["file"], f["kind"], f["name"], f["rule"], f["path"], f["severity"])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gpulint, report = os.path.abspath(sys.argv[1]), "--report" in sys.argv
    data = data_dir()
    if not data:
        print("SKIPPED: the held-out manifests are not here: set GPULINT_HELDOUT_DIR, or put them in "
              "../shared/heldout beside the repository (testdata/heldout/README.md)")
        return 77
    with open(os.path.join(ROOT, "testdata/heldout/classified.json")) as f:
        classified = json.load(f)
    problems = []
    for run, extra in RUNS.items():
        verdicts = {key(c): c for c in classified["findings"] if c["run"] in (run, "both")}
        got = findings(gpulint, data, extra)
        seen = set()
        counts = {"true": 0, "false": 0, "debatable": 0}
        by_rule = {}
        def listed_missed(f):  # a problem judged real, that no rule reported before
            return next((m for m in classified["missed"]
                         if f["file"] == m["file"] and f["name"] == m["name"] and
                         f["rule"] == m["rule"] and f["path"].startswith(m["path"])), None)
        for f in got:
            k = key(f)
            seen.add(k)
            c = verdicts.get(k)
            if c is None and listed_missed(f):
                c = {**listed_missed(f), "verdict": "true"}
            if c is None:
                problems.append(f"{run}: a finding with no verdict; judge it and add it to "
                                f"testdata/heldout/classified.json:\n  " + json.dumps(
                                    {"run": run, **{x: f[x] for x in ("file", "kind", "name", "rule",
                                                                       "severity", "path")},
                                     "verdict": "?", "why": "?", "message": f["message"]}))
                continue
            counts[c["verdict"]] += 1
            by_rule.setdefault(f["rule"], {"true": 0, "false": 0, "debatable": 0})[c["verdict"]] += 1
            if c["verdict"] == "false":
                problems.append(f"{run}: a finding judged false is back: {f['file']} {f['path']} "
                                f"[{f['rule']}]: {c['why']}")
        for k, c in verdicts.items():
            if c["verdict"] == "true" and k not in seen:
                problems.append(f"{run}: a true finding is lost: {c['file']} {c['path']} "
                                f"[{c['rule']}]: {c['why']}")
        missed = [m for m in classified["missed"] if not any(listed_missed(f) is m for f in got)]
        found_missed = len(classified["missed"]) - len(missed)
        judged = counts["true"] + counts["false"]
        precision = counts["true"] / judged if judged else 1.0
        strict = counts["true"] / max(1, sum(counts.values()))
        recall = counts["true"] / max(1, counts["true"] + len(missed))
        print(f"{run}: {len(got)} findings: {counts['true']} true, {counts['false']} false, "
              f"{counts['debatable']} debatable; precision {precision:.2f} "
              f"({strict:.2f} with debatable as false); recall {recall:.2f} "
              f"({len(missed)} missed, {found_missed} of the list now found)")
        if report:
            for rule, c in sorted(by_rule.items()):
                print(f"  {rule}: {c['true']} true, {c['false']} false, {c['debatable']} debatable")
            for m in missed:
                print(f"  missed: {m['file']} {m['path']} [{m['rule']}]: {m['why']}")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
