#!/usr/bin/env python3
"""A3C (TBD: deep reinforcement learning): the actor-critic network of Mnih
et al. 2016 for Atari (four stacked 84x84 frames, two convolutions, a
256-unit layer, policy and value heads) learning from 20-step rollouts:
each iteration plays the rollout (one forward per step, sampling actions)
on a synthetic environment whose frames and rewards are random, then
updates on the n-step returns (policy gradient, value loss, entropy bonus).
One learner: A3C's asynchronous workers are processes like this one, each
with its own trace. AdamW in place of shared RMSprop."""
import harness

NAME = "a3c"
APPLICATION = "deep reinforcement learning"
TBD = True
CHANNELS_LAST = True
SEQUENCE = False
BATCH = {"full": 16, "tiny": 2}
ROLLOUT = 20
ACTIONS = 6
GAMMA = 0.99


def build(ctx):
    torch = ctx.torch
    nn = torch.nn
    frame = ctx.pick(84, 36)
    conv_out = ((frame - 8) // 4 + 1 - 4) // 2 + 1

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(4, 16, 8, 4), nn.ReLU(),
                                      nn.Conv2d(16, 32, 4, 2), nn.ReLU(), nn.Flatten(),
                                      nn.Linear(32 * conv_out * conv_out, 256), nn.ReLU())
            self.policy = nn.Linear(256, ACTIONS)
            self.value = nn.Linear(256, 1)

        def forward(self, x):
            h = self.body(x)
            return self.policy(h), self.value(h).squeeze(-1)

    model = ActorCritic()
    opt = ctx.optimizer(model.parameters())
    fwd = harness.maybe_compile(ctx, model)
    fmt = ctx.memory_format()

    def batch(i):
        # --batch-size environments played side by side.
        g = ctx.generator(i)
        n = ctx.args.batch_size
        return (torch.rand(ROLLOUT + 1, n, 4, frame, frame, generator=g),
                torch.rand(ROLLOUT, n, generator=g).lt(0.05).float())

    def train(b):
        frames, rewards = b
        log_probs, values, entropies = [], [], []
        with ctx.forward(), ctx.autocast():
            for t in range(ROLLOUT):
                logits, value = fwd(frames[t].contiguous(memory_format=fmt))
                dist = torch.distributions.Categorical(logits=logits.float())
                action = dist.sample()
                log_probs.append(dist.log_prob(action))
                entropies.append(dist.entropy())
                values.append(value.float())
            with torch.no_grad():
                ret = fwd(frames[ROLLOUT].contiguous(memory_format=fmt))[1].float()
            policy_loss = value_loss = 0
            for t in reversed(range(ROLLOUT)):
                ret = rewards[t] + GAMMA * ret
                advantage = ret - values[t]
                value_loss = value_loss + 0.5 * advantage.pow(2).mean()
                policy_loss = policy_loss - (log_probs[t] * advantage.detach()).mean() \
                    - 0.01 * entropies[t].mean()
            loss = policy_loss + 0.5 * value_loss
        return ctx.step(opt, loss)

    return harness.Workload([("", model, opt)], batch, train)


if __name__ == "__main__":
    raise SystemExit(harness.run(__import__(__name__)))
