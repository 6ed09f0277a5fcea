#!/usr/bin/env bash
# The main job end to end on the graph shipped in examples/: simulate it as
# recorded, then ask "what if every kernel ran twice as fast?".
set -euo pipefail
cd "$(dirname "$0")/.."
input=examples/graphs/two-step-training.ddir.txt
echo "== baseline: dd-sim $input"
build/bin/dd-sim "$input"
echo
echo "== what if kernels were 2x faster: dd-opt -scale-tasks='factor=0.5 kind=kernel' $input | dd-sim"
build/bin/dd-opt -scale-tasks='factor=0.5 kind=kernel' "$input" | build/bin/dd-sim
