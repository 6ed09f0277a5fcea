#!/usr/bin/env python3
"""A small, repeatable training loop to record dd-trace's validation traces.

torchvision's ResNet-18 on synthetic ImageNet-shaped data (one batch made
once in pinned host memory and copied to the GPU each iteration, as a data
loader would), trained with AdamW (or SGD) for --steps iterations. Every
iteration ends with torch.cuda.synchronize(), so that its wall time, its
torch.profiler ProfilerStep and its dd-trace step#N range all span the same
work. Switches give the optimizations the passes model, for ground truth:
--amp (bf16 autocast), --fused-adam (AdamW(fused=True)), --channels-last.

Recording:
  --profile OUT.json[.gz]  torch.profiler (CPU and CUDA activities, no
                           shapes) of the --window iterations, whose
                           ProfilerStep#N ranges keep the iteration numbers
  --nvtx                   utils/ddtrace_nvtx.py ranges (step#N, modules,
                           phases, optimizer) for dd-trace
  --nvtx-record OUT.json   the same ranges recorded in Python instead of
                           NVTX, with a summary that says whether they are
                           balanced and on which threads (a self-check)
  --times OUT.json         per-iteration wall times, the --window median,
                           the device and versions

Run under dd-trace (utils/gpu/validate.sh does this), e.g.
  dd-trace -o run.ddir -window=5:14 -- python3 train_resnet.py --nvtx

torch is imported only after the arguments are checked, so --help and
argument errors work without it.
"""
import argparse
import contextlib
import json
import os
import socket
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from torch_profiling import make_profiler, parse_window  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="ResNet-18 on synthetic data, for recording dd-trace's validation traces.")
    ap.add_argument("--steps", type=int, default=20, help="iterations (default 20)")
    ap.add_argument("--batch-size", type=int, default=64, help="default 64")
    ap.add_argument("--image-size", type=int, default=224, help="default 224")
    ap.add_argument("--classes", type=int, default=1000, help="default 1000")
    ap.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw",
                    help="default adamw (so that --fused-adam is the one change)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--foreach", choices=["auto", "on", "off"], default="auto",
                    help="the optimizer's multi-tensor path (default: PyTorch's choice)")
    ap.add_argument("--amp", action="store_true", help="bf16 autocast around forward and loss")
    ap.add_argument("--fused-adam", action="store_true", help="AdamW(fused=True)")
    ap.add_argument("--channels-last", action="store_true", help="model and batch channels-last")
    ap.add_argument("--no-copy", action="store_true",
                    help="keep the batch on the GPU rather than copy it each iteration")
    ap.add_argument("--nvtx", action="store_true", help="push ddtrace_nvtx ranges")
    ap.add_argument("--nvtx-record", metavar="OUT.json",
                    help="record the ddtrace_nvtx ranges in Python and summarize them")
    ap.add_argument("--window", type=parse_window, default=(5, 14), metavar="FIRST:LAST",
                    help="iterations (0-based, inclusive) that --profile keeps and "
                         "--times summarizes (default 5:14)")
    ap.add_argument("--profile", metavar="OUT.json[.gz]", help="torch.profiler trace")
    ap.add_argument("--times", metavar="OUT.json", help="per-iteration wall times")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda", help="default cuda ('cpu' for a dry run)")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.batch_size < 1:
        ap.error("--steps and --batch-size must be positive")
    if args.window[1] >= args.steps:
        ap.error(f"--window {args.window[0]}:{args.window[1]} ends after the last "
                 f"iteration ({args.steps - 1})")
    if args.fused_adam and args.optimizer != "adamw":
        ap.error("--fused-adam needs --optimizer adamw")
    if args.fused_adam and args.foreach == "on":
        ap.error("--fused-adam and --foreach on exclude each other")
    return args


def make_optimizer(torch, params, args):
    kwargs = {}
    if args.fused_adam:
        kwargs["fused"] = True
    elif args.foreach != "auto":
        kwargs["foreach"] = args.foreach == "on"
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr, momentum=0.9, **kwargs)
    return torch.optim.AdamW(params, lr=args.lr, **kwargs)


def summarize_ranges(nvtx, recorder):
    """Whether the recorded ranges are balanced per thread and where the
    module and backward ranges ran."""
    main = threading.main_thread().ident
    threads = {}
    for tid, name, kind, text in recorder.events:
        t = threads.setdefault(tid, {"name": name, "main": tid == main, "pushes": 0,
                                     "pops": 0, "forward_module_ranges": 0,
                                     "backward_module_ranges": 0, "backward_ranges": 0,
                                     "optimizer_ranges": 0, "iteration_ranges": 0})
        if kind == "pop":
            t["pops"] += 1
        elif kind == "push":
            t["pushes"] += 1
            if text.startswith(nvtx.BACKWARD_MODULE_PREFIX):
                t["backward_module_ranges"] += 1
            elif text.startswith(nvtx.MODULE_PREFIX):
                t["forward_module_ranges"] += 1
            elif text == nvtx.BACKWARD:
                t["backward_ranges"] += 1
            elif text.startswith("Optimizer.step#"):
                t["optimizer_ranges"] += 1
            elif text.startswith("step#"):
                t["iteration_ranges"] += 1
    depths = recorder.depths()
    for tid, t in threads.items():
        t["final_depth"] = depths.get(tid, 0)
    names = sorted({text for _, _, kind, text in recorder.events if kind == "push"})
    # The last iteration, rendered, as a sample to read.
    last = max((i for i, e in enumerate(recorder.events)
                if e[2] == "push" and e[3].startswith("step#")), default=0)
    sample = nvtx.RecordingBackend()
    sample.events = recorder.events[last:]
    return {"balanced": all(d == 0 for d in depths.values()),
            "threads": list(threads.values()), "distinct_names": len(names),
            "names": names[:400], "stats": nvtx.stats(),
            "last_iteration": sample.render().splitlines()[:1500]}


def main(argv=None):
    args = parse_args(argv)
    import torch
    import torch.nn.functional as F
    import torchvision

    device = torch.device(args.device)
    cuda = device.type == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("train_resnet: CUDA is not available to PyTorch")
    torch.manual_seed(args.seed)
    # Heuristic algorithm choice: the same kernels in every run, so that
    # runs can be compared kernel for kernel.
    torch.backends.cudnn.benchmark = False

    def sync():
        if cuda:
            torch.cuda.synchronize(device)

    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    model = torchvision.models.resnet18(weights=None, num_classes=args.classes)
    model = model.to(device=device, memory_format=fmt).train()
    opt = make_optimizer(torch, model.parameters(), args)

    gen = torch.Generator().manual_seed(args.seed)
    host_x = torch.randn(args.batch_size, 3, args.image_size, args.image_size,
                         generator=gen).contiguous(memory_format=fmt)
    host_y = torch.randint(0, args.classes, (args.batch_size,), generator=gen)
    if cuda:
        host_x, host_y = host_x.pin_memory(), host_y.pin_memory()
    # empty_like keeps the channels-last strides, so the copy is one memcpy.
    x = torch.empty_like(host_x, device=device)
    y = torch.empty_like(host_y, device=device)
    x.copy_(host_x)
    y.copy_(host_y)

    nvtx = recorder = handle = None
    if args.nvtx or args.nvtx_record:
        import ddtrace_nvtx as nvtx
        if args.nvtx_record:
            recorder = nvtx.RecordingBackend()
            nvtx.set_backend(recorder)
        handle = nvtx.annotate(model, opt)

    def ctx(make, *a):
        return make(*a) if nvtx else contextlib.nullcontext()

    def autocast():
        if args.amp:
            return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    prof = make_profiler(args.window, args.profile, cuda) if args.profile else None
    times = []
    sync()
    if prof:
        prof.start()
    started = time.perf_counter_ns()
    for i in range(args.steps):
        t0 = time.perf_counter_ns()
        with ctx(nvtx and nvtx.iteration, i):
            if not args.no_copy:
                x.copy_(host_x, non_blocking=True)
                y.copy_(host_y, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            with ctx(nvtx and nvtx.forward), autocast():
                loss = F.cross_entropy(model(x), y)
            with ctx(nvtx and nvtx.backward, loss):
                loss.backward()
            opt.step()
            sync()
        times.append(time.perf_counter_ns() - t0)
        if prof:
            prof.step()
    total = time.perf_counter_ns() - started
    if prof:
        prof.stop()
    final_loss = float(loss.item())
    if handle:
        handle.remove()

    first, last = args.window
    window = times[first:last + 1]
    print(f"train_resnet: {args.steps} iterations in {total / 1e9:.2f} s; iterations "
          f"{first}-{last}: median {statistics.median(window) / 1e6:.3f} ms, "
          f"min {min(window) / 1e6:.3f} ms; final loss {final_loss:.4f}", flush=True)

    if args.times:
        report = {
            "argv": sys.argv[1:] if argv is None else list(argv),
            "options": {k: v for k, v in vars(args).items() if k != "window"},
            "window": [first, last],
            "iteration_ns": times,
            "window_median_ns": statistics.median(window),
            "window_mean_ns": statistics.mean(window),
            "window_min_ns": min(window),
            "total_ns": total,
            "final_loss": final_loss,
            "device": torch.cuda.get_device_name(device) if cuda else "cpu",
            "torch": torch.__version__,
            "torchvision": torchvision.__version__,
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version() if cuda else None,
            "python": sys.version.split()[0],
            "host": socket.gethostname(),
            "peak_memory_bytes": torch.cuda.max_memory_allocated(device) if cuda else None,
            "traced": bool(os.environ.get("CUDA_INJECTION64_PATH")),
            "nvtx_stats": nvtx.stats() if nvtx else None,
        }
        with open(args.times, "w") as f:
            json.dump(report, f, indent=1)
    if recorder is not None:
        with open(args.nvtx_record, "w") as f:
            json.dump(summarize_ranges(nvtx, recorder), f, indent=1)


if __name__ == "__main__":
    main()
