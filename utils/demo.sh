#!/usr/bin/env bash
# The main job end to end on the trace shipped in examples/traces (a
# SYNTHETIC PyTorch profiler trace made by utils/gen-synthetic-kineto.py, not
# a recording): import it, replay it to compare measured and simulated
# iteration times, then ask "what if this model trained with automatic mixed
# precision and fused elementwise kernels?".
set -euo pipefail
cd "$(dirname "$0")/.."
trace=examples/traces/synthetic-cnn.pt.trace.json.gz
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== dd-import $trace -o trace.ddir"
build/bin/dd-import "$trace" -o "$out/trace.ddir"
echo
echo "== replay as recorded: dd-sim trace.ddir"
build/bin/dd-sim "$out/trace.ddir"
echo
echo "== what if it used mixed precision and fused elementwise kernels: dd-opt -amp -fuse trace.ddir | dd-sim"
build/bin/dd-opt -amp -fuse "$out/trace.ddir" | build/bin/dd-sim
