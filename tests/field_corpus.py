#!/usr/bin/env python3
"""The field corpus: gpulint on real GPU manifests from public projects,
against the verdicts given by hand to each of its findings.

    tests/field_corpus.py GPULINT [--report] [--unjudged FILE] [--rows A-B] [--also FILE]

The manifests are in testdata/field/manifests/, unmodified third-party files
with their licences in testdata/field/LICENSES/ (testdata/field/README.md).
testdata/field/classified*.json (one a round) hold the verdicts: each finding
true, false or debatable with the reason, and the problems no rule reported
("missed").

Fails when
- a file is not the blob SOURCES.md names, a manifest has no row, a row no
  file, or a project no licence text (the corpus is the repository's: there is
  nothing to skip);
- a finding judged false comes back, or one judged true is lost;
- a finding has no verdict yet (it prints the entry to judge and add;
  --unjudged FILE writes them all there, one JSON object a line).
A finding of a problem listed as missed is true: that was judged.
Prints precision and recall per run; --report adds them per rule. --rows A-B
measures only the files of SOURCES.md's rows A to B (a round, or an older
gpulint on it: a true finding it lacks is then a fact to report, not a failure).
--also FILE adds the verdicts of FILE (an older gpulint's findings, judged by
hand: REPORT-33.before.json).
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELD = os.path.join(ROOT, "testdata", "field")
MANIFESTS = os.path.join(FIELD, "manifests")
RUNS = {
    "nonodes": [],
    "cloud": ["--nodes", os.path.join(ROOT, "testdata/nodes/cloud-shapes.yaml")],
}
VERDICTS = ("true", "false", "debatable")


def blob_id(path):
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def source_rows():
    """The rows of SOURCES.md's file table: saved name, repository, blob."""
    rows = []
    with open(os.path.join(FIELD, "SOURCES.md")) as f:
        for line in f:
            if not re.match(r"^\| \d+ \|", line):
                continue
            cells = [c.strip().strip("`") for c in line.split("|")[1:-1]]
            rows.append({"row": int(cells[0]), "file": cells[1], "repo": cells[2],
                         "blob": cells[6]})
    return rows


def check_sources():
    """Every manifest is the blob its row names, and every project's licence is here."""
    problems = []
    rows = source_rows()
    listed = {r["file"] for r in rows}
    present = set()
    for d, _, files in os.walk(MANIFESTS):
        for name in files:
            present.add(os.path.relpath(os.path.join(d, name), MANIFESTS))
    for name in sorted(present - listed):
        problems.append(f"testdata/field/manifests/{name} has no row in SOURCES.md")
    for name in sorted(listed - present):
        problems.append(f"SOURCES.md lists {name}, which is not in testdata/field/manifests/")
    for r in rows:
        if r["file"] in present and not blob_id(os.path.join(MANIFESTS, r["file"])).startswith(r["blob"]):
            problems.append(f"{r['file']} is not blob {r['blob']} of {r['repo']}: the corpus holds "
                            "files unmodified")
        licence = os.path.join(FIELD, "LICENSES", r["repo"].replace("/", "__") + ".LICENSE")
        if not os.path.isfile(licence):
            problems.append(f"no licence text for {r['repo']}: {os.path.relpath(licence, ROOT)}")
    if len(rows) == 0:
        problems.append("SOURCES.md lists no file")
    return problems, rows


def findings(gpulint, extra, files):
    """Each finding of one run, keyed as classified.json keys them."""
    out = subprocess.run([gpulint, "check", "--format", "json", "-j", "2", *extra, *files],
                         cwd=MANIFESTS, capture_output=True, text=True)
    if out.returncode > 1:
        sys.exit(f"FAIL: gpulint check exited {out.returncode}: {out.stderr.strip()}")
    result = []
    for f in json.loads(out.stdout)["findings"]:
        obj = f.get("object") or {}
        result.append({"file": os.path.normpath(f["file"]), "kind": obj.get("kind", ""),
                       "name": obj.get("name", ""), "rule": f["rule"],
                       "severity": f["severity"], "path": f["path"], "message": f["message"]})
    return result


def key(f):
    # A verdict is for a finding as it was given: at another severity it is
    # another finding, to be judged again.
    return (f["file"], f["kind"], f["name"], f["rule"], f["path"], f["severity"])


def judge_run(run, got, classified, problems, unjudged, report, files):
    verdicts = {key(c): c for c in classified["findings"]
                if c["run"] in (run, "both") and c["file"] in files}
    missed_list = [m for m in classified["missed"] if m["file"] in files]

    def listed_missed(f):  # a problem judged real, that no rule reported before
        return next((m for m in missed_list
                     if f["file"] == m["file"] and f["name"] == m["name"] and
                     f["rule"] == m["rule"] and f["path"].startswith(m["path"])), None)

    seen = set()
    counts = dict.fromkeys(VERDICTS, 0)
    by_rule = {}
    for f in got:
        k = key(f)
        seen.add(k)
        c = verdicts.get(k) or (listed_missed(f) and {**listed_missed(f), "verdict": "true"})
        if not c:
            entry = {"run": run, **{x: f[x] for x in ("file", "kind", "name", "rule", "severity",
                                                       "path")},
                     "verdict": "?", "why": "?", "message": f["message"]}
            unjudged.append(entry)
            problems.append(f"{run}: a finding with no verdict; judge it and add it to "
                            f"testdata/field/classified-*.json:\n  {json.dumps(entry)}")
            continue
        counts[c["verdict"]] += 1
        by_rule.setdefault((f["rule"], f["severity"]), dict.fromkeys(VERDICTS, 0))[c["verdict"]] += 1
        if c["verdict"] == "false":
            problems.append(f"{run}: a finding judged false is back: {f['file']} {f['path']} "
                            f"[{f['rule']}]: {c['why']}")
    lost = [c for k, c in verdicts.items() if c["verdict"] == "true" and k not in seen]
    for c in lost:
        problems.append(f"{run}: a true finding is lost: {c['file']} {c['path']} "
                        f"[{c['rule']}]: {c['why']}")
    # A true finding lost is a problem missed, as one never found is.
    missed = lost + [m for m in missed_list if not any(listed_missed(f) is m for f in got)]
    judged = counts["true"] + counts["false"]
    total = sum(counts.values())
    precision = counts["true"] / judged if judged else 1.0
    recall = counts["true"] / max(1, counts["true"] + len(missed))
    debatable = counts["debatable"] / total if total else 0.0
    print(f"{run}: {len(got)} findings: {counts['true']} true, {counts['false']} false, "
          f"{counts['debatable']} debatable ({debatable:.0%}); precision {precision:.3f}; "
          f"recall {recall:.3f} ({len(missed)} missed, {len(lost)} of them true findings lost; "
          f"{len(missed_list) - len(missed) + len(lost)} of the missed list now found)")
    if report:
        for (rule, severity), c in sorted(by_rule.items()):
            print(f"  {rule} ({severity}): {c['true']} true, {c['false']} false, "
                  f"{c['debatable']} debatable")
        for m in missed:
            print(f"  missed: {m['file']} {m['path']} [{m['rule']}]: {m['why']}")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    gpulint, report = os.path.abspath(args[0]), "--report" in args
    unjudged_file = args[args.index("--unjudged") + 1] if "--unjudged" in args else None
    problems, rows = check_sources()
    files = [r["file"] for r in rows]
    if "--rows" in args:
        first, last = map(int, args[args.index("--rows") + 1].split("-"))
        files = [r["file"] for r in rows if first <= r["row"] <= last]
    classified = {"findings": [], "missed": []}
    for name in sorted(os.listdir(FIELD)):  # a file per round: classified.json, classified-round2.json
        if name.startswith("classified") and name.endswith(".json"):
            with open(os.path.join(FIELD, name)) as f:
                part = json.load(f)
            classified["findings"] += part["findings"]
            classified["missed"] += part["missed"]
    if "--also" in args:
        with open(args[args.index("--also") + 1]) as f:
            part = json.load(f)
        classified["findings"] += part["findings"]
        classified["missed"] += part.get("missed", [])
    for c in classified["findings"] + classified["missed"]:
        if c.get("verdict", "true") not in VERDICTS or not c.get("why"):
            problems.append(f"classified.json: an entry without a verdict and its reason: {c}")
    print(f"field corpus: {len(files)} files")
    unjudged = []
    for run, extra in RUNS.items():
        judge_run(run, findings(gpulint, extra, files), classified, problems, unjudged, report,
                  set(files))
    if unjudged_file:
        with open(unjudged_file, "w") as f:
            f.writelines(json.dumps(u) + "\n" for u in unjudged)
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
