#!/usr/bin/env python3
"""The chart README's table of values, written from values.yaml's comments.

A value is documented by the comment block right above its key that starts
with "# -- " (helm-docs' convention). Rows, in the file's order:

- a key whose value is not a mapping (a scalar, a list, {}): one row, its
  default and its comment;
- a documented mapping none of whose keys is documented (resources, a
  securityContext): one row for the whole mapping;
- a documented mapping with documented keys: a row for the mapping's own
  comment (no default), then its keys' rows;
- an undocumented mapping: its keys' rows.

    scripts/chart-values.py [VALUES_YAML]          # print the table
    scripts/chart-values.py --check [VALUES_YAML]  # every value documented?

--check fails, naming them, on values without a row or a row without a
comment. scripts/update-readme writes the table into the chart's README;
tests/chart_values_doc_test.py holds both to this script.
"""
import os
import re
import sys

import yaml

KEY = re.compile(r"^( *)([A-Za-z0-9_.-]+):(?: |$)")
MAX_DEFAULT = 120


def lookup(values, path):
    for key in path:
        if not isinstance(values, dict) or key not in values:
            return None
        values = values[key]
    return values


def comments_by_path(lines, values):
    """{path tuple: comment text} for the keys of block mappings. The lines of
    a list's items are no keys of the mapping around them, and are skipped."""
    out = {}
    stack = []  # (indent, key)
    block = []  # the comment lines just above, with their indent
    list_indent = None  # inside a list's items: its key's indent
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if list_indent is not None:
            if not stripped or indent > list_indent or \
                    (indent == list_indent and stripped.startswith("- ")):
                continue
            list_indent = None
        if stripped.startswith("#"):
            block.append((indent, stripped))
            continue
        m = KEY.match(line) if stripped else None
        if not m:
            block = []
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(2)))
        path = tuple(k for _, k in stack)
        texts = [t for i, t in block if i == indent]
        start = next((n for n, t in enumerate(texts) if t.startswith("# --")), None)
        if start is not None:
            words = [texts[start][len("# --"):].strip()]
            words += [t.lstrip("#").strip() for t in texts[start + 1:]]
            out[path] = " ".join(w for w in words if w)
        block = []
        if line[m.end():].strip() == "" and isinstance(lookup(values, path), list):
            list_indent = indent
    return out


def default_text(value):
    if isinstance(value, str):
        text = '""' if value == "" else value
    else:
        text = yaml.safe_dump(value, default_flow_style=True, width=10**6, sort_keys=False).strip()
        if text.endswith("\n..."):
            text = text[:-4].strip()
    if len(text) > MAX_DEFAULT:
        return "see values.yaml"
    return "`" + text.replace("|", "\\|") + "`"


def rows(values, comments, path=()):
    """(name, default or None, comment or None) in the file's order."""
    out = []
    for key, value in values.items():
        p = path + (key,)
        name = ".".join(p)
        comment = comments.get(p)
        if isinstance(value, dict) and value:
            documented_below = any(q[:len(p)] == p and len(q) > len(p) for q in comments)
            if comment is not None and not documented_below:
                out.append((name, default_text(value), comment))
                continue
            if comment is not None:
                out.append((name, None, comment))
            out += rows(value, comments, p)
        else:
            out.append((name, default_text(value), comment))
    return out


def table(values_path):
    with open(values_path) as f:
        text = f.read()
    values = yaml.safe_load(text)
    comments = comments_by_path(text.splitlines(), values)
    out = ["| value | default | meaning |", "|---|---|---|"]
    missing = []
    for name, default, comment in rows(values, comments):
        if comment is None:
            missing.append(name)
            comment = ""
        out.append(f"| `{name}` | {default if default is not None else ''} | "
                   f"{comment.replace('|', chr(92) + '|')} |")
    return "\n".join(out) + "\n", missing


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = args[0] if args else os.path.join(root, "charts/gpulint-webhook/values.yaml")
    text, missing = table(path)
    if check:
        for name in missing:
            print(f"{path}: {name} has no '# -- ' comment above it")
        sys.exit(1 if missing else 0)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
