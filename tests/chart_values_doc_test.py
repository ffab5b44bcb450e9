#!/usr/bin/env python3
"""The chart README's values table covers every value of values.yaml, each
with its comment, and is what scripts/chart-values.py writes from them.

    tests/chart_values_doc_test.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
values_path = os.path.join(src, "charts/gpulint-webhook/values.yaml")
readme_path = os.path.join(src, "charts/gpulint-webhook/README.md")
script = os.path.join(src, "scripts/chart-values.py")
failures = []


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def leaves(value, path=()):
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    else:
        yield ".".join(path)


# Every value has a comment.
checked = run("--check", values_path)
if checked.returncode != 0:
    failures.append("values without a '# --' comment:\n" + checked.stdout)

# The README holds the table as written now.
generated = run(values_path).stdout
readme = open(readme_path).read()
m = re.search(r"<!-- BEGIN VALUES[^\n]*\n(.*?)<!-- END VALUES -->", readme, re.S)
if not m:
    failures.append("the chart README has no <!-- BEGIN VALUES --> ... <!-- END VALUES --> section")
elif m.group(1) != generated:
    failures.append("the chart README's values table is stale: run scripts/update-readme")

# Each value of values.yaml is in a row: its own, or one of a mapping that holds it.
rows = re.findall(r"^\| `([^`]+)` \|", generated, re.M)
with open(values_path) as f:
    values = yaml.safe_load(f)
for leaf in leaves(values):
    if not any(leaf == r or leaf.startswith(r + ".") for r in rows):
        failures.append(f"{leaf} is in no row of the table")
if len(rows) < 60:
    failures.append(f"only {len(rows)} rows: the table cannot cover the values")

# The check can fail: a value added without a comment is named.
with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
    f.write(open(values_path).read() + "\nundocumentedValue: 3\n")
    f.flush()
    bad = run("--check", f.name)
    if bad.returncode == 0 or "undocumentedValue has no '# -- ' comment" not in bad.stdout:
        failures.append("--check does not refuse an undocumented value: " + bad.stdout)

for failure in failures:
    print("FAIL: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"chart values: {len(rows)} rows cover every value of values.yaml, each with its comment")
