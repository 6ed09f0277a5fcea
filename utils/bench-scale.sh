#!/usr/bin/env bash
# Benchmark of how cost grows with size (issue 10; not a timed test). For
# one-rank transformer graphs made by dd-synth at 10^4, 10^6, 5x10^6 and
# 10^7 tasks it measures, with /usr/bin/time (wall time, peak resident set):
#   - dd-import of the same job as Kineto JSON (MB/s of uncompressed JSON);
#   - opening and verifying the .ddir: `dd-opt FILE -disable-output` (an
#     empty pipeline: read, verify, write nothing);
#   - every built-in pass alone: `dd-opt -time-passes -passes=P FILE
#     -disable-output`; the pass's own time is given twice: as dd-opt's
#     -time-passes figure and as the process's wall time minus the median
#     open+verify time of the same file (an estimate);
#   - dd-sim, whole process, with -headline=false and with the headline,
#     and the simulate step's own time (dd-sim -time-phases);
#   - peak bytes a task (peak resident set / tasks).
# The passes are every one dd-opt registers (utils/bench_pipelines.py, which
# gives some options): those that act on ranks (network, dp-ranks,
# straggler, print<network>, ...) run on an 8-rank transformer job of the
# same size (dd-synth -ranks=8), whose open+verify time is measured too.
# Then import plus critical path (dd-import, then dd-opt
# -passes='print<critical-path>'), for each real trace in ../shared/traces
# and for synthetic Kineto JSON of 54 MB and 540 MB (HTA's two trace sizes),
# beside Holistic Trace Analysis's published figures.
# Every figure is over RUNS runs (default 3): best and median.
# Usage: utils/bench-scale.sh [RUNS]. Environment: DAYDREAM_BUILD_DIR (the
# build folder, as for utils/build.sh), SIZES (the .ddir sizes, default
# "10000 1000000 5000000 10000000"), JSON_SIZES (the import sizes, default
# "10000 1000000 10000000"; 10^7 tasks is 6.1 GB of JSON, and dd-import of
# it peaks at about 7.6 GB), JOB_RANKS (the large jobs' ranks, a million
# tasks each, default "64": 3.2 GB of file, dd-synth peaks at 6.4 GB; ""
# for none), SPLIT_RANKS (the split jobs' ranks, a million tasks each,
# default "8": one file against a file per rank, docs/SplitJobs.md; "" for
# none), TMPDIR (where the files go: needs about 8 GB). Where mpirun is
# found, both job sections also time dd-sim under mpirun -np 1 and 2, with
# each process's peak, and check the report is the one-process one (of the
# job file at -np 2, each process reads its share: docs/Distributed.md).
# Takes about 7 minutes on a 2-core machine (docs/Performance.md). Wall times are measured by the
# script's clock around each process (/usr/bin/time's %e has 10 ms steps).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=$(cd "${DAYDREAM_BUILD_DIR:-build}/bin" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores; $(lscpu | grep -m1 'Model name' | sed 's/  */ /g'); $(free -g | awk '/Mem:/ {print $2 " GB"}')"
echo "load at start: $(uptime | sed 's/.*load average/load average/')"
BIN=$bin WORK=$work RUNS=$runs SIZES=${SIZES:-10000 1000000 5000000 10000000} \
  JSON_SIZES=${JSON_SIZES:-10000 1000000 10000000} \
  JOB_RANKS=${JOB_RANKS-64} SPLIT_RANKS=${SPLIT_RANKS-8} python3 - <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, glob, time
sys.path.insert(0, "utils")
from bench_pipelines import pipelines

BIN, WORK, RUNS = os.environ["BIN"], os.environ["WORK"], int(os.environ["RUNS"])
SIZES = [int(s) for s in os.environ["SIZES"].split()]
JSON_SIZES = [int(s) for s in os.environ["JSON_SIZES"].split()]
JOB_RANKS = [int(s) for s in os.environ["JOB_RANKS"].split()]
SPLIT_RANKS = [int(s) for s in os.environ["SPLIT_RANKS"].split()]
TRACES = os.path.join(os.getcwd(), "..", "shared", "traces")


def tool(name):
    return os.path.join(BIN, name)


def once(cmd):
    """Runs cmd under /usr/bin/time: (wall s, peak KB, stderr). The wall time
    is Python's clock around the process (/usr/bin/time's %e has 10 ms steps);
    the peak is /usr/bin/time's maximum resident set."""
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %M"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    lines = p.stderr.splitlines()
    at = [l for l in lines if l.startswith("@@ ")]
    if p.returncode != 0 or not at:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-400:]}")
    _, _, kb = at[-1].split()
    return elapsed, int(kb), "\n".join(l for l in lines if not l.startswith("@@ "))


def measure(cmd, extra=None):
    """RUNS runs: dict of lists wall, kb (and extra(stderr) values)."""
    r = {"wall": [], "kb": [], "extra": []}
    for _ in range(RUNS):
        wall, kb, err = once(cmd)
        r["wall"].append(wall)
        r["kb"].append(kb)
        if extra:
            r["extra"].append(extra(err))
    return r


MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def once_mpi(processes, cmd):
    """mpirun -np processes cmd, each process under /usr/bin/time: (wall s of
    the whole mpirun, [peak KB of each process])."""
    start = time.perf_counter()
    p = subprocess.run([MPIRUN, "--oversubscribe", "-np", str(processes),
                        "/usr/bin/time", "-f", "@@ %e %M"] + cmd, env=MPI_ENV,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    peaks = [int(l.split()[2]) for l in p.stderr.splitlines() if l.startswith("@@ ")]
    if p.returncode != 0 or len(peaks) != processes:
        raise RuntimeError(f"mpirun -np {processes} {' '.join(cmd)} failed: "
                           f"{p.stderr.strip()[-400:]}")
    return elapsed, peaks


def mpi_rows(label, graph, tasks):
    """dd-sim of graph as one process and under mpirun -np 1 and 2, the
    reports compared byte for byte (docs/Distributed.md)."""
    one, split = f"{WORK}/one.report", f"{WORK}/split.report"
    wall, kb, _ = once([tool("dd-sim"), graph, "-o", one])
    rows = [(label, "dd-sim", wall, [kb])]
    for n in (1, 2):
        wall, peaks = once_mpi(n, [tool("dd-sim"), graph, "-o", split])
        if open(one, "rb").read() != open(split, "rb").read():
            raise RuntimeError(f"mpirun -np {n} dd-sim {graph}: not the one-process report")
        rows.append((label, f"mpirun -np {n} dd-sim", wall, peaks))
    for name, how, wall, peaks in rows:
        print(f"| {name} | {tasks} | {how} | {wall:.2f} | "
              f"{' / '.join(f'{k / 2**20:.2f}' for k in peaks)} |", flush=True)


def bm(xs):
    return min(xs), statistics.median(xs)


def stats(path):
    out = subprocess.run([tool("dd-opt"), "-passes=print<stats>{json=true}", path,
                          "-disable-output"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def pass_wall(err):
    # The timing rows only: a pass's warning may hold parentheses too.
    rows = [l for l in err.splitlines()
            if re.search(r"[0-9.]+ \(\s*[0-9.]+%\)\s+\S", l) and "Total" not in l]
    return float(re.findall(r"([0-9.]+) \(\s*[0-9.]+%\)", rows[0])[-1]) if rows else None


def simulate_step(err):
    """The simulate step's seconds from dd-sim -time-phases."""
    return float(re.search(r"simulate ([0-9.]+) s", err).group(1))


def load():
    return open("/proc/loadavg").read().split()[:3]


def mtps(tasks, secs):
    return f"{tasks / secs / 1e6:.1f}" if secs > 0 else "inf"


ONE_RANK, MULTI_RANK = pipelines(tool("dd-opt"))

print("\n## Kineto import (dd-import of dd-synth -family=transformer -tasks=N -o t.json)")
print(f"load before: {' '.join(load())}")
print("| tasks | JSON MB | wall best / median s | MB/s best / median | peak MB | peak bytes/task |")
print("|---|---|---|---|---|---|")
for n in JSON_SIZES:
    js, dd = f"{WORK}/t.json", f"{WORK}/imp.ddir"
    subprocess.run([tool("dd-synth"), "-q", "-family=transformer", f"-tasks={n}", "-o", js],
                   check=True)
    size = os.path.getsize(js)
    r = measure([tool("dd-import"), js, "-o", dd])
    tasks = stats(dd)["tasks"]
    b, m = bm(r["wall"])
    kb = max(r["kb"])
    print(f"| {tasks} | {size / 1e6:.1f} | {b:.2f} / {m:.2f} | {size / 1e6 / b:.0f} / "
          f"{size / 1e6 / m:.0f} | {kb / 1024:.0f} | {kb * 1024 / tasks:.0f} |", flush=True)
    os.remove(js)
    os.remove(dd)
print(f"load after: {' '.join(load())}")

for n in SIZES:
    one, multi = f"{WORK}/one.ddir", f"{WORK}/multi.ddir"
    subprocess.run([tool("dd-synth"), "-q", "-family=transformer", f"-tasks={n}", "-o", one],
                   check=True)
    subprocess.run([tool("dd-synth"), "-q", "-family=transformer", "-ranks=8", f"-tasks={n}",
                    "-o", multi], check=True)
    s1, s8 = stats(one), stats(multi)
    t1, t8 = s1["tasks"], s8["tasks"]
    print(f"\n## {n} tasks: one rank {t1} tasks, {s1['edges']} edges, "
          f"{os.path.getsize(one) / t1:.0f} bytes of .ddir a task; 8 ranks {t8} tasks, "
          f"{s8['edges']} edges")
    print(f"load before: {' '.join(load())}")
    print("| what | wall best / median s | M tasks/s best / median | pass's own s "
          "(-time-passes; dd-sim: its simulate step) best / median | own M tasks/s best / median | "
          "own s (wall - open) median | peak MB | peak bytes/task |")
    print("|---|---|---|---|---|---|---|---|")
    open_med = {}
    for label, path, tasks in (("open+verify (1 rank)", one, t1),
                               ("open+verify (8 ranks)", multi, t8)):
        r = measure([tool("dd-opt"), path, "-disable-output"])
        b, m = bm(r["wall"])
        open_med[path] = m
        kb = max(r["kb"])
        print(f"| {label} | {b:.3f} / {m:.3f} | {mtps(tasks, b)} / {mtps(tasks, m)} | | | | "
              f"{kb / 1024:.0f} | {kb * 1024 / tasks:.0f} |", flush=True)
    for path, tasks, passes in ((one, t1, ONE_RANK), (multi, t8, MULTI_RANK)):
        for p in passes:
            r = measure([tool("dd-opt"), "-time-passes", f"-passes={p}", path,
                         "-disable-output"], pass_wall)
            b, m = bm(r["wall"])
            pb, pm = bm(r["extra"])
            own = m - open_med[path]
            kb = max(r["kb"])
            name = p.split("{")[0] + ("" if path == one else " (8 ranks)")
            print(f"| {name} | {b:.3f} / {m:.3f} | | {pb:.3f} / {pm:.3f} | "
                  f"{mtps(tasks, pb)} / {mtps(tasks, pm)} | {own:.3f} | {kb / 1024:.0f} | "
                  f"{kb * 1024 / tasks:.0f} |", flush=True)
    for label, extra in (("dd-sim -headline=false", ["-headline=false"]),
                         ("dd-sim (headline)", [])):
        r = measure([tool("dd-sim"), "-time-phases", one] + extra, simulate_step)
        b, m = bm(r["wall"])
        sb, sm = bm(r["extra"])
        own = m - open_med[one]
        kb = max(r["kb"])
        print(f"| {label} | {b:.3f} / {m:.3f} | {mtps(t1, b)} / {mtps(t1, m)} | "
              f"{sb:.3f} / {sm:.3f} | {mtps(t1, sb)} / {mtps(t1, sm)} | {own:.3f} | "
              f"{kb / 1024:.0f} | {kb * 1024 / t1:.0f} |", flush=True)
    print(f"load after: {' '.join(load())}")
    os.remove(one)
    os.remove(multi)

# Import plus critical path, beside HTA: 3.3 s load + 11.3 s critical path
# (480 MB) for a 54 MB trace, 156 s (4.4 GB) for one 10x larger.
print("\n## Import plus critical path (dd-import, then dd-opt -passes='print<critical-path>')")
print(f"load before: {' '.join(load())}")
inputs = []
for f in sorted(glob.glob(f"{TRACES}/kineto/*.json.gz")):
    inputs.append((os.path.basename(f), [f]))
dlrm = sorted(glob.glob(f"{TRACES}/kineto/dlrm_8rank_v100/*.json.gz"))
if dlrm:
    inputs.append(("dlrm_8rank_v100 (8 ranks, one job)", dlrm))
for f in sorted(glob.glob(f"{TRACES}/nsys/*.sqlite")):
    inputs.append((os.path.basename(f), [f]))
# Synthetic Kineto JSON of HTA's two sizes: bytes a task measured first.
probe = f"{WORK}/probe.json"
subprocess.run([tool("dd-synth"), "-q", "-family=cnn", "-tasks=100000", "-o", probe], check=True)
per_task = os.path.getsize(probe) / 100000
os.remove(probe)
for mb in (54, 540):
    js = f"{WORK}/synth{mb}.json"
    subprocess.run([tool("dd-synth"), "-q", "-family=cnn", f"-tasks={int(mb * 1e6 / per_task)}",
                    "-o", js], check=True)
    inputs.append((f"synthetic dd-synth -family=cnn, {mb} MB", [js]))
print("| trace | uncompressed MB | tasks | kernels | import best / median s | critical path "
      "best / median s | sum best / median s | peak MB | HTA s (scaled) | HTA / ours (median) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for label, files in inputs:
    size = 0
    for f in files:
        size += (int(subprocess.run(f"zcat -f '{f}' | wc -c", shell=True, check=True,
                                    capture_output=True, text=True).stdout)
                 if f.endswith(".gz") else os.path.getsize(f))
    dd = f"{WORK}/trace.ddir"
    imp, cp, tot = [], [], []
    kb = 0
    for _ in range(RUNS):
        w1, k1, _ = once([tool("dd-import"), "-q"] + files + ["-o", dd])
        w2, k2, _ = once([tool("dd-opt"), "-passes=print<critical-path>", dd, "-disable-output"])
        imp.append(w1)
        cp.append(w2)
        tot.append(w1 + w2)
        kb = max(kb, k1, k2)
    s = stats(dd)
    kernels = s.get("tasks_by_kind", {}).get("kernel", 0)
    mb = size / 1e6
    if abs(mb - 540) < 60:
        hta = 156.0
    else:
        hta = 14.6 * mb / 54
    (ib, im), (cb, cm), (tb, tm) = bm(imp), bm(cp), bm(tot)
    print(f"| {label} | {mb:.1f} | {s['tasks']} | {kernels} | {ib:.2f} / {im:.2f} | "
          f"{cb:.2f} / {cm:.2f} | {tb:.2f} / {tm:.2f} | {kb / 1024:.0f} | {hta:.2f} | "
          f"{hta / tm:.1f}x |", flush=True)
    for f in files:
        if f.startswith(WORK):
            os.remove(f)
print(f"load after: {' '.join(load())}")

# Jobs of many ranks, a million tasks each, as one binary .ddir (format v4
# has no size limit of its own): made by dd-synth, then simulated by dd-sim,
# once each (a minute or more apiece; JOB_RANKS="" leaves them out).
if JOB_RANKS:
    print("\n## Large jobs (dd-synth -ranks=R -tasks=R*10^6 -o job.ddir, then dd-sim job.ddir)")
    print(f"load before: {' '.join(load())}")
    print("| ranks | tasks | file GB | dd-synth s | dd-synth peak GB | dd-sim s | "
          "dd-sim peak GB | dd-sim bytes/task |")
    print("|---|---|---|---|---|---|---|---|")
    for r in JOB_RANKS:
        job = f"{WORK}/job{r}.ddir"
        ws, ks, _ = once([tool("dd-synth"), "-q", f"-ranks={r}", f"-tasks={r * 1000000}",
                          "-o", job])
        gb = os.path.getsize(job) / 1e9
        wd, kd, _ = once([tool("dd-sim"), job, "-headline=false", "-o", os.devnull])
        tasks = stats(job)["tasks"]
        print(f"| {r} | {tasks} | {gb:.2f} | {ws:.1f} | {ks / 2**20:.2f} | {wd:.2f} | "
              f"{kd / 2**20:.2f} | {kd * 1024 / tasks:.0f} |", flush=True)
        if MPIRUN:
            print("\n### dd-sim over MPI processes (the headline on; one run each)")
            print("| job | tasks | command | s | peak GB of each process |")
            print("|---|---|---|---|---|")
            mpi_rows(f"{r} ranks", job, tasks)
            print()
        os.remove(job)
    print(f"load after: {' '.join(load())}")

# A job imported into one file against one file per rank (docs/SplitJobs.md):
# from the same gzipped Kineto JSON, once each; each rank imported apart is
# timed alone, as a cluster task would run it, then linked.
if SPLIT_RANKS:
    print("\n## Split jobs (dd-synth -ranks=R -tasks=R*10^6 -o trace.json.gz; "
          "dd-import into one file or -split)")
    print(f"load before: {' '.join(load())}")
    print("| ranks | tasks | step | s | peak GB |")
    print("|---|---|---|---|---|")
    for r in SPLIT_RANKS:
        traces = [f"{WORK}/split.rank{i}.json.gz" for i in range(r)]
        once([tool("dd-synth"), "-q", f"-ranks={r}", f"-tasks={r * 1000000}",
              "-o", f"{WORK}/split.json.gz"])
        one, job, apart = f"{WORK}/one.ddir", f"{WORK}/split.ddjob", f"{WORK}/apart.ddjob"
        rows = [("dd-import, one file", [tool("dd-import"), "-q", *traces, "-o", one]),
                ("dd-import -split", [tool("dd-import"), "-q", "-split", *traces, "-o", job])]
        results = [(name, once(cmd)) for name, cmd in rows]
        apart_runs = [once([tool("dd-import"), "-q", "-split", "-no-link", t, "-o", apart])
                      for t in traces]
        results.append(("dd-import -split -no-link, one rank (slowest)",
                        max(apart_runs, key=lambda x: x[0])))
        results.append(("dd-import -link", once([tool("dd-import"), "-q", "-link",
                                                 *sorted(glob.glob(f"{WORK}/apart.rank*.ddcoll")),
                                                 "-o", apart])))
        results.append(("dd-sim, one file", once([tool("dd-sim"), one, "-o", os.devnull])))
        results.append(("dd-sim, job file", once([tool("dd-sim"), job, "-o", os.devnull])))
        tasks = stats(one)["tasks"]
        for name, (wall, kb, _) in results:
            print(f"| {r} | {tasks} | {name} | {wall:.2f} | {kb / 2**20:.2f} |", flush=True)
        if MPIRUN:
            print("\n### dd-sim over MPI processes (the headline on; one run each)")
            print("| job | tasks | command | s | peak GB of each process |")
            print("|---|---|---|---|---|")
            mpi_rows(f"{r} ranks, one file", one, tasks)
            mpi_rows(f"{r} ranks, job file", job, tasks)
            print()
        for f in traces + [one, job, apart] + glob.glob(f"{WORK}/split.rank*.dd*") + \
                glob.glob(f"{WORK}/apart.rank*"):
            if os.path.exists(f):
                os.remove(f)
    print(f"load after: {' '.join(load())}")
PY
