#!/usr/bin/env python3
"""Checks that every text graph under the given folders round-trips exactly.

Usage: check-round-trip.py WORKDIR DIR...

For each *.ddir.txt file: text -> binary -> text must reproduce the printed
text, and binary -> text -> binary must reproduce the binary bytes. Uses the
dd-opt on PATH. Prints one line per failure and a closing count.
"""
import filecmp
import os
import subprocess
import sys


def dd_opt(*args):
    subprocess.run(["dd-opt", *args], check=True)


def main():
    work, dirs = sys.argv[1], sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    inputs = sorted(
        os.path.join(root, name)
        for d in dirs
        for root, _, names in os.walk(d)
        for name in names
        if name.endswith(".ddir.txt"))
    failures = 0
    for i, path in enumerate(inputs):
        base = os.path.join(work, str(i))
        try:
            dd_opt(path, "-o", base + ".bin")             # text -> binary
            dd_opt("-S", base + ".bin", "-o", base + ".txt")  # binary -> text
            dd_opt(base + ".txt", "-o", base + ".bin2")   # text -> binary
            dd_opt("-S", base + ".bin2", "-o", base + ".txt2")
        except subprocess.CalledProcessError as e:
            print(f"FAIL {path}: {e}")
            failures += 1
            continue
        if not filecmp.cmp(base + ".bin", base + ".bin2", shallow=False):
            print(f"FAIL {path}: binary -> text -> binary changed the bytes")
            failures += 1
        elif not filecmp.cmp(base + ".txt", base + ".txt2", shallow=False):
            print(f"FAIL {path}: text -> binary -> text changed the text")
            failures += 1
    print(f"round-trip: {len(inputs)} inputs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
