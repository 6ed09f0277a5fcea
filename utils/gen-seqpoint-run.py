#!/usr/bin/env python3
"""Write a SYNTHETIC whole training run of a GNMT-like sequence model.

dd-seqpoint (docs/SeqPoint.md) reads a run as CSV: one line an iteration,
with its sequence lengths and its time. This makes such a run without a
GPU or a model, for tests and for the docs' synthetic evidence; it is not a
measurement, and the file says so in its first lines.

How the run is made (every draw from Python's random.random(), through
the transforms of seqpoint_lengths.py, so a seed gives the same file on
every Python):

- The data set: --sentences source sentences whose lengths (tokens) are
  log-normal (median --median-len, sigma --sigma), clipped to
  [1, --max-len], as in WMT-style corpora: many short sentences, a long tail.
  Each target sentence is about 1.1 times its source, +-15%.
- Batching by buckets, as GNMT's training does: sentences are sorted by
  length, cut into batches of --batch, and the batches shuffled. An
  iteration's seq_len is the longest source sentence of its batch (what the
  padded batch costs), seq_len2 the longest target.
- Time: fixed + per-token + attention (quadratic) costs of the padded batch,
  time_us = F + A*(seq_len + seq_len2) + Q*seq_len*seq_len2, times a
  log-normal noise of --noise (relative), so iterations of one length
  differ as real ones do. The noise has its own generator (--noise-seed,
  default: --seed + 1), so that the same run (same --seed, same lengths in
  the same order) can be made again as another recording: other noise,
  other costs (a faster GPU: smaller --fixed-us, --token-us,
  --attention-us), for dd-seqpoint -other-run.

Columns: iteration,seq_len,seq_len2,batch,time_us.

    utils/gen-seqpoint-run.py --seed 1 -o synthetic-gnmt.csv
    dd-seqpoint synthetic-gnmt.csv -lengths=seq_len,seq_len2
"""

import argparse
import math
import random
import sys

from seqpoint_lengths import (add_length_options, bucketed_batches, normal,
                              write_run)


def make_run(args):
    rng = random.Random(args.seed)
    batches = bucketed_batches(rng, args.sentences, args.batch,
                               args.median_len, args.sigma, 1, args.max_len)
    noise = random.Random(args.seed + 1 if args.noise_seed is None
                          else args.noise_seed)
    rows = []
    for iteration, (src, tgt, size) in enumerate(batches):
        ideal = (args.fixed_us + args.token_us * (src + tgt) +
                 args.attention_us * src * tgt) * size / args.batch
        time_us = ideal * math.exp(args.noise * normal(noise))
        rows.append((iteration, src, tgt, size, time_us))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1,
                   help="decides the lengths and their order (default 1)")
    p.add_argument("--noise-seed", type=int, default=None,
                   help="decides the noise (default: --seed + 1)")
    p.add_argument("--sentences", type=int, default=256000)
    add_length_options(p, batch=64, median_len=22.0, sigma=0.55, max_len=80)
    p.add_argument("--fixed-us", type=float, default=9000.0)
    p.add_argument("--token-us", type=float, default=420.0)
    p.add_argument("--attention-us", type=float, default=3.2)
    p.add_argument("--noise", type=float, default=0.02,
                   help="relative noise of an iteration's time (default 0.02)")
    p.add_argument("-o", "--output", default="-")
    args = p.parse_args(argv)
    if args.sentences < 2 * args.batch:
        p.error("--sentences must make at least two batches")
    rows = make_run(args)
    made_by = " ".join(a for a in (argv if argv is not None else sys.argv[1:])
                       if a not in ("-o", "--output", args.output))
    write_run(args.output,
              ["SYNTHETIC run, not a measurement: made by "
               "utils/gen-seqpoint-run.py " + made_by,
               "GNMT-like: bucketed batches of log-normal sentence lengths; "
               "time = fixed + per-token + attention + noise"],
              ["iteration", "seq_len", "seq_len2", "batch", "time_us"], rows)


if __name__ == "__main__":
    main()
