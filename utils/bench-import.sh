#!/usr/bin/env bash
# Benchmark of dd-import (not a timed test): generates a large SYNTHETIC
# Kineto trace with utils/gen-synthetic-kineto.py, imports it a few times and
# prints the throughput of each run (uncompressed JSON over the whole import:
# load, read, lower and write), the size of the .ddir per task and the peak
# memory, then the median and best throughput over the runs (this machine's
# neighbours make single runs vary by a third).
# Usage: utils/bench-import.sh [STEPS] [RUNS]   (defaults: 1500, 10: about
# 160 MB of JSON and 400k tasks). DAYDREAM_BUILD_DIR picks the build folder,
# as for utils/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-1500}
runs=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 utils/gen-synthetic-kineto.py --steps "$steps" --layers 16 -o "$work/trace.json"
echo "input: $(stat -c %s "$work/trace.json") bytes of JSON ($steps steps)"
for run in $(seq "$runs"); do
  /usr/bin/time -f "peak %M KB" "${DAYDREAM_BUILD_DIR:-build}/bin/dd-import" "$work/trace.json" -o "$work/trace.ddir" 2>"$work/log"
  summary=$(grep -o 'kineto, [^;]*;[^)]*)' "$work/log")
  tasks=$(grep -o '[0-9]* tasks' "$work/log" | head -1 | cut -d' ' -f1)
  echo "run $run: $summary; $(grep -o 'peak .*' "$work/log")"
  grep -o '[0-9]* MB/s' <<<"$summary" | cut -d' ' -f1 >>"$work/rates"
done
python3 - "$work/rates" <<'PY'
import statistics, sys
rates = [float(line) for line in open(sys.argv[1])]
print(f"throughput over {len(rates)} runs: median {statistics.median(rates):.0f} MB/s, "
      f"best {max(rates):.0f} MB/s, worst {min(rates):.0f} MB/s")
PY
bytes=$(stat -c %s "$work/trace.ddir")
echo "ddir: $bytes bytes for $tasks tasks: $(python3 -c "print(f'{$bytes / $tasks:.1f}')") bytes a task"
