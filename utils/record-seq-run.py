#!/usr/bin/env python3
"""Record a REAL training run of a small sequence model: each iteration's
sequence lengths and measured time, as the CSV dd-seqpoint reads.

The model is a GRU encoder-decoder (sequence to sequence, teacher forcing)
trained with Adam on synthetic token data, so that nothing is downloaded.
What matters to SeqPoint is real: every iteration runs forward, backward and
the optimizer step on batches whose padded length varies the way a
translation corpus's does, and its time is measured on the device.

The data: --iterations * --batch source sentences with log-normal lengths
(median --median-len tokens, sigma --sigma, clipped to [2, --max-len]),
targets about 1.1 times as long; sorted, cut into batches of --batch and the
batches shuffled (bucketing, as GNMT-style training does), so an iteration's
seq_len is its longest source sentence and seq_len2 its longest target.
Tokens are random; the model still learns their (random) mapping, which is
irrelevant to the timing. With the same --seed the same lengths come in the
same order, so two recordings under other settings (--threads, --device)
are the same run, which dd-seqpoint -other-run checks.

Timing: time.perf_counter() around each whole iteration (zero_grad,
forward, loss, backward, step) is time_us, the wall-clock time; on CUDA,
torch.cuda.synchronize() before reading the clock at both ends, so that
queued kernels are counted in their iteration. cpu_us is the process's CPU
time over the same span (time.process_time()): on a CPU run with one
thread it equals time_us on an idle machine, and unlike time_us it does not
count the time other processes held the core, so on a shared machine it is
the steadier measure of the iteration's own cost (dd-seqpoint
-time-column=cpu_us reads it). --warmup iterations of random lengths run
first, unrecorded (allocator and kernel caches).

    /usr/bin/python3 utils/record-seq-run.py --device cpu -o run.csv
    /usr/bin/python3 utils/record-seq-run.py --device cuda -o run-gpu.csv

Needs PyTorch (Debian: apt-get install python3-torch, for /usr/bin/python3).
"""

import argparse
import platform
import random
import time

from seqpoint_lengths import add_length_options, bucketed_batches, write_run


def lengths(args):
    """The batches' (seq_len, seq_len2, batch) in training order."""
    return bucketed_batches(random.Random(args.seed),
                            args.iterations * args.batch, args.batch,
                            args.median_len, args.sigma, 2, args.max_len)


def build(torch, args, device):
    nn = torch.nn

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_embed = nn.Embedding(args.vocab, args.embed)
            self.tgt_embed = nn.Embedding(args.vocab, args.embed)
            self.encoder = nn.GRU(args.embed, args.hidden, batch_first=True)
            self.decoder = nn.GRU(args.embed, args.hidden, batch_first=True)
            self.out = nn.Linear(args.hidden, args.vocab)

        def forward(self, src, tgt_in):
            _, state = self.encoder(self.src_embed(src))
            dec, _ = self.decoder(self.tgt_embed(tgt_in), state)
            return self.out(dec)

    model = Seq2Seq().to(device)
    return model, torch.optim.Adam(model.parameters(), lr=1e-3)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--iterations", type=int, default=1200)
    p.add_argument("--warmup", type=int, default=10)
    add_length_options(p, batch=16, median_len=18.0, sigma=0.5, max_len=64)
    p.add_argument("--vocab", type=int, default=500)
    p.add_argument("--embed", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--threads", type=int, default=0,
                   help="torch.set_num_threads (default: leave as is)")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                   help="the model's precision (another setting of the same run)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-o", "--output", default="-")
    args = p.parse_args(argv)

    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device is available to this PyTorch")
    torch.set_default_dtype(getattr(torch, args.dtype))
    model, optimizer = build(torch, args, device)
    loss_fn = torch.nn.CrossEntropyLoss()
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)

    def step(src_len, tgt_len, batch):
        src = torch.randint(0, args.vocab, (batch, src_len), device=device)
        tgt = torch.randint(0, args.vocab, (batch, tgt_len + 1), device=device)
        optimizer.zero_grad()
        logits = model(src, tgt[:, :-1])
        loss = loss_fn(logits.reshape(-1, args.vocab), tgt[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()

    warm = random.Random(args.seed + 1)
    for _ in range(args.warmup):
        step(warm.randint(2, args.max_len), warm.randint(2, args.max_len), args.batch)

    rows = []
    for iteration, (src_len, tgt_len, batch) in enumerate(lengths(args)):
        sync()
        start, cpu_start = time.perf_counter(), time.process_time()
        step(src_len, tgt_len, batch)
        sync()
        rows.append((iteration, src_len, tgt_len, batch,
                     (time.perf_counter() - start) * 1e6,
                     (time.process_time() - cpu_start) * 1e6))

    where = (torch.cuda.get_device_name(0) if args.device == "cuda"
             else platform.processor() or platform.machine())
    write_run(args.output, [
        "REAL run recorded by utils/record-seq-run.py on %s (%s), torch %s, "
        "%d threads, %s" % (args.device, where, torch.__version__,
                            torch.get_num_threads(), args.dtype),
        "GRU seq2seq, batch %d, embed %d, hidden %d, vocab %d; lengths "
        "log-normal median %g sigma %g max %d, bucketed; seed %d" % (
            args.batch, args.embed, args.hidden, args.vocab, args.median_len,
            args.sigma, args.max_len, args.seed)],
        ["iteration", "seq_len", "seq_len2", "batch", "time_us", "cpu_us"],
        rows)


if __name__ == "__main__":
    main()
