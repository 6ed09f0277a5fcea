"""What the training scripts share to profile themselves: the --window
argument and a torch.profiler that keeps those iterations. Used by
utils/gpu/train_resnet.py and the suite (utils/suite/harness.py); torch is
imported only when a profiler is made, so --help works without it."""
import argparse
import gzip
import os
import shutil


def parse_window(text):
    """FIRST:LAST, 0-based and inclusive, for argparse."""
    try:
        first, last = (int(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not FIRST:LAST")
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"'{text}': need 0 <= FIRST <= LAST")
    return first, last


def make_profiler(window, out, cuda, memory=False):
    """torch.profiler keeping iterations window = (FIRST, LAST), writing
    `out` (.json or .json.gz): ProfilerStep#N is iteration N because step()
    is called once at the end of each. `memory` keeps the allocator's
    events (print<memory>'s breakdown needs them). Operator shapes and
    input types are always kept: the kernel cost models work from them
    (docs/CostModels.md)."""
    from torch.profiler import ProfilerActivity, profile, schedule
    first, last = window
    warmup = min(2, first)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    out = os.path.abspath(out)
    json_path = out[:-3] if out.endswith(".gz") else out

    def ready(prof):
        prof.export_chrome_trace(json_path)
        if json_path != out:
            # Compressed here rather than by export_chrome_trace: what it does
            # with ".gz" has changed between versions.
            with open(json_path, "rb") as src, gzip.open(out, "wb", compresslevel=6) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.remove(json_path)

    return profile(activities=activities,
                   schedule=schedule(wait=first - warmup, warmup=warmup,
                                     active=last - first + 1, repeat=1),
                   on_trace_ready=ready, record_shapes=True, profile_memory=memory,
                   with_stack=False)
