#!/usr/bin/env python3
"""Merges suite recordings made by several run.py calls (a lease's budget
often needs two) into one folder that report.py reads.

    utils/suite/merge.py [--only WORKLOADS] OUT DIR [DIR ...]

Each (workload, variant) keeps the entry of the last DIR that has it, except
that a run that was skipped never replaces one that ran. The files an entry
names (trace, times, log, lengths CSV) are copied with it; the manifest
keeps every DIR's command and creation time. --only keeps the runs of
the comma-separated workloads alone (a subset small enough to commit). Runs come out in the first
folder's order, then new ones in the order they appear.
"""
import argparse
import json
import os
import shutil
import sys

FILE_KEYS = ("trace", "times", "log", "lengths_csv")


def load(folder):
    path = os.path.join(folder, "manifest.json")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"merge.py: error: {path}: {e}")
    if m.get("suite") != 1 or not isinstance(m.get("runs"), list):
        sys.exit(f"merge.py: error: {path}: not a suite manifest")
    return m


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated workloads to keep (default all)")
    ap.add_argument("out")
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    args = ap.parse_args(argv)
    out, folders = args.out, args.dirs
    only = set(args.only.split(",")) if args.only else None
    if os.path.exists(os.path.join(out, "manifest.json")):
        sys.exit(f"merge.py: error: {out} already holds a manifest.json")
    manifests = [load(d) for d in folders]
    chosen = {}  # (workload, variant) -> (folder, entry), in first-seen order
    for folder, m in zip(folders, manifests):
        for entry in m["runs"]:
            if only is not None and entry["workload"] not in only:
                continue
            key = (entry["workload"], entry["variant"])
            if key in chosen and entry["status"] == "skipped":
                continue
            chosen[key] = (folder, entry)
    runs = []
    for folder, entry in chosen.values():
        for k in FILE_KEYS:
            if entry.get(k):
                dst = os.path.join(out, entry[k])
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(os.path.join(folder, entry[k]), dst)
        runs.append(entry)
    first = manifests[0]
    merged = {k: first[k] for k in ("suite", "device", "size", "steps") if k in first}
    merged["created"] = ", ".join(m.get("created", "?") for m in manifests)
    merged["command"] = first.get("command")
    merged["commands"] = [m.get("command") for m in manifests]
    merged["runs"] = runs
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(merged, f, indent=1)
    print(f"merge.py: {len(runs)} runs from {len(folders)} folders into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
