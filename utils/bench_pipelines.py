"""The pipelines the benchmarks time: every pass dd-opt registers, each alone.

The names come from `dd-opt -print-passes`, so a new pass is timed without
anyone remembering to add it here. OPTIONS gives the passes whose defaults
would do nothing on a synthetic graph something to do. A pass that acts on
the ranks of a job (it needs collectives, or it compares ranks) runs on a
multi-rank graph: `multi_rank` tells which from the pass's own reference
(`dd-opt -print-pass-docs`), plus RANK_PASSES, which need several ranks
without needing collectives.
"""
import re
import subprocess

OPTIONS = {
    "scale-tasks": "factor=0.5 kind=kernel",
    "remove-tasks": "kind=memcpy",
    "retarget-gpu": "to=h100 from=v100",
    "bandwidth": "factor=2",
    "ddp-insert": "gpus=8 params-mb=100",
    "p3": "gpus=8 params-mb=100",
    "dp-ranks": "ranks=16",
    "network": "intra-gbps=200",
    "straggler": "rank=0",
    "dataloader-workers": "workers=4",
    # Every transformer block of dd-synth's graphs, every convolution of
    # gen-synthetic-kineto.py's: a whole forward recomputed.
    "activation-checkpointing": "layers=^model.layers.[0-9]+$|^aten::conv2d$",
    "batch-size": "factor=2",
    "cuda-graphs": "phase=forward,backward",
    "fsdp": "shards=8 params-mb=100",
    "grad-accumulation": "steps=2",
}

# They read or change one rank against the others: on one rank they have
# nothing to compare.
RANK_PASSES = {"straggler", "print<network>"}


def pass_names(dd_opt):
    """Every registered pass, in -print-passes order."""
    out = subprocess.run([dd_opt, "-print-passes"], check=True, capture_output=True,
                         text=True).stdout
    return [m.group(1) for m in re.finditer(r"^  (\S+)", out, re.M)]


def multi_rank(dd_opt, name):
    if name in RANK_PASSES:
        return True
    docs = subprocess.run([dd_opt, f"-print-pass-docs={name}"], check=True,
                          capture_output=True, text=True).stdout
    return "It needs collectives" in docs


def pipeline(name):
    return f"{name}{{{OPTIONS[name]}}}" if name in OPTIONS else name


def pipelines(dd_opt):
    """(one-rank pipelines, multi-rank pipelines)."""
    one, multi = [], []
    for name in pass_names(dd_opt):
        (multi if multi_rank(dd_opt, name) else one).append(pipeline(name))
    return one, multi
