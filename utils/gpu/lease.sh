#!/usr/bin/env bash
# Everything one GPU lease should record, in one command inside a time
# budget, packed so that it comes back from the device machine:
#   1. the machine: nvidia-smi, driver, Python and package versions;
#   2. the suite's pairs (utils/suite/run.py): every workload with and
#      without each optimization, the ground truth of the passes' accuracy
#      table; no run starts after --suite-seconds;
#   3. dd-trace's validation (utils/gpu/validate.sh) in the time left;
#   4. both folders in OUT as lease.tar.xz, split into 15 MiB pieces
#      (lease.tar.xz.partN) when larger. The traces go into the archive
#      uncompressed, since xz over the whole set is about 1.6 times smaller
#      than the profiler's gzip files, and unpack.sh gzips them back.
# On the machine that has the toolchain: utils/gpu/unpack.sh OUT DIR.
set -uo pipefail

usage() {
  cat <<'EOF'
usage: utils/gpu/lease.sh [--budget S] [--suite-seconds S] [--steps N]
                          [--workloads LIST] [--variants LIST] OUT
  --budget S          seconds for everything, packing included (default 560)
  --suite-seconds S   no suite run starts after this (default 390)
  --steps N           iterations per suite run (default 10; the profiler
                      keeps the last three)
  --workloads, --variants   passed to utils/suite/run.py (default all)
  --device D, --size S      passed to utils/suite/run.py (default cuda, full;
                      `--device cpu --size tiny` tries this script on a CPU)
environment: PYTHON (default python3), and what validate.sh reads
EOF
}

budget=560 suite_s=390 steps=10 workloads="" variants="" device=cuda size=full out=""
while [ $# -gt 0 ]; do
  case $1 in
    --budget) budget=${2:?}; shift ;;
    --suite-seconds) suite_s=${2:?}; shift ;;
    --steps) steps=${2:?}; shift ;;
    --workloads) workloads=${2:?}; shift ;;
    --variants) variants=${2:?}; shift ;;
    --device) device=${2:?}; shift ;;
    --size) size=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "lease.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "lease.sh: one OUT only" >&2; exit 2; }
       out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || { usage >&2; exit 2; }
for n in "$budget" "$suite_s" "$steps"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "lease.sh: '$n' is not a number" >&2; exit 2; }
done

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
work=$(mktemp -d /tmp/lease.XXXXXX)
rec=$work/lease
mkdir -p "$rec"
start=$SECONDS
pack_reserve=30 # seconds kept for the pack
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

log() { printf '[lease %3ds] %s\n' "$((SECONDS - start))" "$*" | tee -a "$rec/lease.log"; }

# 1. The machine.
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    "($(git status --porcelain 2>/dev/null | wc -l) files changed)"
  echo "host: $(uname -a)"
  echo "cpus: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
    --format=csv 2>&1
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  "$py" - <<'EOF' 2>&1
import platform, torch
print("python:", platform.python_version())
print("torch:", torch.__version__, "cuda:", torch.version.cuda,
      "cudnn:", torch.backends.cudnn.version())
try:
    import torchvision
    print("torchvision:", torchvision.__version__)
except ImportError:
    print("torchvision: none")
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device:", p.name, "sm", f"{p.major}.{p.minor}", p.multi_processor_count, "SMs",
          round(p.total_memory / 2**30, 1), "GiB")
EOF
} >"$rec/machine.txt" 2>&1
log "machine: $(grep -m1 '^device:' "$rec/machine.txt" || echo 'no CUDA device')"

# 2. The suite.
suite_args=(--out "$rec/suite" --device "$device" --size "$size" --dd-trace none --steps "$steps"
            --deadline "$suite_s" --timeout 150)
[ -z "$workloads" ] || suite_args+=(--workloads "$workloads")
[ -z "$variants" ] || suite_args+=(--variants "$variants")
log "suite: utils/suite/run.py ${suite_args[*]}"
"$py" utils/suite/run.py "${suite_args[@]}" 2>&1 | tee -a "$rec/lease.log"
log "suite: done"

# 3. dd-trace's validation with what is left.
left=$((budget - (SECONDS - start) - pack_reserve))
if ((left >= 60)); then
  log "validate: utils/gpu/validate.sh --budget $left --no-toolchain"
  utils/gpu/validate.sh --budget "$left" --no-toolchain "$rec/validate" 2>&1 | tee -a "$rec/lease.log"
  rm -rf "$rec/validate/work"
else
  log "validate: skipped, ${left}s left"
fi

# 4. The pack: traces uncompressed into one xz archive.
find "$rec" -name '*.json.gz' -exec gunzip -f {} +
find "$rec" -name '*.ddrec.gz' -exec gunzip -f {} +
log "packing $(du -sh "$rec" | cut -f1)"
tar -C "$work" -cf - lease | xz -T0 -3 >"$out/lease.tar.xz"
size=$(stat -c %s "$out/lease.tar.xz")
if ((size > 15 * 1024 * 1024)); then
  split -b 15m -d -a 1 "$out/lease.tar.xz" "$out/lease.tar.xz.part"
  rm -f "$out/lease.tar.xz"
fi
cp "$rec/lease.log" "$out/lease.log"
log "packed $size bytes into $(ls "$out" | grep -c '^lease.tar.xz') file(s) in $out"
rm -rf "$work"
