#!/usr/bin/env python3
"""Inception-v3 (TBD: image classification): torchvision's model with its
auxiliary classifier, 299x299 images, 1,000 classes; the loss adds the
auxiliary head's at 0.4, as the paper trains it. AdamW."""
import harness

NAME = "inception_v3"
APPLICATION = "image classification"
TBD = True
CHANNELS_LAST = True
SEQUENCE = False
BATCH = {"full": 64, "tiny": 2}


def build(ctx):
    import torchvision
    torch = ctx.torch
    F = torch.nn.functional
    # The auxiliary head's pooling and 5x5 convolution need the full
    # 299x299 image (17x17 where it branches off), too slow for a CPU smoke
    # run: tiny runs leave the head out and take 75x75 images, the smallest
    # the network's strides allow.
    size, classes, aux = ctx.pick(299, 75), ctx.pick(1000, 10), not ctx.tiny
    model = torchvision.models.inception_v3(weights=None, num_classes=classes,
                                            aux_logits=aux, init_weights=False)

    def loss(out, y):
        if not aux:
            return F.cross_entropy(out, y)
        return F.cross_entropy(out.logits, y) + 0.4 * F.cross_entropy(out.aux_logits, y)

    return harness.image_classification(ctx, model, size, classes, loss)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
