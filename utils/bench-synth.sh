#!/usr/bin/env bash
# Benchmark of dd-synth (not a timed test): the time and peak memory of
# making a .ddir of 10^4, 10^6 and 10^7 tasks (a one-rank transformer), of
# the same 10^6-task job written as Kineto JSON and imported by dd-import
# (for comparison), and issue 9's jobs: a 1,024-rank transformer of 10,000
# tasks a rank, made by dd-synth and simulated by dd-sim, and one of 16,384
# identical ranks stored as copies. Each figure is the
# best of RUNS runs (this machine's neighbours make single runs vary by a
# third); peak memory is the maximum resident set of /usr/bin/time.
# Usage: utils/bench-synth.sh [RUNS]   (default 3). DAYDREAM_BUILD_DIR picks
# the build folder, as for utils/build.sh. Needs about 4 GB of memory and
# 2 GB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=${DAYDREAM_BUILD_DIR:-build}/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure LABEL COMMAND...: runs COMMAND RUNS times; prints the best wall
# time and the peak memory of that run, and COMMAND's last stderr line.
measure() {
  local label=$1 best="" line=""
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "@@ %e %M" "$@" >/dev/null 2>"$work/log"
    read -r _ secs kb < <(grep '^@@' "$work/log")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(not $secs < $best)"; then
      best=$secs
      line="$(printf '%-34s %7.2f s %8.0f MB' "$label" "$secs" "$((kb / 1024))")"
      { grep -v '^@@' "$work/log" || true; } | tail -1 >"$work/last"
    fi
  done
  echo "$line"
  if [ -s "$work/last" ]; then sed 's/^/    /' "$work/last"; fi
}

for tasks in 10000 1000000 10000000; do
  measure "dd-synth -tasks=$tasks .ddir" \
    "$bin/dd-synth" -tasks="$tasks" -o "$work/t.ddir"
  echo "    $(( $(stat -c %s "$work/t.ddir") / tasks )) bytes of .ddir a task"
done
measure "dd-synth -tasks=1000000 .json" \
  "$bin/dd-synth" -tasks=1000000 -o "$work/t.json"
echo "    $(( $(stat -c %s "$work/t.json") / 1000000 )) bytes of JSON a task"
measure "dd-import of that .json" \
  "$bin/dd-import" "$work/t.json" -o "$work/imported.ddir"
rm -f "$work/t.json" "$work/t.ddir" "$work/imported.ddir"

measure "dd-synth 1024 ranks x 10^4 tasks" \
  "$bin/dd-synth" -family=transformer -ranks=1024 -tasks=10240000 \
  -o "$work/job.ddir"
measure "dd-sim of that job" \
  "$bin/dd-sim" "$work/job.ddir" -headline=false
"$bin/dd-sim" "$work/job.ddir" -headline=false | sed -n "1s/^/    /p"
measure "dd-synth 1024 identical ranks" \
  "$bin/dd-synth" -family=transformer -ranks=1024 -tasks=10240000 \
  -identical-ranks -o "$work/job.ddir"
measure "dd-sim of that job (symmetry)" "$bin/dd-sim" "$work/job.ddir"
measure "dd-sim -symmetry=false of it" \
  "$bin/dd-sim" "$work/job.ddir" -symmetry=false

# Beyond this machine's memory: 16,384 identical ranks of about 10^5 tasks
# (1.65 x 10^9 tasks; whole, at dd-sim's ~72 bytes a task, some 120 GB).
# dd-synth stores ranks 1 to 16,383 as copies of rank 0 and dd-sim
# simulates rank 0 only (docs/Simulation.md, "Symmetry").
measure "dd-synth 16384 identical ranks" \
  "$bin/dd-synth" -family=transformer -ranks=16384 -tasks=1638400000 \
  -identical-ranks -o "$work/big.ddir"
echo "    $(stat -c %s "$work/big.ddir") bytes of .ddir"
measure "dd-sim of that job" "$bin/dd-sim" "$work/big.ddir"
measure "dd-sim -headline=false of it" \
  "$bin/dd-sim" "$work/big.ddir" -headline=false
"$bin/dd-sim" "$work/big.ddir" -headline=false | sed -n "1,2s/^/    /p"
