"""A toy imitation of the parts of PyTorch that utils/ddtrace_nvtx.py touches.

Just enough to check the ranges that module pushes without PyTorch: modules
with forward and full backward hooks, tensors whose grad_fn is a graph node,
in-place ops that move a tensor's grad_fn (ReLU(inplace=True), out += x),
parameters with AccumulateGrad nodes, an optimizer with step hooks, and a
backward engine that runs nodes on one persistent worker thread, highest
sequence number first among the ready ones, as PyTorch's device threads do.
Every op "launches a kernel": it calls launch(name), which tests point at a
RecordingBackend's mark() to see which range each launch lands in.
"""
import heapq
import itertools
import queue
import threading

_seq = itertools.count()
launch = print  # replaced by the tests


class RemovableHandle:
    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


class Node:
    def __init__(self, name, inputs, on_run=None):
        self._name = name
        self.next_functions = tuple((_edge(t), 0) for t in inputs)
        self.seq = next(_seq)
        self.pre, self.post = [], []
        self.on_run = on_run

    def name(self):
        return self._name

    def register_prehook(self, fn):
        self.pre.append(fn)
        return RemovableHandle(self.pre, fn)

    def register_hook(self, fn):
        self.post.append(fn)
        return RemovableHandle(self.post, fn)

    def run(self):
        for h in list(self.pre):
            h(("grad_output",))
        if self.on_run:
            self.on_run()
        else:
            launch(self._name)
        for h in list(self.post):
            h(("grad_input",), ("grad_output",))


class AccumulateGrad(Node):
    def __init__(self, param):
        super().__init__("AccumulateGrad", [])
        self.variable = param
        # As in PyTorch: runs as soon as it is ready.
        self.seq += 10 ** 12


def _edge(t):
    if t.grad_fn is not None:
        return t.grad_fn
    if t.requires_grad:
        if t.accumulator is None:
            t.accumulator = AccumulateGrad(t)
        return t.accumulator
    return None


class Tensor:
    def __init__(self, name, grad_fn=None, requires_grad=False):
        self.name, self.grad_fn = name, grad_fn
        self.requires_grad = requires_grad or grad_fn is not None
        self.accumulator = None


def param(name):
    return Tensor(name, requires_grad=True)


def op(name, *inputs):
    """An out-of-place op: a new tensor with a new graph node."""
    launch(name)
    if any(t.requires_grad for t in inputs):
        return Tensor(name, Node(name + "Backward", inputs))
    return Tensor(name)


def op_(name, t, *others):
    """An in-place op on t: t's grad_fn moves to a new node after the old."""
    launch(name)
    if t.requires_grad or any(o.requires_grad for o in others):
        t.grad_fn = Node(name + "Backward", (t,) + others)
        t.requires_grad = True
    return t


class Module:
    def __init__(self):
        object.__setattr__(self, "_children", {})
        self._pre, self._post, self._bpre, self._bpost = [], [], [], []

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._children[name] = value
        object.__setattr__(self, name, value)

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in self._children.items():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def register_forward_pre_hook(self, hook, *, with_kwargs=False):
        item = (hook, with_kwargs)
        self._pre.append(item)
        return RemovableHandle(self._pre, item)

    def register_forward_hook(self, hook, *, with_kwargs=False, always_call=False):
        item = (hook, with_kwargs, always_call)
        self._post.append(item)
        return RemovableHandle(self._post, item)

    def register_full_backward_pre_hook(self, hook):
        self._bpre.append(hook)
        return RemovableHandle(self._bpre, hook)

    def register_full_backward_hook(self, hook):
        self._bpost.append(hook)
        return RemovableHandle(self._bpost, hook)

    def __call__(self, *args):
        for hook, with_kwargs in list(self._pre):
            hook(self, args, {}) if with_kwargs else hook(self, args)
        backward_hooks = self._bpre or self._bpost
        if backward_hooks:
            # As torch's BackwardHook: identity nodes around the inputs
            # (their backward ends the module's) and the output (starts it).
            args = tuple(self._wrap(a, self._bpost, "in") for a in args)
        try:
            out = self.forward(*args)
        except Exception:
            for hook, with_kwargs, always in list(self._post):
                if always:
                    hook(self, args, {}, None) if with_kwargs else hook(self, args, None)
            raise
        if backward_hooks:
            if not any(a.requires_grad for a in args):
                out = self._wrap(out, self._bpre + self._bpost, "out")
            else:
                out = self._wrap(out, self._bpre, "out")
        for hook, with_kwargs, _ in list(self._post):
            hook(self, args, {}, out) if with_kwargs else hook(self, args, out)
        return out

    def _wrap(self, t, hooks, where):
        if not t.requires_grad:
            return t

        def run():
            for h in list(hooks):
                if h in self._bpre:
                    h(self, ("grad_output",))
                else:
                    h(self, ("grad_input",), ("grad_output",))
        return Tensor(t.name, Node(f"BackwardHookFunctionBackward({where})", (t,), run))


class Optimizer:
    def __init__(self, params):
        self.params = params
        self._pre, self._post = [], []

    def register_step_pre_hook(self, hook):
        self._pre.append(hook)
        return RemovableHandle(self._pre, hook)

    def register_step_post_hook(self, hook):
        self._post.append(hook)
        return RemovableHandle(self._post, hook)

    def step(self):
        for h in list(self._pre):
            h(self, (), {})
        launch("multi_tensor_apply")
        for h in list(self._post):
            h(self, (), {})


class SGD(Optimizer):
    pass


class _Engine:
    """One persistent worker thread, like PyTorch's thread per CUDA device."""

    def __init__(self):
        self.jobs = queue.Queue()
        self.thread = threading.Thread(target=self._work, name="autograd", daemon=True)
        self.thread.start()

    def _work(self):
        while True:
            fn, done = self.jobs.get()
            try:
                fn()
            finally:
                done.set()

    def run(self, fn):
        done = threading.Event()
        self.jobs.put((fn, done))
        done.wait()


_engine = None


def backward(loss):
    """Runs loss's graph on the engine thread: a node runs once every node
    that feeds it ran, and among ready nodes the newest first."""
    global _engine
    if _engine is None:
        _engine = _Engine()

    def run():
        deps, seen, todo = {}, {id(loss.grad_fn)}, [loss.grad_fn]
        while todo:
            n = todo.pop()
            for nxt, _ in n.next_functions:
                if nxt is None:
                    continue
                deps[id(nxt)] = deps.get(id(nxt), 0) + 1
                if id(nxt) not in seen:
                    seen.add(id(nxt))
                    todo.append(nxt)
        ready = [(-loss.grad_fn.seq, loss.grad_fn)]
        while ready:
            _, n = heapq.heappop(ready)
            n.run()
            for nxt, _ in n.next_functions:
                if nxt is None:
                    continue
                deps[id(nxt)] -= 1
                if deps[id(nxt)] == 0:
                    heapq.heappush(ready, (-nxt.seq, nxt))
    _engine.run(run)
