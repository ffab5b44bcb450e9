#!/usr/bin/env python3
"""Checks SARIF logs against GitHub code scanning's documented ingestion rules.

Not the SARIF schema (lint/output/sarif_test.cc holds gpulint to that), but
what GitHub's "SARIF support for code scanning" page requires of an upload,
and the limits past which it refuses one ("SARIF limits" on the same page):

- the log: `$schema`, `version` 2.1.0, `runs` (at most 20);
- a run: `tool.driver.name`, `tool.driver.rules` (at most 25,000), `results`
  (at most 25,000), at most 100 `tool.extensions`;
- a rule: `id`, `shortDescription.text` and `fullDescription.text` (each at
  most 1,024 characters), `help.text`; `name` at most 255 characters;
  `defaultConfiguration.level` note, warning or error; at most 20 tags;
- a result: `message.text`; `locations` with at least one and at most 10
  entries, the first with a `physicalLocation` whose `artifactLocation.uri`
  names a file and whose `region.startLine` is at least 1 (code scanning
  annotates that file; a result with no location is refused, as
  github/codeql-action#1738 shows); `partialFingerprints` with
  `primaryLocationLineHash`, the one key code scanning reads; a `ruleIndex`
  that points at the rule its `ruleId` names;
- "The empty string is not supported for required properties";
- URIs: relative to the repository root (no "../" out of it), or file:// and
  absolute; a `uriBaseId` defined in `originalUriBaseIds`. With --root, every
  file a result names must exist there: code scanning cannot show a result on
  a file that is not in the repository ("overlays/prod (kustomized)").
- the upload: at most 10 MB gzipped.

    tests/sarif_github.py [--root DIR] FILE...

Prints each problem as "FILE: where: what" and exits 1 when there is one.
"""
import argparse
import gzip
import json
import os
import sys
import urllib.parse

MAX_RUNS = 20
MAX_RESULTS = 25000
MAX_RULES = 25000
MAX_EXTENSIONS = 100
MAX_LOCATIONS = 10
MAX_TAGS = 20
MAX_DESCRIPTION = 1024
MAX_RULE_NAME = 255
MAX_GZIPPED = 10 * 1024 * 1024


def text_of(obj, key):
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, dict):
        value = value.get("text")
    return value


def check_uri(where, artifact, base_ids, root, problems):
    uri = artifact.get("uri")
    if not isinstance(uri, str) or not uri:
        problems.append(f"{where}: artifactLocation.uri is missing or empty")
        return
    parsed = urllib.parse.urlparse(uri)
    base = artifact.get("uriBaseId")
    if parsed.scheme and parsed.scheme != "file":
        problems.append(f"{where}: uri {uri!r} is neither relative nor file://")
        return
    if parsed.scheme == "file":
        path = urllib.parse.unquote(parsed.path)
        if not os.path.isabs(path):
            problems.append(f"{where}: file URI {uri!r} is not absolute")
        if root and os.path.commonpath([os.path.abspath(root), path]) != os.path.abspath(root):
            problems.append(f"{where}: {uri!r} is outside the repository {root}")
        elif root and not os.path.isfile(path):
            problems.append(f"{where}: {uri!r} names no file")
        return
    if base is not None and base not in base_ids:
        problems.append(f"{where}: uriBaseId {base!r} is not in originalUriBaseIds")
    relative = urllib.parse.unquote(uri)
    if relative.startswith("/") or relative == ".." or relative.startswith("../"):
        problems.append(f"{where}: uri {uri!r} leaves the repository root")
        return
    if root and not os.path.isfile(os.path.join(root, relative)):
        problems.append(f"{where}: {uri!r} names no file of the repository")


def check_log(log, root=None):
    problems = []
    if not isinstance(log, dict):
        return ["the log is not a JSON object"]
    if not isinstance(log.get("$schema"), str) or not log["$schema"]:
        problems.append("$schema is missing")
    if log.get("version") != "2.1.0":
        problems.append(f"version is {log.get('version')!r}, not 2.1.0")
    runs = log.get("runs")
    if not isinstance(runs, list) or not runs:
        return problems + ["runs is missing or empty"]
    if len(runs) > MAX_RUNS:
        problems.append(f"{len(runs)} runs, more than {MAX_RUNS}")
    for r, run in enumerate(runs):
        at = f"runs[{r}]"
        driver = run.get("tool", {}).get("driver")
        if not isinstance(driver, dict) or not driver.get("name"):
            problems.append(f"{at}: tool.driver.name is missing")
            driver = {}
        if len(run.get("tool", {}).get("extensions", [])) > MAX_EXTENSIONS:
            problems.append(f"{at}: more than {MAX_EXTENSIONS} tool extensions")
        rules = driver.get("rules")
        if not isinstance(rules, list):
            problems.append(f"{at}: tool.driver.rules is missing")
            rules = []
        if len(rules) > MAX_RULES:
            problems.append(f"{at}: {len(rules)} rules, more than {MAX_RULES}")
        for i, rule in enumerate(rules):
            where = f"{at}.tool.driver.rules[{i}] ({rule.get('id')})"
            if not rule.get("id"):
                problems.append(f"{where}: id is missing or empty")
            for key in ("shortDescription", "fullDescription"):
                text = text_of(rule, key)
                if not isinstance(text, str) or not text:
                    problems.append(f"{where}: {key}.text is missing or empty")
                elif len(text) > MAX_DESCRIPTION:
                    problems.append(f"{where}: {key}.text has {len(text)} characters, "
                                    f"more than {MAX_DESCRIPTION}")
            help_text = text_of(rule, "help")
            if not isinstance(help_text, str) or not help_text:
                problems.append(f"{where}: help.text is missing or empty")
            if len(rule.get("name", "")) > MAX_RULE_NAME:
                problems.append(f"{where}: name is longer than {MAX_RULE_NAME}")
            level = rule.get("defaultConfiguration", {}).get("level")
            if level is not None and level not in ("note", "warning", "error"):
                problems.append(f"{where}: defaultConfiguration.level {level!r}")
            if len(rule.get("properties", {}).get("tags", [])) > MAX_TAGS:
                problems.append(f"{where}: more than {MAX_TAGS} tags")
        base_ids = run.get("originalUriBaseIds", {})
        for name, base in base_ids.items():
            uri = base.get("uri", "")
            if not uri.endswith("/"):
                problems.append(f"{at}: originalUriBaseIds.{name}.uri {uri!r} does not end in /")
        results = run.get("results")
        if not isinstance(results, list):
            problems.append(f"{at}: results is missing")
            results = []
        if len(results) > MAX_RESULTS:
            problems.append(f"{at}: {len(results)} results, more than {MAX_RESULTS}")
        for i, result in enumerate(results):
            where = f"{at}.results[{i}] ({result.get('ruleId')})"
            message = text_of(result, "message")
            if not isinstance(message, str) or not message:
                problems.append(f"{where}: message.text is missing or empty")
            if "ruleIndex" in result:
                index = result["ruleIndex"]
                if not (isinstance(index, int) and 0 <= index < len(rules)):
                    problems.append(f"{where}: ruleIndex {index} is not a rule")
                elif rules[index].get("id") != result.get("ruleId"):
                    problems.append(f"{where}: ruleIndex {index} is {rules[index].get('id')}")
            level = result.get("level")
            if level is not None and level not in ("none", "note", "warning", "error"):
                problems.append(f"{where}: level {level!r}")
            hashes = result.get("partialFingerprints", {})
            if not isinstance(hashes.get("primaryLocationLineHash"), str) or \
                    not hashes["primaryLocationLineHash"]:
                problems.append(f"{where}: no partialFingerprints.primaryLocationLineHash")
            locations = result.get("locations")
            if not isinstance(locations, list) or not locations:
                problems.append(f"{where}: no location (code scanning refuses the result)")
                continue
            if len(locations) > MAX_LOCATIONS:
                problems.append(f"{where}: {len(locations)} locations, more than {MAX_LOCATIONS}")
            physical = locations[0].get("physicalLocation")
            if not isinstance(physical, dict):
                problems.append(f"{where}: its location has no physicalLocation")
                continue
            check_uri(where, physical.get("artifactLocation", {}), base_ids, root, problems)
            region = physical.get("region")
            if not isinstance(region, dict):
                problems.append(f"{where}: no region (startLine is required)")
                continue
            line = region.get("startLine")
            if not isinstance(line, int) or line < 1:
                problems.append(f"{where}: region.startLine {line!r} is not a line")
            column = region.get("startColumn")
            if column is not None and (not isinstance(column, int) or column < 1):
                problems.append(f"{where}: region.startColumn {column!r} is not a column")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="the repository: every file a result names must be in it")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failed = False
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        problems = []
        if len(gzip.compress(data)) > MAX_GZIPPED:
            problems.append("more than 10 MB gzipped")
        try:
            problems += check_log(json.loads(data), args.root)
        except json.JSONDecodeError as e:
            problems.append(f"not JSON: {e}")
        for p in problems:
            print(f"{path}: {p}")
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
