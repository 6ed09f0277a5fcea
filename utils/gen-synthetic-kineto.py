#!/usr/bin/env python3
"""Writes a SYNTHETIC PyTorch-profiler (Kineto) trace of a small CNN training loop.

Usage: gen-synthetic-kineto.py [-o OUT.json[.gz]] [--steps N] [--layers N] [--seed S]

Nothing here was recorded on a GPU: the trace is made up, in the current
Kineto format (docs: ../shared/docs/trace-formats.md), so that the project
can ship an input for its end-to-end demo and make inputs of any size for
benchmarks. It is labelled synthetic in its metadata ("traceName").

The timing follows simple causal rules, so that importing and replaying it is
meaningful: CPU ops run on the main thread and launch kernels with
cudaLaunchKernel; a kernel starts when it is launched and its stream is free;
each step copies its batch with a pageable cudaMemcpyAsync, runs forward on
the main thread, backward on an autograd thread, an SGD optimizer step, and
ends with loss.item() (a device-to-host copy and cudaStreamSynchronize).
"""
import argparse
import gzip
import json
import random
import sys

PID, MAIN_TID, BWD_TID, DEVICE, STREAM = 4242, 4242, 4250, 0, 7


class Trace:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.events = []
        self.corr = 1000
        self.ext = 1
        self.gpu_free = 0.0
        self.cpu = {MAIN_TID: 1_000_000.0, BWD_TID: 1_000_000.0}

    def us(self, lo, hi):
        return round(self.rng.uniform(lo, hi), 3)

    def x(self, cat, name, pid, tid, ts, dur, args=None):
        ev = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
              "ts": round(ts, 3), "dur": round(dur, 3)}
        if args is not None:
            ev["args"] = args
        self.events.append(ev)
        return ev

    def launch(self, tid, kernel, gpu_us, grid=(128, 1, 1), block=(256, 1, 1)):
        """cudaLaunchKernel on thread tid; the kernel runs when the stream is free."""
        start = self.cpu[tid] + self.us(1, 4)
        dur = self.us(4, 9)
        self.corr += 1
        self.x("cuda_runtime", "cudaLaunchKernel", PID, tid, start, dur,
               {"External id": self.ext, "cbid": 211, "correlation": self.corr})
        kstart = max(start + self.us(3, 6), self.gpu_free)
        kdur = gpu_us * self.us(0.95, 1.05)
        self.x("kernel", kernel, DEVICE, STREAM, kstart, kdur,
               {"External id": self.ext, "queued": 0, "device": DEVICE, "context": 1,
                "stream": STREAM, "correlation": self.corr, "registers per thread": 64,
                "shared memory": 0, "grid": list(grid), "block": list(block)})
        self.flow(tid, start, kstart)
        self.gpu_free = kstart + kdur
        self.cpu[tid] = start + dur

    def flow(self, tid, cpu_ts, gpu_ts):
        self.events.append({"ph": "s", "id": self.corr, "pid": PID, "tid": tid,
                            "ts": round(cpu_ts, 3), "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": self.corr, "pid": DEVICE, "tid": STREAM,
                            "ts": round(gpu_ts, 3), "cat": "ac2g", "name": "ac2g", "bp": "e"})

    def op(self, tid, name, body):
        """A cpu_op range around whatever body() records on thread tid."""
        start = self.cpu[tid] + self.us(2, 8)
        self.cpu[tid] = start + self.us(1, 3)
        self.ext += 1
        body()
        self.cpu[tid] += self.us(1, 4)
        self.x("cpu_op", name, PID, tid, start, self.cpu[tid] - start,
               {"External id": self.ext})

    def copy(self, tid, name, kind, nbytes, gpu_us, blocking):
        start = self.cpu[tid] + self.us(2, 6)
        self.corr += 1
        gstart = max(start + self.us(10, 30), self.gpu_free)
        gdur = gpu_us * self.us(0.95, 1.05)
        # A pageable copy is staged while the call runs: the call returns
        # shortly before (or, for a blocking one, after) the copy ends.
        end = gstart + gdur + (self.us(2, 6) if blocking else -self.us(20, 60))
        self.x("cuda_runtime", "cudaMemcpyAsync", PID, tid, start, end - start,
               {"External id": self.ext, "cbid": 41, "correlation": self.corr})
        self.x("gpu_memcpy", name, DEVICE, STREAM, gstart, gdur,
               {"External id": self.ext, "device": DEVICE, "context": 1, "stream": STREAM,
                "correlation": self.corr, "bytes": nbytes})
        self.flow(tid, start, gstart)
        self.gpu_free = gstart + gdur
        self.cpu[tid] = end

    def sync(self, tid):
        start = self.cpu[tid] + self.us(2, 5)
        self.corr += 1
        end = max(start + self.us(3, 6), self.gpu_free + self.us(1, 3))
        self.x("cuda_runtime", "cudaStreamSynchronize", PID, tid, start, end - start,
               {"External id": self.ext, "cbid": 131, "correlation": self.corr})
        self.cpu[tid] = end


def layer_kernels(i):
    """(forward kernels, backward kernels) of conv layer i, with GPU times in us."""
    width = 1.0 + 0.15 * (i % 4)
    fwd = [("aten::conv2d", "volta_sgemm_128x64_nn", 180 * width),
           ("aten::batch_norm", "void at::native::batch_norm_collect_statistics_kernel<float>", 40 * width),
           ("aten::relu_", "void at::native::vectorized_elementwise_kernel<4, at::native::ReluFunctor>", 25 * width)]
    bwd = [("ReluBackward0", "void at::native::threshold_kernel<float>", 30 * width),
           ("NativeBatchNormBackward0", "void at::native::batch_norm_backward_kernel<float>", 70 * width),
           ("ConvolutionBackward0", "volta_sgemm_128x64_nt", 190 * width),
           ("ConvolutionBackward0", "volta_sgemm_128x64_tn", 200 * width)]
    return fwd, bwd


def step(t, n, layers):
    step_start = t.cpu[MAIN_TID]
    t.cpu[MAIN_TID] += t.us(20, 40)
    t.ext += 1
    first = len(t.events)

    t.op(MAIN_TID, "aten::copy_", lambda: t.copy(
        MAIN_TID, "Memcpy HtoD (Pageable -> Device)", 1, 12_582_912, 1100, False))
    for i in range(layers):
        fwd, _ = layer_kernels(i)
        for op_name, kernel, us in fwd:
            t.op(MAIN_TID, op_name, lambda k=kernel, u=us: t.launch(MAIN_TID, k, u))
    t.op(MAIN_TID, "aten::cross_entropy_loss", lambda: t.launch(
        MAIN_TID, "void at::native::cunn_SoftMaxForward<4, float>", 30))

    # loss.backward(): the autograd thread takes over.
    t.cpu[BWD_TID] = t.cpu[MAIN_TID] + t.us(40, 80)
    bwd_start = t.cpu[BWD_TID]
    for i in reversed(range(layers)):
        _, bwd = layer_kernels(i)
        for op_name, kernel, us in bwd:
            t.op(BWD_TID, "autograd::engine::evaluate_function: " + op_name,
                 lambda k=kernel, u=us: t.launch(BWD_TID, k, u))
    t.x("cpu_op", "autograd::engine::evaluate_function: backward", PID, BWD_TID,
        bwd_start, 0.001, {"External id": t.ext})
    t.events.pop()  # only the per-op ranges matter; keep the event count honest
    t.cpu[MAIN_TID] = t.cpu[BWD_TID] + t.us(30, 60)

    opt_start = t.cpu[MAIN_TID] + t.us(5, 10)
    t.cpu[MAIN_TID] = opt_start
    for _ in range(layers):
        t.op(MAIN_TID, "aten::add_", lambda: t.launch(
            MAIN_TID, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", 12))
    t.x("user_annotation", "Optimizer.step#SGD.step", PID, MAIN_TID, opt_start,
        t.cpu[MAIN_TID] - opt_start + 2, {"External id": t.ext})
    t.cpu[MAIN_TID] += 2

    t.op(MAIN_TID, "aten::item", lambda: (
        t.copy(MAIN_TID, "Memcpy DtoH (Device -> Pageable)", 2, 4, 2, True),
        t.sync(MAIN_TID)))
    t.cpu[MAIN_TID] += t.us(50, 150)
    t.x("user_annotation", f"ProfilerStep#{n}", PID, MAIN_TID, step_start,
        t.cpu[MAIN_TID] - step_start, {"External id": t.ext})
    return len(t.events) - first


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    t = Trace(a.seed)
    for n in range(a.steps):
        step(t, n + 1, a.layers)
    t.events.sort(key=lambda e: (e["ts"], e["pid"], str(e["tid"])))
    meta = [{"name": "thread_name", "ph": "M", "pid": PID, "tid": MAIN_TID,
             "args": {"name": "python (synthetic)"}},
            {"name": "thread_name", "ph": "M", "pid": PID, "tid": BWD_TID,
             "args": {"name": "pt_autograd_0 (synthetic)"}},
            {"name": "thread_name", "ph": "M", "pid": DEVICE, "tid": STREAM,
             "args": {"name": "stream 7 "}}]
    doc = {"schemaVersion": 1,
           "traceName": f"SYNTHETIC trace made by utils/gen-synthetic-kineto.py "
                        f"--steps {a.steps} --layers {a.layers} --seed {a.seed}",
           "deviceProperties": [{"id": 0, "name": "Synthetic GPU", "totalGlobalMem": 34359738368,
                                 "computeMajor": 7, "computeMinor": 0, "numSms": 80}],
           "traceEvents": meta + t.events}
    text = json.dumps(doc, separators=(",", ":"))
    if a.output == "-":
        sys.stdout.write(text)
    elif a.output.endswith(".gz"):
        with gzip.GzipFile(a.output, "wb", mtime=0) as f:
            f.write(text.encode())
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
