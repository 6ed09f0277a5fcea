#!/usr/bin/env python3
"""Transformer (TBD: machine translation): the base model of "Attention Is
All You Need" (6+6 layers, d_model 512, 8 heads, feed-forward 2048) with
shared embeddings and a causal target mask, label cross-entropy. Lengths
vary per iteration as bucketed translation batches do. AdamW."""
import math

import harness

NAME = "transformer"
APPLICATION = "machine translation"
TBD = True
CHANNELS_LAST = False
SEQUENCE = True
BATCH = {"full": 64, "tiny": 2}


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    vocab, d, heads = ctx.pick(32000, 300), ctx.pick(512, 32), ctx.pick(8, 4)
    layers, ff = ctx.pick(6, 1), ctx.pick(2048, 64)
    lengths = harness.lengths_of(ctx, ctx.args.steps, 25, 6, 128, 12)

    class Translator(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(256, d)
            self.transformer = nn.Transformer(d, heads, layers, layers, ff, dropout=0.1,
                                              batch_first=True)
            self.out = nn.Linear(d, vocab)

        def tokens(self, x):
            pos = torch.arange(x.shape[1], device=x.device)
            return self.embed(x) * math.sqrt(d) + self.pos(pos)

        def forward(self, src, tgt_in):
            n = tgt_in.shape[1]
            mask = torch.triu(torch.full((n, n), float("-inf"), device=src.device), 1)
            h = self.transformer(self.tokens(src), self.tokens(tgt_in), tgt_mask=mask)
            return self.out(h)

    return harness.translation(ctx, Translator(), vocab, lengths)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
