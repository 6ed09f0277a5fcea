#!/usr/bin/env bash
# Benchmark of dd-import (not a timed test): generates a large SYNTHETIC
# Kineto trace with utils/gen-synthetic-kineto.py, imports it a few times and
# prints the throughput of each run (uncompressed JSON over the whole import:
# load, read, lower and write), the size of the .ddir per task and the peak
# memory, then the median and best throughput over the runs (this machine's
# neighbours make single runs vary by a third). With "gz" as third argument,
# the same trace gzipped (gzip -6) is imported after each plain run, and the
# medians of both and their ratio close the output.
# Usage: utils/bench-import.sh [STEPS] [RUNS] [gz]   (defaults: 1500, 10:
# about 160 MB of JSON and 400k tasks). DAYDREAM_BUILD_DIR picks the build
# folder, as for utils/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-1500}
runs=${2:-10}
gz=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 utils/gen-synthetic-kineto.py --steps "$steps" --layers 16 -o "$work/trace.json"
echo "input: $(stat -c %s "$work/trace.json") bytes of JSON ($steps steps)"
inputs=("$work/trace.json")
if [ "$gz" = gz ]; then
  gzip -6 -k "$work/trace.json"
  echo "gzipped: $(stat -c %s "$work/trace.json.gz") bytes"
  inputs+=("$work/trace.json.gz")
fi
for run in $(seq "$runs"); do
  for input in "${inputs[@]}"; do
    kind=${input##*.}
    /usr/bin/time -f "peak %M KB" "${DAYDREAM_BUILD_DIR:-build}/bin/dd-import" "$input" -o "$work/trace.ddir" 2>"$work/log"
    summary=$(grep -o 'kineto, [^;]*;[^)]*)' "$work/log")
    tasks=$(grep -o '[0-9]* tasks' "$work/log" | head -1 | cut -d' ' -f1)
    echo "run $run ($kind): $summary; $(grep -o 'peak .*' "$work/log")"
    grep -o '[0-9]* MB/s' <<<"$summary" | cut -d' ' -f1 >>"$work/rates.$kind"
  done
done
python3 - "$work" <<'PY'
import os, statistics, sys
medians = {}
for kind in ("json", "gz"):
    path = os.path.join(sys.argv[1], "rates." + kind)
    if not os.path.exists(path):
        continue
    rates = [float(line) for line in open(path)]
    medians[kind] = statistics.median(rates)
    print(f"throughput ({kind}) over {len(rates)} runs: median {medians[kind]:.0f} MB/s, "
          f"best {max(rates):.0f} MB/s, worst {min(rates):.0f} MB/s")
if len(medians) == 2:
    print(f"gzipped import takes {medians['json'] / medians['gz']:.2f}x the plain one (medians)")
PY
bytes=$(stat -c %s "$work/trace.ddir")
echo "ddir: $bytes bytes for $tasks tasks: $(python3 -c "print(f'{$bytes / $tasks:.1f}')") bytes a task"
