#!/usr/bin/env python3
"""DLRM (added to TBD's eight for today's workloads): Naumov et al.'s
recommendation model with Criteo's shape: 13 dense features through a
bottom MLP (512-256-64), 26 categorical features looked up in embedding
bags of 64 (100,000 rows each here, so that the model builds in seconds;
Criteo's largest have 40 million), pairwise dot-product interaction, a top
MLP (512-256-1), binary cross-entropy. Dense embedding gradients, so AdamW (and --fused-adam)
update them."""
import harness

NAME = "dlrm"
APPLICATION = "recommendation"
TBD = False
CHANNELS_LAST = False
SEQUENCE = False
BATCH = {"full": 2048, "tiny": 8}
DENSE, TABLES = 13, 26


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    rows, dim = ctx.pick(100000, 1000), ctx.pick(64, 16)
    pooling = 1

    def mlp(sizes, last_act):
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*(layers if last_act else layers[:-1]))

    class DLRM(nn.Module):
        def __init__(self):
            super().__init__()
            self.bottom = mlp([DENSE, 512, 256, dim], True)
            self.tables = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum")
                                        for _ in range(TABLES))
            pairs = (TABLES + 1) * TABLES // 2
            self.top = mlp([dim + pairs, 512, 256, 1], False)

        def forward(self, dense, sparse):
            x = self.bottom(dense)
            n = dense.shape[0]
            offsets = torch.arange(0, n * pooling, pooling, device=dense.device)
            emb = [t(sparse[:, k], offsets) for k, t in enumerate(self.tables)]
            feats = torch.stack([x] + emb, dim=1)            # (n, 27, dim)
            dots = torch.bmm(feats, feats.transpose(1, 2))
            i, j = torch.tril_indices(TABLES + 1, TABLES + 1, -1, device=dense.device)
            return self.top(torch.cat([x, dots[:, i, j]], dim=1)).squeeze(-1)

    model = DLRM()
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)

    def batch(i):
        g = ctx.generator(i)
        n = ctx.args.batch_size
        return (torch.rand(n, DENSE, generator=g),
                torch.randint(0, rows, (n, TABLES), generator=g),
                torch.rand(n, generator=g).lt(0.25).float())

    def train(b):
        dense, sparse, clicked = b
        with ctx.forward(), ctx.autocast():
            logits = fwd(dense, sparse).float()
            loss = nn.functional.binary_cross_entropy_with_logits(logits, clicked)
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
