"""Drives utils/ddtrace_nvtx.py over toy_autograd's imitation of PyTorch and
prints the ranges each scenario records (see test/Utils/ddtrace-nvtx.test).

Usage: nvtx_toy.py UTILS_DIR
"""
import os
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ddtrace_nvtx as nvtx  # noqa: E402
import toy_autograd as ta  # noqa: E402


class Conv(ta.Module):
    def __init__(self, name):
        super().__init__()
        self.w = ta.param(name + ".w")

    def forward(self, x):
        return ta.op("conv", x, self.w)


class BN(ta.Module):
    def __init__(self):
        super().__init__()
        self.w = ta.param("bn.w")

    def forward(self, x):
        return ta.op("bn", x, self.w)


class ReLU(ta.Module):  # inplace=True
    def forward(self, x):
        return ta.op_("relu_", x)


class Block(ta.Module):
    """A residual block whose sum is in place, as torchvision's BasicBlock."""

    def __init__(self):
        super().__init__()
        self.conv = Conv("block.conv")
        self.act = ReLU()

    def forward(self, x):
        out = self.act(self.conv(x))
        return ta.op_("add_", out, x)


class Linear(ta.Module):
    def __init__(self):
        super().__init__()
        self.w = ta.param("head.w")

    def forward(self, x):
        return ta.op("linear", x, self.w)


class Toy(ta.Module):
    def __init__(self, extra=None):
        super().__init__()
        self.stem = Conv("stem")
        self.bn = BN()
        self.act = ReLU()
        self.block = Block()
        if extra is not None:
            self.extra = extra
        self.head = Linear()

    def forward(self, x):
        x = self.act(self.bn(self.stem(x)))
        x = self.block(x)
        if "extra" in self._children:
            x = self.extra(x)
        return self.head(x)


class Raises(ta.Module):
    """Raises in forward on the iterations listed."""

    def __init__(self, when):
        super().__init__()
        self.when, self.calls = when, 0

    def forward(self, x):
        self.calls += 1
        if self.calls - 1 in self.when:
            raise RuntimeError("boom")
        return x


class WithAux(ta.Module):
    """Returns (out, aux); the loss uses only out, so the node of aux (which
    ends the module's part of the graph: it depends on a parameter alone)
    never runs and the module's backward range is never closed by its hooks."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.w = ta.param("aux.w")

    def forward(self, x):
        return self.inner(x), ta.op("aux", self.w)


def train(model, opt, steps, loss_to_backward=True):
    for i in range(steps):
        try:
            with nvtx.iteration(i):
                with nvtx.forward():
                    out = model(ta.Tensor("x"))
                    if isinstance(out, tuple):
                        out = out[0]
                    loss = ta.op("loss", out)
                with nvtx.backward(loss if loss_to_backward else None):
                    ta.backward(loss)
                opt.step()
        except RuntimeError as e:
            print(f"iteration {i} raised: {e}")


def scenario(title, build, steps=1, backend=None, loss_to_backward=True, **kwargs):
    print(f"== {title} ==")
    rec = nvtx.RecordingBackend()
    nvtx.set_backend(backend(rec) if backend else rec)
    ta.launch = rec.mark
    before = nvtx.stats()
    model = build()
    opt = ta.SGD([])
    handle = nvtx.annotate(model, opt, **kwargs)
    train(model, opt, steps, loss_to_backward)
    print(rec.render())
    after = nvtx.stats()
    delta = {k: after.get(k, 0) - before.get(k, 0) for k in sorted(after)}
    depths = sorted(rec.depths().values())
    print("depths:", depths)
    print("stats:", " ".join(f"{k}={v}" for k, v in delta.items() if v))
    return model, opt, handle, rec


class FailOn:
    """A backend whose push raises for names containing a word."""

    def __init__(self, word, inner):
        self.word, self.inner = word, inner

    def range_push(self, name):
        if self.word in name:
            raise OSError("nvtx is down")
        self.inner.range_push(name)

    def range_pop(self):
        self.inner.range_pop()


def main():
    import warnings
    warnings.simplefilter("always")
    warnings.showwarning = lambda msg, *a, **k: print(f"warning: {msg}")

    scenario("graph", Toy)
    scenario("forward raises", lambda: Toy(Raises({1})), steps=3)
    scenario("failing backend", Toy, backend=lambda rec: FailOn("block.act", rec))
    scenario("module hooks", Toy, backward="module")
    scenario("stale", lambda: WithAux(Toy()), steps=2, loss_to_backward=False)

    print("== removed ==")
    rec = nvtx.RecordingBackend()
    nvtx.set_backend(rec)
    ta.launch = rec.mark
    model, opt = Toy(), ta.SGD([])
    nvtx.annotate(model, opt).remove()
    train(model, opt, 1)
    print(rec.render())

    try:
        nvtx.annotate(Toy(), backward="full")
    except ValueError as e:
        print("error:", e)

    # Last: a PyTorch whose graph nodes take no pre-hooks (before 2.0) turns
    # graph backward ranges off for good.
    def no_prehooks(node, fn):
        raise AttributeError("'Node' object has no attribute 'register_prehook'")
    ta.Node.register_prehook = no_prehooks
    scenario("no node pre-hooks", Toy, steps=2)


if __name__ == "__main__":
    main()
