#!/usr/bin/env bash
# Benchmark of the built-in passes (not a timed test): imports a large
# SYNTHETIC Kineto trace (utils/gen-synthetic-kineto.py), then runs each pass
# alone on it RUNS times with dd-opt -time-passes and prints, per pass, the
# best and median wall time of the pass itself and its throughput in tasks a
# second (the target: at least 20 million). The passes are every one dd-opt
# registers that acts on one rank (utils/bench_pipelines.py); those that act
# on ranks are timed by utils/bench-scale.sh on a multi-rank job.
# Usage: utils/bench-passes.sh [STEPS] [RUNS]   (defaults: 4500, 5: about
# 1.2 million tasks).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DAYDREAM_BUILD_DIR:-build}/bin
steps=${1:-4500}
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 utils/gen-synthetic-kineto.py --steps "$steps" --layers 16 -o "$work/trace.json"
"$bin/dd-import" -q "$work/trace.json" -o "$work/trace.ddir"
rm "$work/trace.json"
python3 - "$work/trace.ddir" "$runs" "$bin/dd-opt" <<'PY'
import json, re, statistics, subprocess, sys
sys.path.insert(0, "utils")
from bench_pipelines import pipelines
ddir, runs, dd_opt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stats = json.loads(subprocess.run([dd_opt, "-passes=print<stats>{json=true}",
                                   ddir, "-disable-output"], check=True,
                                  capture_output=True, text=True).stdout)
tasks = stats["tasks"]
print(f"graph: {tasks} tasks, {stats['edges']} edges (synthetic)")
for p in pipelines(dd_opt)[0]:
    walls = []
    for _ in range(runs):
        err = subprocess.run([dd_opt, "-time-passes", f"-passes={p}", ddir,
                              "-disable-output"], capture_output=True, text=True).stderr
        # The timing rows only: a pass's warning may hold parentheses too.
        rows = [l for l in err.splitlines()
                if re.search(r"[0-9.]+ \(\s*[0-9.]+%\)\s+\S", l) and "Total" not in l]
        if not rows:
            walls = None
            print(f"{p}: failed: {err.strip().splitlines()[-1] if err.strip() else '?'}")
            break
        # Columns (user, system, user+system, wall) each "T (P%)"; LLVM leaves
        # out the ones that are all zero, but wall time is always the last.
        walls.append(float(re.findall(r"([0-9.]+) \(\s*[0-9.]+%\)", rows[0])[-1]))
    if walls:
        best, med = min(walls), statistics.median(walls)
        print(f"{p.split('{')[0]:24} best {best * 1e3:7.1f} ms  median {med * 1e3:7.1f} ms  "
              f"{tasks / best / 1e6:6.1f} M tasks/s (best), {tasks / med / 1e6:6.1f} (median)")
PY
