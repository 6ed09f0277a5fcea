#!/usr/bin/env python3
"""Seq2Seq (TBD: machine translation, after NMT/Sockeye): an LSTM
encoder-decoder with Luong (dot) attention, teacher forcing, label
cross-entropy. Source and target lengths vary per iteration, bucketed the
way a translation corpus is batched (median 25 tokens), so iterations
differ as real ones do: what dd-seqpoint chooses among. AdamW."""
import harness

NAME = "seq2seq"
APPLICATION = "machine translation"
TBD = True
CHANNELS_LAST = False
SEQUENCE = True
BATCH = {"full": 128, "tiny": 2}


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    vocab, hidden, layers = ctx.pick(32000, 300), ctx.pick(1024, 32), ctx.pick(2, 1)
    lengths = harness.lengths_of(ctx, ctx.args.steps, 25, 6, 100, 12)

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_embed = nn.Embedding(vocab, hidden)
            self.tgt_embed = nn.Embedding(vocab, hidden)
            self.encoder = nn.LSTM(hidden, hidden, layers, batch_first=True)
            self.decoder = nn.LSTM(hidden, hidden, layers, batch_first=True)
            self.combine = nn.Linear(2 * hidden, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, src, tgt_in):
            enc, state = self.encoder(self.src_embed(src))
            dec, _ = self.decoder(self.tgt_embed(tgt_in), state)
            # Luong attention over the whole target at once (teacher forcing).
            weights = torch.softmax(torch.bmm(dec, enc.transpose(1, 2)), dim=-1)
            context = torch.bmm(weights, enc)
            return self.out(torch.tanh(self.combine(torch.cat([dec, context], dim=-1))))

    return harness.translation(ctx, Seq2Seq(), vocab, lengths)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
