#!/usr/bin/env python3
"""Holds a documented output to what a command really printed.

    excerpt.py FILE MARKER < OUTPUT

The first ```text block after the line of FILE that holds MARKER is an
excerpt of OUTPUT: each of its lines must match a whole line of OUTPUT, in
order (lines of OUTPUT may be left out between them), where "..." in the
excerpt stands for any text. Exit status 0 when it matches; 1 with the first
line that does not, and why; 2 when FILE has no such block.
"""
import re
import sys


def block(path, marker):
    lines = open(path, encoding="utf-8").read().split("\n")
    start = next((i for i, line in enumerate(lines) if marker in line), None)
    if start is None:
        return None
    opening = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == "```text"), None)
    if opening is None:
        return None
    indent = lines[opening][: len(lines[opening]) - len(lines[opening].lstrip())]
    out = []
    for line in lines[opening + 1 :]:
        if line.strip() == "```":
            return out
        out.append(line[len(indent) :] if line.startswith(indent) else line)
    return None


def main():
    if len(sys.argv) != 3:
        print("usage: excerpt.py FILE MARKER < OUTPUT", file=sys.stderr)
        return 2
    path, marker = sys.argv[1], sys.argv[2]
    excerpt = block(path, marker)
    if not excerpt:
        print(f"{path}: no ```text block after {marker!r}", file=sys.stderr)
        return 2
    output = sys.stdin.read().split("\n")
    at = 0
    for number, line in enumerate(excerpt, 1):
        pattern = re.compile(".*".join(re.escape(part) for part in line.split("...")) + r"\Z")
        while at < len(output) and not pattern.match(output[at]):
            at += 1
        if at == len(output):
            print(f"{path}: line {number} of the excerpt after {marker!r} is not in the output "
                  f"(or not in this order):\n  {line}", file=sys.stderr)
            return 1
        at += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
