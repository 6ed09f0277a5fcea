"""The training loop every workload of the suite shares (utils/suite/*.py).

A workload module describes itself with module-level constants (read by
run.py without importing torch) and a build(ctx) function:

    NAME = "resnet50"                 # the script's name, without .py
    APPLICATION = "image classification"
    TBD = True                        # one of TBD's eight (False: added since)
    CHANNELS_LAST = True              # --channels-last applies (convolutions)
    SEQUENCE = False                  # iteration lengths vary with the data
    BATCH = {"full": 32, "tiny": 2}   # default --batch-size per --size

    def build(ctx):                   # -> Workload
        ...

The harness parses the common switches, builds the workload, makes every
iteration's batch on the host before the loop (so that making data costs
nothing inside the measured iterations, and every variant of a workload
sees the same batches), and runs --steps iterations. Each iteration copies
its batch to the device, as a data loader's pinned batches are, runs the
workload's train step and, on CUDA, synchronizes, so that its wall time,
its torch.profiler ProfilerStep and its dd-trace step#N range all span the
same work.

The switches the passes model, for ground truth:
  --amp            bf16 autocast around forward and loss      (pass amp-scale)
  --fused-adam     AdamW(fused=True)                          (fused-optimizer)
  --compile        torch.compile(model)                       (kernel-fusion)
  --channels-last  model and 4-D inputs channels-last         (no pass yet)
A switch this PyTorch or device cannot honour (fused AdamW needs PyTorch 2.0
and CUDA; torch.compile PyTorch 2.0) exits with EXIT_UNSUPPORTED and says
why, so run.py records the variant as unsupported rather than failed.

--size tiny shrinks every shape (images, sequence lengths, widths) so that
two iterations run in seconds on a CPU: the tests' smoke runs. --size full
(the default) is the realistic shape, for a GPU.
"""
import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from torch_profiling import make_profiler, parse_window  # noqa: E402

EXIT_UNSUPPORTED = 3


class Unsupported(Exception):
    """A variant this PyTorch or device cannot run."""


class Workload:
    """What build() returns.

    annotated: [(prefix, module, optimizer)] the modules and optimizers, for
               channels-last, --compile and dd-trace's NVTX ranges
    batch(i):  iteration i's batch on the host: a tensor or a (nested)
               tuple/list/dict of tensors
    train(b):  one whole iteration on the device batch b (forward, loss,
               backward, optimizer steps); returns the loss tensor
    lengths(i): (optional) iteration i's sequence lengths, a dict such as
               {"seq_len": 37, "seq_len2": 41}, for dd-seqpoint
    """

    def __init__(self, annotated, batch, train, lengths=None):
        self.annotated = annotated
        self.batch = batch
        self.train = train
        self.lengths = lengths


def parse_args(wl, argv):
    ap = argparse.ArgumentParser(
        prog=wl.NAME + ".py",
        description=f"{wl.NAME} ({wl.APPLICATION}) on synthetic data, for the suite.")
    ap.add_argument("--steps", type=int, default=12, help="iterations (default 12)")
    ap.add_argument("--batch-size", type=int,
                    help=f"default {wl.BATCH['full']} (--size tiny: {wl.BATCH['tiny']})")
    ap.add_argument("--size", choices=["full", "tiny"], default="full",
                    help="realistic shapes (default) or tiny ones for a CPU smoke run")
    ap.add_argument("--amp", action="store_true", help="bf16 autocast around forward and loss")
    ap.add_argument("--fused-adam", action="store_true", help="AdamW(fused=True)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--channels-last", action="store_true",
                    help="model and 4-D inputs channels-last" +
                    ("" if wl.CHANNELS_LAST else " (not for this workload)"))
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--window", type=parse_window, metavar="FIRST:LAST",
                    help="iterations (0-based, inclusive) that --profile keeps and --times "
                         "summarizes (default: the last three, never the first, which "
                         "warms caches up, unless it is the only one)")
    ap.add_argument("--profile", metavar="OUT.json[.gz]", help="torch.profiler trace")
    ap.add_argument("--times", metavar="OUT.json", help="per-iteration wall times")
    ap.add_argument("--nvtx", action="store_true",
                    help="push utils/ddtrace_nvtx.py ranges (for dd-trace)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda", help="default cuda ('cpu' for a dry run)")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be positive")
    if args.batch_size is None:
        args.batch_size = wl.BATCH[args.size]
    if args.batch_size < 1:
        ap.error("--batch-size must be positive")
    if args.window is None:
        args.window = (max(min(1, args.steps - 1), args.steps - 3), args.steps - 1)
    if args.window[1] >= args.steps:
        ap.error(f"--window {args.window[0]}:{args.window[1]} ends after the last "
                 f"iteration ({args.steps - 1})")
    if args.channels_last and not wl.CHANNELS_LAST:
        ap.error(f"--channels-last does not apply to {wl.NAME} (no 4-D convolution inputs)")
    return args


class Context:
    """What a workload's build() gets: torch, the device, the options, and
    the pieces every workload uses the same way."""

    def __init__(self, torch, args, device):
        self.torch = torch
        self.args = args
        self.device = device
        self.cuda = device.type == "cuda"
        self.tiny = args.size == "tiny"
        self._nvtx = None

    def pick(self, full, tiny):
        """A shape: the realistic one, or the CPU smoke run's."""
        return tiny if self.tiny else full

    def generator(self, i):
        """Iteration i's random numbers for its data: the same in every
        variant of the workload, whatever ran before."""
        return self.torch.Generator().manual_seed(self.args.seed * 1000003 + i)

    def optimizer(self, params):
        """AdamW, the fused kernel with --fused-adam."""
        torch = self.torch
        if not self.args.fused_adam:
            return torch.optim.AdamW(params, lr=self.args.lr)
        import inspect
        if "fused" not in inspect.signature(torch.optim.AdamW).parameters:
            raise Unsupported(f"--fused-adam: PyTorch {torch.__version__} has no fused "
                              "AdamW (it came with 2.0)")
        if not self.cuda:
            raise Unsupported("--fused-adam: fused AdamW runs on CUDA only")
        return torch.optim.AdamW(params, lr=self.args.lr, fused=True)

    def autocast(self):
        if self.args.amp:
            return self.torch.autocast(device_type=self.device.type, dtype=self.torch.bfloat16)
        return contextlib.nullcontext()

    def forward(self):
        """The forward phase (an NVTX range under --nvtx)."""
        return self._nvtx.forward() if self._nvtx else contextlib.nullcontext()

    def backward(self, loss):
        """The backward phase: runs loss.backward() inside its range."""
        with (self._nvtx.backward(loss) if self._nvtx else contextlib.nullcontext()):
            loss.backward()

    def step(self, optimizer, loss):
        """The usual iteration: zero the gradients, backward, optimizer step."""
        self.backward(loss)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    def memory_format(self):
        torch = self.torch
        return torch.channels_last if self.args.channels_last else torch.contiguous_format


def tree_map(fn, obj):
    if isinstance(obj, dict):
        return {k: tree_map(fn, v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(tree_map(fn, v) for v in obj)
    return fn(obj) if hasattr(obj, "dim") else obj


def run(wl, argv=None):
    args = parse_args(wl, argv)
    try:
        return _run(wl, args, argv)
    except Unsupported as e:
        print(f"{wl.NAME}: unsupported: {e}", file=sys.stderr)
        return EXIT_UNSUPPORTED


def _run(wl, args, argv):
    import torch

    device = torch.device(args.device)
    ctx = Context(torch, args, device)
    if ctx.cuda and not torch.cuda.is_available():
        sys.exit(f"{wl.NAME}: CUDA is not available to PyTorch")
    if args.compile and not hasattr(torch, "compile"):
        raise Unsupported(f"--compile: PyTorch {torch.__version__} has no torch.compile "
                          "(it came with 2.0)")
    torch.manual_seed(args.seed)
    # Heuristic algorithm choice: the same kernels in every run, so that
    # variants can be compared kernel for kernel.
    torch.backends.cudnn.benchmark = False

    def sync():
        if ctx.cuda:
            torch.cuda.synchronize(device)

    if args.nvtx:
        import ddtrace_nvtx
        ctx._nvtx = ddtrace_nvtx
    w = wl.build(ctx)
    fmt = ctx.memory_format()
    for _, module, _ in w.annotated:
        module.to(device=device, memory_format=fmt).train()
    handles = [ctx._nvtx.annotate(m, opt, prefix=p) for p, m, opt in w.annotated] \
        if ctx._nvtx else []

    def to_device(t):
        if args.channels_last and t.dim() == 4:
            t = t.contiguous(memory_format=torch.channels_last)
        return t.to(device, non_blocking=True)

    host = []
    for i in range(args.steps):
        b = w.batch(i)
        if ctx.cuda:
            b = tree_map(lambda t: t.pin_memory(), b)
        host.append(b)

    # Memory events for print<memory>'s breakdown (TBD's weights, gradients,
    # activations, workspace).
    prof = make_profiler(args.window, args.profile, ctx.cuda, memory=True) \
        if args.profile else None
    times = []
    sync()
    if prof:
        prof.start()
    started = time.perf_counter_ns()
    loss = None
    for i in range(args.steps):
        t0 = time.perf_counter_ns()
        with (ctx._nvtx.iteration(i) if ctx._nvtx else contextlib.nullcontext()):
            loss = w.train(tree_map(to_device, host[i]))
            sync()
        times.append(time.perf_counter_ns() - t0)
        if prof:
            prof.step()
    total = time.perf_counter_ns() - started
    if prof:
        prof.stop()
    final_loss = float(loss.detach().float().item())
    for h in handles:
        h.remove()

    first, last = args.window
    window = times[first:last + 1]
    print(f"{wl.NAME}: {args.steps} iterations in {total / 1e9:.2f} s; iterations "
          f"{first}-{last}: median {statistics.median(window) / 1e6:.3f} ms; "
          f"final loss {final_loss:.4f}", flush=True)
    if args.times:
        write_times(wl, args, argv, ctx, w, times, total, final_loss)
    return 0


def write_times(wl, args, argv, ctx, w, times, total, final_loss):
    torch = ctx.torch
    first, last = args.window
    window = times[first:last + 1]
    try:
        import torchvision
        tv = torchvision.__version__
    except ImportError:
        tv = None
    report = {
        "workload": wl.NAME,
        "argv": sys.argv[1:] if argv is None else list(argv),
        "options": {k: v for k, v in vars(args).items() if k != "window"},
        "window": [first, last],
        "iteration_ns": times,
        "lengths": [w.lengths(i) for i in range(args.steps)] if w.lengths else None,
        "window_median_ns": statistics.median(window),
        "window_mean_ns": statistics.mean(window),
        "total_ns": total,
        "final_loss": final_loss,
        "device": torch.cuda.get_device_name(ctx.device) if ctx.cuda else
        "cpu (" + (platform.processor() or platform.machine()) + ")",
        "torch": torch.__version__,
        "torchvision": tv,
        "cuda": torch.version.cuda,
        "python": sys.version.split()[0],
        "peak_memory_bytes": torch.cuda.max_memory_allocated(ctx.device) if ctx.cuda else None,
    }
    with open(args.times, "w") as f:
        json.dump(report, f, indent=1)


def maybe_compile(ctx, module):
    """torch.compile(module) under --compile (the caller keeps the original
    module for parameters and annotation)."""
    return ctx.torch.compile(module) if ctx.args.compile else module


def lengths_of(ctx, iterations, median_full, median_tiny, max_full, max_tiny, sigma=0.5):
    """Every iteration's padded (source, target) lengths, bucketed the way
    translation and speech data are batched (utils/seqpoint_lengths.py): the
    same lengths in every variant, different ones from iteration to
    iteration, as real data gives."""
    import random
    from seqpoint_lengths import bucketed_batches
    batch = ctx.args.batch_size
    return [(a, b) for a, b, _ in bucketed_batches(
        random.Random(ctx.args.seed), iterations * batch, batch,
        ctx.pick(median_full, median_tiny), sigma, 2, ctx.pick(max_full, max_tiny))]


def image_classification(ctx, model, size, classes, loss):
    """The Workload of an image classifier: random size x size images and
    labels; loss(output, labels) is the model's loss."""
    torch = ctx.torch
    opt = ctx.optimizer(model.parameters())
    fwd = maybe_compile(ctx, model)

    def batch(i):
        g = ctx.generator(i)
        n = ctx.args.batch_size
        return (torch.randn(n, 3, size, size, generator=g),
                torch.randint(0, classes, (n,), generator=g))

    def train(b):
        x, y = b
        with ctx.forward(), ctx.autocast():
            out = loss(fwd(x), y)
        return ctx.step(opt, out)

    return Workload([("", model, opt)], batch, train)


def translation(ctx, model, vocab, lengths):
    """The Workload of a translation model(src, tgt_in) -> logits: random
    token batches of each iteration's (source, target) lengths, teacher
    forcing, label cross-entropy."""
    torch = ctx.torch
    opt = ctx.optimizer(model.parameters())
    fwd = maybe_compile(ctx, model)

    def batch(i):
        g = ctx.generator(i)
        n, (s, t) = ctx.args.batch_size, lengths[i]
        return (torch.randint(0, vocab, (n, s), generator=g),
                torch.randint(0, vocab, (n, t + 1), generator=g))

    def train(b):
        src, tgt = b
        with ctx.forward(), ctx.autocast():
            logits = fwd(src, tgt[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab),
                                                     tgt[:, 1:].reshape(-1))
        return ctx.step(opt, loss)

    return Workload([("", model, opt)], batch, train,
                    lambda i: {"seq_len": lengths[i][0], "seq_len2": lengths[i][1]})
