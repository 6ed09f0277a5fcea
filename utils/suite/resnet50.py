#!/usr/bin/env python3
"""ResNet-50 (TBD: image classification): torchvision's model, ImageNet
shapes (224x224, 1,000 classes), cross-entropy, AdamW. Run with --help;
utils/suite/harness.py has the loop and the switches."""
import harness

NAME = "resnet50"
APPLICATION = "image classification"
TBD = True
CHANNELS_LAST = True
SEQUENCE = False
BATCH = {"full": 64, "tiny": 2}


def build(ctx):
    import torchvision
    torch = ctx.torch
    size, classes = ctx.pick(224, 32), ctx.pick(1000, 10)
    model = torchvision.models.resnet50(weights=None, num_classes=classes)
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)

    def batch(i):
        g = ctx.generator(i)
        n = ctx.args.batch_size
        return (torch.randn(n, 3, size, size, generator=g),
                torch.randint(0, classes, (n,), generator=g))

    def train(b):
        x, y = b
        with ctx.forward(), ctx.autocast():
            loss = torch.nn.functional.cross_entropy(fwd(x), y)
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
