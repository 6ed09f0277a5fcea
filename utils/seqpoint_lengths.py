"""The sequence lengths of a bucketed training run, shared by the synthetic
run generator (gen-seqpoint-run.py) and the real run recorder
(record-seq-run.py), so that both draw a run's lengths the same way.

Every draw goes through random.random(), with the transforms written here
(Box-Muller, Fisher-Yates) rather than random.gauss or random.shuffle, whose
use of the generator Python does not promise to keep: a seed must give the
same run on every Python, since tests and committed runs depend on it.
"""

import math
import sys


def normal(rng):
    """A standard normal draw from two uniform ones (Box-Muller)."""
    u1 = 1.0 - rng.random()  # in (0, 1]
    u2 = rng.random()
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def shuffle(rng, items):
    """Fisher-Yates, in place."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]


def bucketed_batches(rng, sentences, batch, median_len, sigma, min_len,
                     max_len):
    """The batches of a run, in training order, as (seq_len, seq_len2, size).

    `sentences` source sentences of log-normal length (median `median_len`,
    sigma `sigma`), clipped to [min_len, max_len], each with a target about
    1.1 times as long (+-15%); sorted by length, cut into batches of `batch`
    (the last may be smaller) and the batches shuffled: bucketing, as
    translation models are trained. A batch's lengths are its longest
    source and target, what the padded batch costs.
    """
    pairs = []
    for _ in range(sentences):
        src = int(round(median_len * math.exp(sigma * normal(rng))))
        src = min(max(src, min_len), max_len)
        tgt = int(round(src * 1.1 * (1.0 + 0.15 * (2.0 * rng.random() - 1.0))))
        pairs.append((src, min(max(tgt, min_len), max_len)))
    pairs.sort()
    batches = [pairs[i:i + batch] for i in range(0, len(pairs), batch)]
    shuffle(rng, batches)
    return [(max(p[0] for p in b), max(p[1] for p in b), len(b))
            for b in batches]


def add_length_options(parser, batch, median_len, sigma, max_len):
    """The options of bucketed_batches(), with a script's defaults."""
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--median-len", type=float, default=median_len)
    parser.add_argument("--sigma", type=float, default=sigma)
    parser.add_argument("--max-len", type=int, default=max_len)


def write_run(path, comments, columns, rows):
    """A run as dd-seqpoint reads it: '#' comment lines, a header, and a line
    a row (whole numbers as such, times with one decimal); '-' is stdout."""
    out = sys.stdout if path == "-" else open(path, "w")
    with out:
        for c in comments:
            out.write("# " + c + "\n")
        out.write(",".join(columns) + "\n")
        for row in rows:
            out.write(",".join("%d" % v if isinstance(v, int) else "%.1f" % v
                               for v in row) + "\n")
