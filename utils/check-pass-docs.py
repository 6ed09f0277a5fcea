#!/usr/bin/env python3
"""Checks every pass's page in docs/passes against the pass registry.

Usage: check-pass-docs.py DOCS_PASSES_DIR < (dd-opt -print-passes output)

For each pass dd-opt lists, its page (print<x> -> print-x.md) must exist,
name the pass in its title, and mention every option the pass declares as
`KEY=` somewhere (the synopsis or the options list), so that an option added
to a pass without a word in its page fails the suite. Prints one line per
problem and exits 1 if there is any; pages of no pass are problems too.
"""
import os
import re
import sys


def read_registry(lines):
    """(pass name, [option keys]) in -print-passes order."""
    passes = []
    for line in lines:
        m = re.match(r"^  (\S+)( \(-\S+\))?$", line)
        if m:
            passes.append((m.group(1), []))
            continue
        m = re.match(r"^      ([a-z0-9-]+)=", line)
        if m and passes:
            passes[-1][1].append(m.group(1))
    return passes


def page_name(name):
    m = re.match(r"^print<(.+)>$", name)
    return ("print-" + m.group(1) if m else name) + ".md"


def main():
    docs = sys.argv[1]
    passes = read_registry(sys.stdin.read().splitlines())
    if not passes:
        print("no passes read from dd-opt -print-passes")
        return 1
    problems = []
    pages = set()
    for name, keys in passes:
        page = page_name(name)
        pages.add(page)
        path = os.path.join(docs, page)
        if not os.path.exists(path):
            problems.append(f"{name}: no page docs/passes/{page}")
            continue
        text = open(path, encoding="utf-8").read()
        if not text.startswith(f"# {name}\n"):
            problems.append(f"{page}: does not start with '# {name}'")
        for key in keys:
            if not re.search(r"(?<![a-z0-9-])" + re.escape(key) + "=", text):
                problems.append(f"{page}: option {key}= of {name} is not mentioned")
    for page in sorted(os.listdir(docs)):
        if page.endswith(".md") and page not in pages:
            problems.append(f"{page}: no pass of that name")
    for p in problems:
        print(p)
    print(f"{len(passes)} passes, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
