#!/usr/bin/env python3
"""Hold a dd-seqpoint -report=json to numeric targets, for lit tests that
must fail when the figures get worse, not only when the tool stops running.

    check_targets.py REPORT.json --max-error 1 --max-fraction 2

Prints the figures it checked, then exits 1 naming every target missed.
Targets are in percent: |error| of the projected total against the
measured one, the fraction of the run's iterations that are SeqPoints, and
with -other-run the |error| of the other run's total and of the speedup.
"""

import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--max-error", type=float)
    p.add_argument("--max-fraction", type=float)
    p.add_argument("--max-other-error", type=float)
    p.add_argument("--max-speedup-error", type=float)
    p.add_argument("--beat-first-n", action="store_true",
                   help="SeqPoint's |error| must be below first-N's")
    args = p.parse_args()
    with open(args.report) as f:
        r = json.load(f)

    figures = {"seqpoints": len(r["seqpoints"]),
               "fraction": r["fraction"] * 100,
               "error": None if r["error"] is None else abs(r["error"]) * 100}
    if r.get("comparison"):
        figures["first_n_error"] = abs(r["comparison"]["first_n_error"]) * 100
        figures["random_n_median"] = (
            r["comparison"]["random_n"]["median_abs_error"] * 100)
    other = r.get("other_run")
    if other:
        figures["other_error"] = (None if other["error"] is None
                                  else abs(other["error"]) * 100)
        figures["speedup_error"] = (None if other["speedup_error"] is None
                                    else abs(other["speedup_error"]) * 100)
    print(" ".join("%s=%s" % (k, "null" if v is None else
                              (v if isinstance(v, int) else "%.3f" % v))
                   for k, v in figures.items()))

    missed = []

    def at_most(name, limit):
        if limit is None:
            return
        value = figures.get(name)
        if value is None or value > limit:
            missed.append("%s %s > %g" % (name, value, limit))

    at_most("error", args.max_error)
    at_most("fraction", args.max_fraction)
    at_most("other_error", args.max_other_error)
    at_most("speedup_error", args.max_speedup_error)
    if args.beat_first_n and not (
            figures["error"] is not None and "first_n_error" in figures and
            figures["error"] < figures["first_n_error"]):
        missed.append("SeqPoint does not beat first-N")
    for m in missed:
        print("target missed: " + m, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
