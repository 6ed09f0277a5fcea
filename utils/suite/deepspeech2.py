#!/usr/bin/env python3
"""DeepSpeech2 (TBD: speech recognition): two 2-D convolutions over a
spectrogram (161 frequency bins, 100 frames a second), five bidirectional
GRU layers of 800, a linear layer to 29 characters, CTC loss. Utterance
lengths vary per iteration, bucketed (median 6 s, at most 15 s), as
LibriSpeech batches do. AdamW."""
import harness

NAME = "deepspeech2"
APPLICATION = "speech recognition"
TBD = True
CHANNELS_LAST = False
SEQUENCE = True
BATCH = {"full": 32, "tiny": 2}


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    freq, hidden, layers, chars = ctx.pick(161, 41), ctx.pick(800, 32), ctx.pick(5, 2), 29
    # Lengths in frames (10 ms each); transcripts about one character per
    # 4 frames after the convolutions' stride of 2.
    lengths = harness.lengths_of(ctx, ctx.args.steps, ctx.pick(600, 40), 0.4,
                                 ctx.pick(1500, 80), ctx.pick(1500, 80))

    class ClippedReLU(nn.Module):
        """min(max(x, 0), 20), the paper's activation. Not nn.Hardtanh:
        its backward has no bf16 CPU kernel in some PyTorch versions."""

        def forward(self, x):
            return x.clamp(0, 20)

    class DeepSpeech2(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(
                nn.Conv2d(1, 32, (41, 11), stride=(2, 2), padding=(20, 5)),
                nn.BatchNorm2d(32), ClippedReLU(),
                nn.Conv2d(32, 32, (21, 11), stride=(2, 1), padding=(10, 5)),
                nn.BatchNorm2d(32), ClippedReLU())
            rows = (freq + 1) // 2
            rows = (rows + 1) // 2
            self.rnn = nn.GRU(32 * rows, hidden, layers, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(2 * hidden, chars)

        def forward(self, spec):                 # (batch, 1, freq, time)
            x = self.conv(spec)                  # (batch, 32, rows, time / 2)
            x = x.flatten(1, 2).transpose(1, 2)  # (batch, time / 2, 32 * rows)
            x, _ = self.rnn(x)
            return self.fc(x).log_softmax(-1)

    model = DeepSpeech2()
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)
    ctc = nn.CTCLoss(zero_infinity=True)

    def batch(i):
        g = ctx.generator(i)
        n, frames = ctx.args.batch_size, lengths[i][0]
        chars_n = max(1, frames // 4)
        return (torch.randn(n, 1, freq, frames, generator=g),
                torch.randint(1, chars, (n, chars_n), generator=g))

    def train(b):
        spec, text = b
        with ctx.forward(), ctx.autocast():
            logp = fwd(spec).float()             # CTC wants fp32
        n, steps = logp.shape[0], logp.shape[1]
        loss = ctc(logp.transpose(0, 1), text,
                   torch.full((n,), steps, dtype=torch.long),
                   torch.full((n,), text.shape[1], dtype=torch.long))
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train,
                            lambda i: {"seq_len": lengths[i][0]})


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
