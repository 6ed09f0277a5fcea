#!/usr/bin/env python3
"""WGAN (TBD: adversarial learning): a DCGAN generator and critic for 64x64
images trained with the Wasserstein loss and gradient penalty (WGAN-GP,
Gulrajani et al.): five critic updates, then one generator update, per
iteration. Both use AdamW (betas 0.5, 0.9), so --fused-adam changes both."""
import harness

NAME = "wgan"
APPLICATION = "adversarial learning"
TBD = True
CHANNELS_LAST = True
SEQUENCE = False
BATCH = {"full": 64, "tiny": 2}
CRITIC_STEPS = 5


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    if ctx.args.compile:
        # The gradient penalty differentiates the critic's gradient, and
        # torch.compile's AOT autograd refuses double backward.
        raise harness.Unsupported("--compile: torch.compile does not support the double "
                                  "backward of WGAN-GP's gradient penalty")
    z_dim, width = ctx.pick(128, 16), ctx.pick(64, 8)
    size = ctx.pick(64, 16)
    ups = {64: 4, 16: 2}[size]

    gen_layers = [nn.ConvTranspose2d(z_dim, width * 2 ** (ups - 1), 4, 1, 0, bias=False),
                  nn.BatchNorm2d(width * 2 ** (ups - 1)), nn.ReLU(True)]
    for k in range(ups - 1, 0, -1):
        gen_layers += [nn.ConvTranspose2d(width * 2 ** k, width * 2 ** (k - 1), 4, 2, 1,
                                          bias=False),
                       nn.BatchNorm2d(width * 2 ** (k - 1)), nn.ReLU(True)]
    gen_layers += [nn.ConvTranspose2d(width, 3, 4, 2, 1, bias=False), nn.Tanh()]
    generator = nn.Sequential(*gen_layers)

    # The critic has no batch norm: the gradient penalty is per sample.
    crit_layers = [nn.Conv2d(3, width, 4, 2, 1), nn.LeakyReLU(0.2, True)]
    for k in range(ups - 1):
        crit_layers += [nn.Conv2d(width * 2 ** k, width * 2 ** (k + 1), 4, 2, 1),
                        nn.LeakyReLU(0.2, True)]
    crit_layers += [nn.Conv2d(width * 2 ** (ups - 1), 1, 4, 1, 0), nn.Flatten()]
    critic = nn.Sequential(*crit_layers)

    def adam(params):
        opt = ctx.optimizer(params)
        for group in opt.param_groups:
            group["betas"] = (0.5, 0.9)
        return opt

    opt_g, opt_c = adam(generator.parameters()), adam(critic.parameters())
    gen_fwd, crit_fwd = harness.maybe_compile(ctx, generator), harness.maybe_compile(ctx, critic)
    fmt = ctx.memory_format()

    def batch(i):
        g = ctx.generator(i)
        n = ctx.args.batch_size
        return (torch.rand(CRITIC_STEPS, n, 3, size, size, generator=g) * 2 - 1,
                torch.randn(CRITIC_STEPS + 1, n, z_dim, 1, 1, generator=g),
                torch.rand(CRITIC_STEPS, n, 1, 1, 1, generator=g))

    def train(b):
        real, noise, mix = b
        for k in range(CRITIC_STEPS):
            # The generator's step left gradients in the critic too.
            opt_c.zero_grad(set_to_none=True)
            x = real[k].contiguous(memory_format=fmt)
            with ctx.forward(), ctx.autocast():
                fake = gen_fwd(noise[k].contiguous(memory_format=fmt)).detach()
                between = (mix[k] * x + (1 - mix[k]) * fake).requires_grad_(True)
                score = crit_fwd(between)
                grad, = torch.autograd.grad(score.sum(), between, create_graph=True)
                penalty = ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()
                loss_c = crit_fwd(fake).mean() - crit_fwd(x).mean() + 10 * penalty
            ctx.step(opt_c, loss_c)
        with ctx.forward(), ctx.autocast():
            loss_g = -crit_fwd(gen_fwd(noise[CRITIC_STEPS].contiguous(memory_format=fmt))).mean()
        return ctx.step(opt_g, loss_g)

    return harness.Workload([("generator", generator, opt_g), ("critic", critic, opt_c)],
                            batch, train)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
