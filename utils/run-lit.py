#!/usr/bin/env python3
"""Runs lit over the build's test tree and ends with one summary line.

Usage: run-lit.py LIT_PY [lit options...] TEST_DIR...

lit's own summary is kept; the last line is "N passed, N failed, N skipped"
so that any CI that reads closing lines can count the tests. Exits non-zero
if any test failed or none ran.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    lit_py, args = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results.json")
        rc = subprocess.call([sys.executable, lit_py, "-sv", "-o", results] + args)
        try:
            with open(results) as f:
                tests = json.load(f)["tests"]
        except (OSError, ValueError, KeyError):
            print("0 passed, 1 failed (lit wrote no results)")
            return 1
    codes = [t["code"] for t in tests]
    passed = sum(c in ("PASS", "XFAIL") for c in codes)
    skipped = sum(c in ("UNSUPPORTED", "SKIPPED", "EXCLUDED") for c in codes)
    failed = len(codes) - passed - skipped
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed or passed == 0:
        return rc or 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
