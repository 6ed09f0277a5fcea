#!/usr/bin/env python3
"""Faster R-CNN (TBD: object detection): torchvision's ResNet-50 FPN
detector trained from scratch on COCO-shaped images (resized to 800 pixels
on the short side, 91 classes) with five random boxes each; the loss is the
sum of the RPN's and the heads' losses. AdamW. Images are a list, as
detection batches are; no --channels-last (torchvision batches them
itself)."""
import harness

NAME = "faster_rcnn"
APPLICATION = "object detection"
TBD = True
CHANNELS_LAST = False
SEQUENCE = False
BATCH = {"full": 8, "tiny": 1}


def build(ctx):
    from torchvision.models.detection import fasterrcnn_resnet50_fpn
    torch = ctx.torch
    if ctx.args.amp and not ctx.cuda:
        raise harness.Unsupported("--amp: torchvision's CPU detection kernels (nms) "
                                  "have no bf16 version")
    side = ctx.pick(800, 128)
    # Tiny runs also keep fewer proposals and sampled regions, whose CPU
    # kernels (NMS, RoIAlign) would dominate a smoke run.
    small = {} if not ctx.tiny else dict(
        rpn_pre_nms_top_n_train=200, rpn_post_nms_top_n_train=100,
        box_batch_size_per_image=64, rpn_batch_size_per_image=64)
    model = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=91,
                                    min_size=side, max_size=ctx.pick(1333, 160), **small)
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)

    def batch(i):
        g = ctx.generator(i)
        images, boxes, labels = [], [], []
        for _ in range(ctx.args.batch_size):
            h, w = side, int(side * 4 / 3)
            images.append(torch.rand(3, h, w, generator=g))
            xy = torch.rand(5, 2, generator=g) * torch.tensor([w * 0.7, h * 0.7])
            wh = torch.rand(5, 2, generator=g) * torch.tensor([w * 0.3, h * 0.3]) + 8
            boxes.append(torch.cat([xy, xy + wh], dim=1))
            labels.append(torch.randint(1, 91, (5,), generator=g))
        return images, boxes, labels

    def train(b):
        images, boxes, labels = b
        targets = [{"boxes": bx, "labels": lb} for bx, lb in zip(boxes, labels)]
        with ctx.forward(), ctx.autocast():
            losses = fwd(images, targets)
            loss = sum(losses.values())
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
