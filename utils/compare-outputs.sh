#!/usr/bin/env bash
# Refactors keep outputs byte-identical: runs the same commands with two
# builds' tools (OLD and NEW folders of dd-import, dd-opt, dd-sim, dd-diff)
# on the shared traces, the recorded ones and the test inputs, and compares
# every output with cmp. Prints one line per difference and a summary;
# exits 1 if any output differs or a command failed with one build only.
#   utils/compare-outputs.sh OLD_BIN NEW_BIN [WORK]
# Traces: ../shared/traces (when present), test/Inputs/recorded and
# examples/traces. Keep OLD_BIN a copy (cp -r build/bin /tmp/bin-before)
# made before the change.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: utils/compare-outputs.sh OLD_BIN NEW_BIN [WORK]" >&2; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d /tmp/compare-outputs.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)

traces=()
shared=$repo/../shared/traces
if [ -d "$shared" ]; then
  while IFS= read -r f; do traces+=("$f"); done < <(
    find "$shared" -name '*.json.gz' -o -name '*.sqlite' | sort)
fi
while IFS= read -r f; do traces+=("$f"); done < <(
  find "$repo/test/Inputs/recorded" "$repo/examples/traces" \
    \( -name '*baseline.pt.trace.json.gz' -o -name 'base.trace.json.gz' -o -name '*.ddrec.gz' \
       -o -name '*.json.gz' -path '*examples*' \) 2>/dev/null | sort)

# What runs on each imported graph G: a name, then the command (bash, with
# $T the tool folder and $G the graph).
pipelines=(
  "sim|\$T/dd-sim \$G"
  "sim-json|\$T/dd-sim -report=json \$G"
  "printers|\$T/dd-opt -passes='print<critical-path>,print<utilization>,print<memory>,print<kernels>' \$G -disable-output"
  "amp-fuse|\$T/dd-opt -amp -fuse \$G | \$T/dd-sim -"
  "fused-optimizer|\$T/dd-opt -passes=fused-optimizer \$G -S -o -"
  "retarget|\$T/dd-opt -passes='retarget-gpu{to=h100}' \$G | \$T/dd-sim -report=json -"
  "scale|\$T/dd-opt -passes='scale-tasks{factor=0.5 kind=kernel}' \$G | \$T/dd-sim -"
  "diff|\$T/dd-opt -amp \$G -o \$D/amp.ddir && \$T/dd-diff \$G \$D/amp.ddir"
)

run_side() { # SIDE TOOLS: every command into $work/SIDE/
  local side=$1 T=$2 i=0 f name G D
  rm -rf "${work:?}/$side"
  mkdir -p "$work/$side"
  (cd "$work/$side" && "$T/dd-opt" -print-passes >print-passes.out 2>&1; echo "rc=$?" >>print-passes.out)
  for tool in dd-import dd-opt dd-sim dd-diff; do
    (cd "$work/$side" && "$T/$tool" --help >"help-$tool.out" 2>&1)
  done
  for f in "${traces[@]}"; do
    i=$((i + 1))
    D=$work/$side/t$i
    mkdir -p "$D"
    G=$D/g.ddir
    # The import's timing line differs from run to run: keep its errors only.
    (cd "$D" && "$T/dd-import" -q "$f" -o "$G" >import.out 2>&1; echo "rc=$?" >>import.out)
    [ -f "$G" ] || continue
    local p
    for p in "${pipelines[@]}"; do
      name=${p%%|*}
      (cd "$D" && T=$T G=$G D=$D bash -c "${p#*|}" >"$name.out" 2>&1; echo "rc=$?" >>"$name.out")
    done
    rm -f "$D/amp.ddir"
  done
  for f in "$repo"/test/Inputs/*.ddir.txt; do
    D=$work/$side/in-$(basename "$f" .ddir.txt)
    mkdir -p "$D"
    (cd "$D" && "$T/dd-sim" "$f" >sim.out 2>&1; echo "rc=$?" >>sim.out)
    (cd "$D" && "$T/dd-opt" -amp -fuse "$f" -S -o - >amp-fuse.out 2>&1; echo "rc=$?" >>amp-fuse.out)
  done
}

run_side old "$old"
run_side new "$new"
# Paths name the side's folder: make them the same before comparing.
differ=0 total=0
while IFS= read -r rel; do
  total=$((total + 1))
  if ! cmp -s <(sed "s#$work/old#W#g" "$work/old/$rel") <(sed "s#$work/new#W#g" "$work/new/$rel" 2>/dev/null); then
    echo "differs: $rel"
    differ=$((differ + 1))
  fi
done < <(cd "$work/old" && find . -type f | sort)
echo "compare-outputs: $total outputs of ${#traces[@]} traces, $differ differ ($work)"
[ "$differ" -eq 0 ]
