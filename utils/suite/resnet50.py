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
    return harness.image_classification(ctx, model, size, classes,
                                        torch.nn.functional.cross_entropy)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
