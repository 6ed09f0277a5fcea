#!/usr/bin/env bash
# Records dd-trace's validation set on one GPU (issue 5), in one go:
#   (a) builds libddtrace.so with the C++ compiler alone (no LLVM needed);
#   (b) trains ResNet-18 untraced (the reference iteration times);
#   (c) trains it under dd-trace (CUDA_INJECTION64_PATH), with ddtrace_nvtx
#       ranges and a window of iterations, keeping the .ddrec records;
#   (d) trains it under torch.profiler for the same iterations;
#   (e) records the optimization pairs the passes need as ground truth:
#       baseline against --amp, --fused-adam and --channels-last;
#   (f) where dd-import and dd-sim are available, imports both recordings,
#       compares kernels per iteration (within 1%), replays them (within 2%),
#       and reports the tracer's overhead (target: at most 5%). Elsewhere it
#       leaves OUTDIR ready for `validate.sh --check OUTDIR` on a machine
#       with the toolchain.
# Each stage has a time limit inside a total budget (default 450 s, under
# 8 minutes on one H200) and prints one progress line; a failing stage is
# logged in OUTDIR/logs/ and the next one runs. OUTDIR ends with summary.md
# and summary.json; docs/TraceRecording.md explains them.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: utils/gpu/validate.sh [options] OUTDIR              record (and check, where the toolchain is)
       utils/gpu/validate.sh --check [--pack FILE] OUTDIR  check a recording with dd-import, dd-sim
       utils/gpu/validate.sh --pack-only FILE OUTDIR       pack OUTDIR into FILE
options:
  --dry-run          print what would run, run nothing
  --budget SECONDS   total time for recording (default 450)
  --steps N          iterations per training run (default 20)
  --window A:B       iterations dd-trace and torch.profiler keep (default 5:14)
  --batch-size N     (default 64)
  --pack FILE        at the end, pack OUTDIR (less work/) into FILE, a .tar.gz
                     split into 15 MiB FILE.partN pieces when larger
  --no-toolchain     do not look for or build dd-import and dd-sim
environment: PYTHON (default /opt/torch/.venv/bin/python3, else python3),
  CXX (default g++), CUDA_HOME, DDTRACE_LIB (a libddtrace.so to use instead
  of building one), DD_TOOLS (the folder of dd-import, dd-opt, dd-sim and,
  if built, dd-trace; default: build/bin, $DAYDREAM_BUILD_DIR/bin, PATH)
EOF
}

mode=record dry=0 budget=450 steps=20 window=5:14 batch=64 pack_file="" toolchain=1
outdir=""
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1 ;;
    --check) mode=check ;;
    --pack-only) mode=pack; pack_file=${2:?--pack-only needs a file}; shift ;;
    --pack) pack_file=${2:?--pack needs a file}; shift ;;
    --budget) budget=${2:?}; shift ;;
    --steps) steps=${2:?}; shift ;;
    --window) window=${2:?}; shift ;;
    --batch-size) batch=${2:?}; shift ;;
    --no-toolchain) toolchain=0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "validate.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$outdir" ] || { echo "validate.sh: one OUTDIR only" >&2; exit 2; }
       outdir=$1 ;;
  esac
  shift
done
[ -n "$outdir" ] || { usage >&2; exit 2; }
for n in "$budget" "$steps" "$batch"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "validate.sh: '$n' is not a number" >&2; exit 2; }
done
if ! [[ $window =~ ^([0-9]+):([0-9]+)$ ]] || ((BASH_REMATCH[1] > BASH_REMATCH[2])) ||
   ((BASH_REMATCH[2] >= steps)); then
  echo "validate.sh: --window $window: need FIRST:LAST with FIRST <= LAST < --steps ($steps)" >&2
  exit 2
fi

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
case $outdir in /*) ;; *) outdir=$PWD/$outdir ;; esac
work=$outdir/work
start=$SECONDS
reserve=25   # seconds kept for the summary and the pack
min_stage=30 # a stage is not started with less than this left
export PYTHONUNBUFFERED=1
# No __pycache__ folders in the checkout from the helpers this imports.
export PYTHONDONTWRITEBYTECODE=1

log() { printf '[validate %3ds] %s\n' "$((SECONDS - start))" "$*"; }
die() { log "error: $*"; exit 1; }

# Records a stage's outcome for the summary (stages.tsv).
record() {
  ((dry)) || printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$outdir/stages.tsv"
}

# Keeps a runaway log small enough to travel: its first and last 500 kB.
trim_log() {
  local f=$1
  if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 1048576 ]; then
    { head -c 500000 "$f"; printf '\n[... trimmed ...]\n'; tail -c 500000 "$f"; } >"$f.tmp"
    mv "$f.tmp" "$f"
  fi
}

# stage NAME CAP CMD...: runs CMD with its output in logs/NAME.log, for at
# most CAP seconds and never into the reserve. Returns CMD's status (1 when
# skipped for lack of time); last_status says ok, failed, timeout or skipped.
last_status=""
stage() {
  local name=$1 cap=$2
  shift 2
  if ((dry)); then
    printf '+ [%s, %ss] %s\n' "$name" "$cap" "$(printf '%q ' "$@")"
    last_status=ok
    return 0
  fi
  local limit=$((budget - (SECONDS - start) - reserve))
  ((limit > cap)) && limit=$cap
  if ((limit < min_stage)); then
    log "$name: skipped, out of time"
    record "$name" skipped 0 "out of time"
    last_status=skipped
    return 1
  fi
  log "$name: running (limit ${limit}s)"
  local t0=$SECONDS rc=0
  timeout -k 10 "$limit" "$@" >"$outdir/logs/$name.log" 2>&1 || rc=$?
  local dt=$((SECONDS - t0)) status=ok
  trim_log "$outdir/logs/$name.log"
  if ((rc == 0)); then
    log "$name: ok in ${dt}s$(tail -n 1 "$outdir/logs/$name.log" | sed -n 's/^train_resnet: /: /p')"
  else
    status=failed
    ((rc == 124 || rc == 137)) && status=timeout
    log "$name: $status (exit $rc) after ${dt}s; logs/$name.log ends:"
    tail -n 15 "$outdir/logs/$name.log" | sed 's/^/    /'
  fi
  record "$name" "$status" "$dt" "exit $rc"
  last_status=$status
  return $rc
}

# skip NAME WHY: a stage that cannot run.
skip() {
  log "$1: skipped, $2"
  record "$1" skipped 0 "$2"
}

pick_python() {
  if [ -n "${PYTHON:-}" ]; then
    echo "$PYTHON"
  elif [ -x /opt/torch/.venv/bin/python3 ]; then
    echo /opt/torch/.venv/bin/python3
  else
    echo python3
  fi
}

# The path of tool $1: in DD_TOOLS alone when that is set, else in a build
# folder of this checkout or on PATH; nothing when there is none.
find_tool() {
  local d
  if [ -n "${DD_TOOLS:-}" ]; then
    [ ! -x "$DD_TOOLS/$1" ] || echo "$DD_TOOLS/$1"
    return 0
  fi
  for d in "${DAYDREAM_BUILD_DIR:+$DAYDREAM_BUILD_DIR/bin}" "$repo/build/bin" "$work/cmake/bin"; do
    if [ -n "$d" ] && [ -x "$d/$1" ]; then
      echo "$d/$1"
      return 0
    fi
  done
  command -v "$1" || true
}

pack() {
  local file=$1 dir=$2 parent base size parts
  case $file in /*) ;; *) file=$PWD/$file ;; esac
  parent=$(dirname "$dir")
  base=$(basename "$dir")
  if ((dry)); then
    echo "+ tar -C $parent --exclude=$base/work -czf $file $base"
    return 0
  fi
  [ -d "$dir" ] || die "no folder $dir to pack"
  rm -f "$file" "$file".part*
  tar -C "$parent" --exclude="$base/work" -czf "$file" "$base"
  size=$(stat -c %s "$file")
  if ((size > 15 * 1024 * 1024)); then
    split -b 15m -d -a 1 "$file" "$file.part"
    rm -f "$file"
    parts=$(find "$(dirname "$file")" -maxdepth 1 -name "$(basename "$file").part*" | wc -l)
    log "packed $dir into $parts pieces of $file.partN ($size bytes): join them with"
    log "  cat $(basename "$file").part* > $(basename "$file") && tar xzf $(basename "$file")"
    ((parts <= 7)) || log "warning: more than 7 pieces; keep OUTDIR smaller"
  else
    log "packed $dir into $file ($size bytes): unpack with tar xzf $(basename "$file")"
  fi
}

check_with_toolchain() {
  local py=$1 tools_dir=$2
  if stage check 300 "$py" utils/gpu/validation.py check "$outdir" --tools "$tools_dir" &&
    ((!dry)); then
    sed -n 's/^check: /  /p' "$outdir/logs/check.log"
  fi
}

summarize() {
  local py=$1 rc=0
  if ((dry)); then
    echo "+ $py utils/gpu/validation.py summary $outdir"
    return 0
  fi
  "$py" utils/gpu/validation.py summary "$outdir" || rc=$?
  return $rc
}

# --- --pack-only and --check -------------------------------------------------
if [ "$mode" = pack ]; then
  pack "$pack_file" "$outdir"
  exit 0
fi
if [ "$mode" = check ]; then
  py=${PYTHON:-python3}
  [ -f "$outdir/manifest.json" ] || ((dry)) || die "$outdir holds no recording (no manifest.json)"
  ((dry)) || mkdir -p "$outdir/logs" "$work"
  dd_import=$(find_tool dd-import)
  [ -n "$dd_import" ] || die "dd-import not found: build it (utils/build.sh) or set DD_TOOLS"
  log "checking $outdir with the tools in $(dirname "$dd_import")"
  rc=0
  check_with_toolchain "$py" "$(dirname "$dd_import")" || rc=1
  summarize "$py" || rc=1
  [ -z "$pack_file" ] || pack "$pack_file" "$outdir"
  exit $rc
fi

# --- recording -----------------------------------------------------------------
py=$(pick_python)
if ((!dry)); then
  if [ -d "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
    die "$outdir is not empty: give a new folder"
  fi
  mkdir -p "$outdir"/{logs,times,traces,ddtrace} "$work"
fi
log "recording into $outdir (budget ${budget}s; $steps iterations, window $window, batch $batch)"
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null) || commit=unknown
dirty=$(git -C "$repo" status --porcelain 2>/dev/null | wc -l) || dirty=unknown
# The compiler: CXX, else the first of g++, c++, clang++ that exists.
cxx=${CXX:-}
if [ -z "$cxx" ]; then
  cxx=g++
  for c in g++ c++ clang++; do
    if command -v "$c" >/dev/null; then
      cxx=$c
      break
    fi
  done
fi
train=("$py" utils/gpu/train_resnet.py --steps "$steps" --batch-size "$batch" --window "$window")

# Where PyTorch's own libcupti is: dd-trace must load that same file.
cupti="" cupti_inc="" cuda_inc="" device=""
if ! stage probe 120 "$py" utils/gpu/validation.py probe "$outdir"; then
  die "the probe failed (is $py the Python with PyTorch? set PYTHON)"
elif ((dry)); then
  cupti="<pytorch-libcupti>" cupti_inc="<cupti-include>" cuda_inc="<cuda-include>"
  device="<GPU>"
else
  while IFS='=' read -r key value; do
    case $key in
      CUPTI_LIBRARY) cupti=$value ;;
      CUPTI_INCLUDE) cupti_inc=$value ;;
      CUDA_INCLUDE) cuda_inc=$value ;;
      DEVICE) device=$value ;;
    esac
  done <"$outdir/logs/probe.log"
  log "device: ${device:-none}; libcupti: ${cupti:-not found}"
fi
if [ -z "$device" ]; then
  sed 's/^/    /' "$outdir/logs/probe.log"
  die "PyTorch sees no CUDA device"
fi
((dry)) || "$py" utils/gpu/validation.py manifest "$outdir" "started=$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "commit=$commit" "dirty_files=$dirty" "steps=$steps" "window=$window" "batch_size=$batch" \
  "budget_s=$budget" "host=${HOSTNAME:-}" "cxx=$("$cxx" --version 2>/dev/null | head -n 1)" ||
  log "warning: could not add to manifest.json"

# (a) libddtrace.so, built the way CMake would but by the compiler alone.
lib=""
if [ -n "${DDTRACE_LIB:-}" ]; then
  lib=$DDTRACE_LIB
  [ -f "$lib" ] || ((dry)) || die "DDTRACE_LIB=$lib does not exist"
  skip build-libddtrace "using DDTRACE_LIB=$lib"
elif [ -z "$cupti_inc" ]; then
  skip build-libddtrace "no CUPTI headers found (set CUDA_HOME)"
else
  srcs=(lib/Trace/CuptiRecordWriter.cpp lib/Trace/Injection/*.cpp)
  ldflags=(-ldl -lpthread)
  [ ! -f lib/Trace/Injection/ddtrace.exports ] ||
    ldflags=("-Wl,--version-script=lib/Trace/Injection/ddtrace.exports" "-Wl,--no-undefined"
             "${ldflags[@]}")
  incs=(-I include -I "$cupti_inc")
  [ -z "$cuda_inc" ] || [ "$cuda_inc" = "$cupti_inc" ] || incs+=(-I "$cuda_inc")
  if [ ! -f "${srcs[1]}" ]; then
    skip build-libddtrace "no lib/Trace/Injection/*.cpp in this checkout"
  elif stage build-libddtrace 150 "$cxx" -std=c++17 -O2 -shared -fPIC -fvisibility=hidden \
      "${incs[@]}" "${srcs[@]}" "${ldflags[@]}" -o "$work/libddtrace.so"; then
    lib=$work/libddtrace.so
    ((dry)) || nm -D --defined-only "$lib" | grep -q ' InitializeInjection$' ||
      log "warning: $lib does not export InitializeInjection"
  fi
fi

# What dd-trace's launcher sets for the traced process (docs/TraceRecording.md);
# DDTRACE_OUTPUT_DIR follows.
traced=(env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$cupti"
        DDTRACE_CUPTI_LIBRARY="$cupti")
can_trace=0
if [ -n "$lib" ] && [ -n "$cupti" ]; then
  can_trace=1
  ((dry)) || mkdir -p "$work/smoke" "$work/ddrec"
  # A first CUDA program under the library, to tell a broken library from a
  # broken training run.
  stage ddtrace-smoke 90 "${traced[@]}" DDTRACE_OUTPUT_DIR="$work/smoke" "$py" -c \
    "import torch; x = torch.ones(1 << 20, device='cuda'); torch.cuda.synchronize(); print(float((2 * x).sum()))" &&
    ((!dry)) && for f in "$work"/smoke/*.ddrec; do
      [ -f "$f" ] || { log "warning: the smoke test wrote no .ddrec"; break; }
      "$py" -c 'import sys; sys.path.insert(0, "utils/gpu"); import validation as v; print(v.ddrec_stats(sys.argv[1]))' "$f" |
        sed 's/^/    /' || true
    done
fi

# (b) and (c): untraced, traced, untraced again, so that drift shows.
stage ref-nvtx 120 "${train[@]}" --nvtx --times "$outdir/times/ref-nvtx.json" || true
if ((can_trace)); then
  stage ddtrace 150 "${traced[@]}" DDTRACE_OUTPUT_DIR="$work/ddrec" DDTRACE_WINDOW="$window" \
    "${train[@]}" --nvtx --times "$outdir/times/ddtrace.json" || true
  if ((dry)); then
    echo "+ gzip -c $work/ddrec/PID.ddrec > $outdir/ddtrace/PID.ddrec.gz"
  elif [ "$last_status" != skipped ]; then
    # Also after a failure: the library writes what it has on a signal.
    for f in "$work"/ddrec/*.ddrec; do
      [ ! -f "$f" ] || gzip -c "$f" >"$outdir/ddtrace/$(basename "$f").gz" ||
        log "warning: could not compress $f"
    done
    if "$py" utils/gpu/validation.py ddrec "$outdir" >"$outdir/logs/ddrec.log" 2>&1; then
      sed 's/^/  records: /' "$outdir/logs/ddrec.log"
    else
      log "the .ddrec files look wrong:"
      sed 's/^/    /' "$outdir/logs/ddrec.log"
    fi
  fi
else
  skip ddtrace "no libddtrace.so or no libcupti"
fi
stage ref-nvtx-2 120 "${train[@]}" --nvtx --times "$outdir/times/ref-nvtx-2.json" || true

# (d) and (e): torch.profiler, baseline and the optimization pairs.
for run in base amp fused-adam channels-last; do
  flag=()
  [ "$run" = base ] || flag=("--$run")
  stage "$run" 150 "${train[@]}" "${flag[@]}" --profile "$outdir/traces/$run.trace.json.gz" \
    --times "$outdir/times/$run.json" || true
done

# The NVTX helper on real PyTorch, its ranges recorded in Python.
stage nvtx-selftest 90 "$py" utils/gpu/train_resnet.py --steps 3 --window 0:2 \
  --batch-size "$batch" --nvtx-record "$outdir/nvtx-selftest.json" || true
# What the ranges themselves cost.
stage ref-plain 120 "${train[@]}" --times "$outdir/times/ref-plain.json" || true

# (f) the toolchain: one already built, or a CMake build if this machine
# has what it needs (LLVM 14, flatbuffers, simdjson); rarely on GPU hosts.
tools_dir=""
if ((toolchain)); then
  dd_import=$(find_tool dd-import)
  if [ -z "$dd_import" ] && [ -z "${DD_TOOLS:-}" ] && command -v cmake >/dev/null; then
    gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    if stage cmake-configure 60 cmake -S . -B "$work/cmake" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release; then
      stage cmake-build 300 cmake --build "$work/cmake" --target dd-import dd-opt dd-sim -j "$(nproc)" ||
        true
      dd_import=$(find_tool dd-import)
    elif ((!dry)); then
      log "no toolchain can be built here (logs/cmake-configure.log says why): expected on GPU hosts"
    fi
  fi
  if [ -n "$dd_import" ]; then
    tools_dir=$(dirname "$dd_import")
    dd_trace=$(find_tool dd-trace)
    if ((can_trace)) && [ -n "$dd_trace" ]; then
      stage ddtrace-launcher 150 "$dd_trace" -o "$outdir/ddtrace-launcher.ddir" -window="$window" \
        -cupti="$cupti" -injection="$lib" -keep-records="$work/launcher-records" -- \
        "${train[@]}" --nvtx --times "$outdir/times/launcher.json" || true
    fi
    check_with_toolchain "$py" "$tools_dir" || true
  else
    log "dd-import and dd-sim are not available here: the kernel-count and replay checks wait for"
    log "  utils/gpu/validate.sh --check $outdir   (on a machine with the toolchain built)"
  fi
fi

log "summary:"
rc=0
summarize "$py" || rc=1
# A toolchain that cannot be built here is no failure of the recording.
grep -v '^cmake-' "$outdir/stages.tsv" 2>/dev/null | grep -q $'\t\(failed\|timeout\)\t' && rc=1
[ -z "$pack_file" ] || pack "$pack_file" "$outdir"
log "done in $((SECONDS - start))s"
exit $rc
