#!/usr/bin/env python3
"""A GPT-style decoder language model (added to TBD's eight for today's
workloads): GPT-2 small's shape (12 layers, d_model 768, 12 heads, 50,257
tokens), pre-norm blocks, causal self-attention, next-token cross-entropy.
Documents are not packed: each iteration is padded to its longest
document, so lengths vary per iteration (median 512 tokens, at most 1,024).
AdamW."""
import harness

NAME = "gpt"
APPLICATION = "language modelling"
TBD = False
CHANNELS_LAST = False
SEQUENCE = True
BATCH = {"full": 8, "tiny": 2}


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    vocab, d, heads, layers = (ctx.pick(50257, 300), ctx.pick(768, 32), ctx.pick(12, 4),
                               ctx.pick(12, 2))
    context = ctx.pick(1024, 16)
    lengths = harness.lengths_of(ctx, ctx.args.steps, ctx.pick(512, 8), 8, context - 1,
                                 context - 1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x, mask):
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(context, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            n = idx.shape[1]
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device=idx.device), 1)
            x = self.wte(idx) + self.wpe(torch.arange(n, device=idx.device))
            for block in self.blocks:
                x = block(x, mask)
            return self.head(self.ln_f(x))

    model = GPT()
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)

    def batch(i):
        n = lengths[i][0]
        return torch.randint(0, vocab, (ctx.args.batch_size, n + 1), generator=ctx.generator(i))

    def train(tokens):
        with ctx.forward(), ctx.autocast():
            logits = fwd(tokens[:, :-1])
            loss = nn.functional.cross_entropy(logits.reshape(-1, vocab),
                                               tokens[:, 1:].reshape(-1))
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train,
                            lambda i: {"seq_len": lengths[i][0]})


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
