#!/usr/bin/env bash
# Benchmark of dd-trace's record path (not a timed test), on a SYNTHETIC
# recording: write-cupti-fixture repeats one traced iteration (23 CUPTI
# records: launches, copies, NVTX ranges, a stream wait, a synchronize, ...)
# ITERATIONS times with the writer libddtrace.so uses, then dd-import reads
# and lowers the file a few times. Prints the writer's records per second
# (the work libddtrace.so's buffer callback does in the traced process, plus
# building the records), and dd-import's records per second and MB/s, median
# and best over the runs.
# Usage: utils/bench-ddrec.sh [ITERATIONS] [RUNS]   (defaults: 40000, 5:
# about 0.9 million records).
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-40000}
runs=${2:-5}
bin=${DAYDREAM_BUILD_DIR:-build}/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
"$bin/write-cupti-fixture" "$work/run.ddrec" --iterations="$iterations"
end=$(date +%s.%N)
records=$((26 + 23 * (iterations - 1)))
bytes=$(stat -c %s "$work/run.ddrec")
python3 -c "print(f'writer: {$records} records, {$bytes / 1e6:.1f} MB in {$end - $start:.2f} s: {$records / ($end - $start) / 1e6:.2f} M records/s ({$bytes / $records:.0f} bytes a record)')"
for run in $(seq "$runs"); do
  s=$(date +%s.%N)
  "$bin/dd-import" -q "$work/run.ddrec" -o "$work/run.ddir"
  e=$(date +%s.%N)
  python3 -c "print($e - $s)" >>"$work/times"
done
python3 - "$work/times" "$records" "$bytes" <<'PY'
import statistics, sys
times = [float(line) for line in open(sys.argv[1])]
records, size = int(sys.argv[2]), int(sys.argv[3])
med, best = statistics.median(times), min(times)
print(f"dd-import over {len(times)} runs: median {med:.2f} s "
      f"({records / med / 1e6:.2f} M records/s, {size / med / 1e6:.0f} MB/s), "
      f"best {best:.2f} s ({records / best / 1e6:.2f} M records/s, {size / best / 1e6:.0f} MB/s)")
PY
