"""Findings on both sides of tests/vap: gpulint check's, and the exported
policies' as the API server reports them (the denial and the warnings), and
how one object's are compared."""
import collections
import json
import os
import re
import subprocess

DENIED = re.compile(r"ValidatingAdmissionPolicy '([^']+)' with binding '([^']+)' denied request: (.*)$", re.S)
WARNED = re.compile(r"^Validation failed for ValidatingAdmissionPolicy '([^']+)' with binding '([^']+)': (.*)$", re.S)


def split_message(message, rules):
    """(rule, path, message) of each finding in a validation's message: the
    findings as gpulint-webhook words them, joined by '; '."""
    rule = next((r for r in rules if message.startswith(r + " (") or message.startswith(r + ":")), None)
    if rule is None:
        return [("?", "", message)]
    out = []
    for part in re.split(r"; (?=%s[ :])" % re.escape(rule), message):
        m = re.match(r"^%s(?: \((.*?)\))?: (.*)$" % re.escape(rule), part, re.S)
        out.append((rule, m.group(1) or "", m.group(2)) if m else ("?", "", part))
    return out


def engine_findings(gpulint, policy, paths, exported):
    """{file: [(rule, class, path, message)]} of gpulint check --format json
    --policy POLICY on `paths`, the exported rules' findings only."""
    env = dict(os.environ)
    env.pop("GPULINT_POLICY", None)
    out = subprocess.run([gpulint, "check", "--format", "json", "--fail-on", "none", "-j", "2",
                          "--policy", policy, *paths], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if out.returncode != 0:
        raise RuntimeError("gpulint check failed (%d): %s" % (out.returncode, out.stderr.decode()[-2000:]))
    result = collections.defaultdict(list)
    for f in json.loads(out.stdout)["findings"]:
        if f["rule"] in exported:
            cls = "error" if f["severity"] == "error" else "warning"
            result[f["file"]].append((f["rule"], cls, f["path"], f["message"]))
    return result


# Past 4,096 characters of warnings in one response, the API server cuts each
# warning to 256 (k8s.io/apiserver's WithWarningRecorder), and drops those
# past 4,096 again.
WARNING_CUT = 256
WARNINGS_KEPT = 4096 // WARNING_CUT


class Observed:
    """What a dry-run says of the policies: `found`, each finding of every
    failing validation (rule, class, path, message); `denied`, the denial's
    findings (None when admitted); `cut`, for the validations whose warning the
    API server cut short, (rule, class) -> the text that is left of their
    first finding ("rule (path): message...")."""

    def __init__(self, outcome, names, rules):
        self.found, self.denied, self.cut = [], None, {}
        self.warnings = len(outcome.warnings)
        cutting = any(len(w) == WARNING_CUT for w in outcome.warnings)
        for w in outcome.warnings:
            m = WARNED.match(w)
            if not m:
                continue
            policy, binding, message = m.groups()
            if binding == names["errors"]:
                continue  # the deny binding is read from the denial
            cls = "error" if policy == names["errors"] else "warning"
            findings = split_message(message, rules)
            if cutting and len(w) == WARNING_CUT:
                rule = findings[0][0]
                self.cut[(rule, cls)] = message.split("; " + rule + " (")[0]
            else:
                self.found += [(r, cls, p, t) for r, p, t in findings]
        if outcome.status >= 300:
            m = DENIED.search(outcome.message)
            if m:
                self.denied = split_message(m.group(3), rules)


def key(findings):
    return collections.Counter(findings)


def verdict(findings):
    return sorted({(f[0], f[1]) for f in findings})


# ---- the run ----------------------------------------------------------------

def judge(outcome, observed, raw, norm, rules):
    """What is wrong with one object's verdict: `observed` the policies' (an
    Observed), `raw` gpulint check's findings on the object as sent, `norm` on
    the object as the API server hands it to admission. [] when they agree."""
    problems = []
    found, denied, cut = list(observed.found), observed.denied, dict(observed.cut)
    if denied is not None and (denied[0][0], "error") in cut:
        # The denial is never cut: it holds that rule's findings whole.
        del cut[(denied[0][0], "error")]
        found += [(r, "error", p, t) for r, p, t in denied]
    if cut and observed.warnings >= WARNINGS_KEPT:
        problems.append("the API server cut and dropped warnings past 4 KB: the policies' findings "
                        "cannot all be read")
    # A warning cut short: its rule, and the start of its first finding, which
    # must be one of gpulint check's.
    for (rule, cls), start in cut.items():
        if not any(("%s (%s): %s" % (r, p, t)).startswith(start) for r, c, p, t in norm if (r, c) == (rule, cls)):
            problems.append("the start of %s's cut warning is none of gpulint check's findings: %s" % (rule, start))
    admitted, norm = norm, [f for f in norm if (f[0], f[1]) not in cut]
    if outcome.status >= 300 and denied is None:
        problems.append("refused, not by the exported policy: " + short(outcome.message, 300))
    if denied is not None and key([(r, "error", p, t) for r, p, t in denied]) != key(
            [f for f in found if f[0] == denied[0][0] and f[1] == "error"]):
        problems.append("the denial's findings are not the observer's for %s" % denied[0][0])
    errors_expected = [f for f in raw if f[1] == "error"]
    if bool(errors_expected) != (denied is not None):
        problems.append("denied: %s, but gpulint check reports %d error(s)" %
                        ("yes" if denied is not None else "no", len(errors_expected)))
    if denied is not None:
        # The API server quotes the first failed validation: the first rule,
        # in the policy's order, with an error.
        first = next((r for r in rules if any(f[0] == r for f in errors_expected)), None)
        if denied[0][0] != first:
            problems.append("denied by %s, the first rule with errors is %s" % (denied[0][0], first))
    if sorted(set(verdict(found)) | set(cut)) != verdict(raw):
        problems.append("verdict: policy %s, gpulint check %s" % (sorted(set(verdict(found)) | set(cut)), verdict(raw)))
    if key(found) != key(norm):
        problems.append("messages differ:\n" + diff(found, norm))
    if verdict(raw) != verdict(admitted):
        problems.append("gpulint check differs on the admitted object: %s vs %s" % (verdict(raw), verdict(admitted)))
    return problems


def fmt_rules(findings):
    c = collections.Counter((f[0], f[1]) for f in findings)
    return ", ".join("%s%s%s" % (r, "" if cls == "error" else "(w)", " x%d" % n if n > 1 else "")
                     for (r, cls), n in sorted(c.items())) or "-"


def short(text, n=90):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


def diff(found, expected):
    a, b = key(found), key(expected)
    lines = ["    policy only:  %s" % (f,) for f in (a - b).elements()]
    lines += ["    gpulint only: %s" % (f,) for f in (b - a).elements()]
    return "\n".join(lines)


def print_table(rows):
    header = ("document", "object", "API server", "policy", "gpulint check", "")
    widths = [min(60, max(len(str(r[i])) for r in rows + [header])) for i in range(5)]
    def line(r):
        return "  ".join(str(c)[:w].ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5]
    print(line(header))
    for r in rows:
        print(line(r))
