"""NVTX ranges that let dd-trace map a PyTorch model's GPU work to layers and phases.

dd-trace records CUDA calls and the NVTX ranges around them; the lowering
(lib/Import/Attribution.cpp) attributes each call to the innermost range
open on its thread and reads phases and iterations from the range names.
This module pushes exactly those ranges::

    import ddtrace_nvtx                      # utils/ on sys.path
    handle = ddtrace_nvtx.annotate(model, optimizer)
    for i, (x, y) in enumerate(batches):
        with ddtrace_nvtx.iteration(i):
            optimizer.zero_grad(set_to_none=True)
            with ddtrace_nvtx.forward():
                loss = loss_fn(model(x), y)
            with ddtrace_nvtx.backward(loss):
                loss.backward()
            optimizer.step()
            torch.cuda.synchronize()          # optional: a well-defined end
    handle.remove()

and record with ``dd-trace -o run.ddir -window=5:14 -- python train.py``.

The ranges, and what the lowering makes of them:

======================================== ====================================
``step#<i>``                             iteration i (``-window`` counts these)
``## forward ##``                        forward phase
``nn.Module: layer1.0.conv1``            the layer of the module's forward work
``## backward ##``                       backward phase
``## backward ## nn.Module: layer1.0``   that module's backward work
``Optimizer.step#AdamW.step``            optimizer phase (torch.profiler's name)
======================================== ====================================

dd-trace's ``-window`` counts iteration ranges in the order they start,
from 0, whatever number they carry: number iterations from 0 so that
``-window=5:14`` keeps ``step#5`` to ``step#14``.

Module names are ``named_modules()`` paths (``prefix`` is put in front; the
model itself is named by ``prefix`` or its class). Backward layers keep the
module path, so a layer pattern such as ``layer1\\.0\\.conv1$`` selects the
module's forward and backward work alike.

Backward ranges: PyTorch runs a CUDA backward pass on its own autograd
thread, and NVTX ranges belong to the thread that pushes them, so backward
ranges are pushed from hooks that run on that thread. By default
(``backward="graph"``) they are hooks on the autograd graph itself: after a
module's forward, its output's graph node gets a pre-hook (the module's
backward starts there) and the nodes where its part of the graph ends get
post-hooks (the range closes once all of them ran). Full module backward
hooks (``backward="module"``) are also offered, but PyTorch refuses them on
any model that modifies a module's input or output in place (``ReLU(
inplace=True)``, ``out += identity`` in torchvision's ResNet: "Output 0 of
BackwardHookFunctionBackward is a view and is being modified inplace"),
which graph hooks never touch. ``backward(loss)`` also opens one
``## backward ##`` range on the autograd thread around the whole pass, so
work outside any module (the loss's backward) is in the backward phase too.

Robustness: every hook catches its own exceptions (the first failure of
each kind is reported once as a RuntimeWarning; ``stats()`` counts them),
so a failing NVTX call or an unexpected graph never stops training. Each
thread keeps a stack of the ranges this module opened; closing a range also
closes whatever was opened inside it and left open (a forward that raised),
and a backward range left open (a graph node that never ran) is closed when
the next iteration's backward starts on that thread, so pushes and pops stay
balanced.

The NVTX calls go through a backend: ``torch.cuda.nvtx`` unless
``set_backend()`` or ``annotate(..., backend=...)`` names another object
with ``range_push(name)`` and ``range_pop()``. ``RecordingBackend`` records
the ranges instead, per thread: tests use it, and it shows what a model
would record without a GPU. This module imports torch only when the default
backend is first used.
"""

import collections
import contextlib
import sys
import threading
import warnings

FORWARD = "## forward ##"
BACKWARD = "## backward ##"
MODULE_PREFIX = "nn.Module: "
BACKWARD_MODULE_PREFIX = BACKWARD + " " + MODULE_PREFIX

# A graph walk visiting more nodes than this gives up on that module's
# backward range rather than stall the forward pass.
WALK_LIMIT = 50000

__all__ = [
    "FORWARD", "BACKWARD", "annotate", "iteration", "forward", "backward",
    "section", "set_backend", "get_backend", "stats", "RecordingBackend",
    "iteration_name", "module_range_name", "backward_range_name",
    "optimizer_range_name",
]


def iteration_name(i):
    """The range of iteration i; dd-trace's window counts ranges so named."""
    return f"step#{i}"


def module_range_name(name):
    return MODULE_PREFIX + name


def backward_range_name(name):
    return BACKWARD_MODULE_PREFIX + name


def optimizer_range_name(optimizer):
    # Same as torch.optim's record_function, so both collectors agree.
    cls = type(optimizer).__name__
    return f"Optimizer.step#{cls}.step"


class _TorchNvtx:
    """torch.cuda.nvtx, imported on first use."""

    def __init__(self):
        self._nvtx = None

    def _module(self):
        if self._nvtx is None:
            import torch.cuda.nvtx as nvtx
            self._nvtx = nvtx
        return self._nvtx

    def range_push(self, name):
        self._module().range_push(name)

    def range_pop(self):
        self._module().range_pop()


class RecordingBackend:
    """Records ranges instead of emitting them.

    ``events`` holds (thread id, thread name, "push" | "pop" | "mark", text)
    tuples in the order they happened. ``render()`` prints them one per line,
    indented by each thread's own depth, with threads labelled "main", "t1",
    "t2"... in order of appearance.
    """

    def __init__(self):
        self.events = []
        self._lock = threading.Lock()

    def _add(self, kind, text):
        t = threading.current_thread()
        with self._lock:
            self.events.append((threading.get_ident(), t.name, kind, text))

    def range_push(self, name):
        self._add("push", name)

    def range_pop(self):
        self._add("pop", None)

    def mark(self, text):
        self._add("mark", text)

    def depths(self):
        """Each thread's depth after the last event: 0 when balanced, negative
        when it popped more than it pushed."""
        depth = collections.Counter()
        for tid, _, kind, _ in self.events:
            depth[tid] += {"push": 1, "pop": -1}.get(kind, 0)
        return dict(depth)

    def render(self):
        main = threading.main_thread().ident
        labels, depth, lines = {main: "main"}, collections.Counter(), []
        for tid, _, kind, text in self.events:
            if tid not in labels:
                labels[tid] = f"t{len(labels)}"
            label = labels[tid]
            if kind == "pop":
                depth[tid] -= 1
                lines.append(f"{label}: {'  ' * max(depth[tid], 0)}pop")
            else:
                lines.append(f"{label}: {'  ' * max(depth[tid], 0)}{kind} {text}")
                if kind == "push":
                    depth[tid] += 1
        return "\n".join(lines)


class _Entry:
    """One range this module opened, on the stack of the thread that opened it."""

    __slots__ = ("key", "kind", "gen", "backend", "inputs")

    def __init__(self, key, kind, gen, backend):
        self.key, self.kind, self.gen, self.backend = key, kind, gen, backend
        self.inputs = None  # a forward range's input nodes, once taken


class _BackwardRange:
    """A module's backward range in one pass: opened by the first of its
    output nodes to run, closed when its last end node has run."""

    __slots__ = ("name", "depth", "gen", "backend", "remaining", "opened", "entry")

    def __init__(self, name, depth, gen, backend, ends):
        self.name, self.depth, self.gen, self.backend = name, depth, gen, backend
        self.remaining, self.opened, self.entry = ends, False, None


class _NodeHooks:
    """The one pre-hook and post-hook pair each graph node gets, whatever
    number of modules start or end there: outer modules must open first and
    close last, which per-module hooks (run in registration order, inner
    module first) would get backwards."""

    __slots__ = ("starts", "ends")

    def __init__(self):
        self.starts, self.ends = [], []

    def pre(self, grad_outputs):
        _STATE.guard("backward range start", _STATE.open_backward, self.starts)
        return None

    def post(self, grad_inputs, grad_outputs):
        _STATE.guard("backward range end", _STATE.close_backward, self.ends)
        return None


class _State:
    """Per-thread range stacks, shared by every annotation and context
    manager of this module, so that closing one range can close what was left
    open inside it whoever opened it."""

    def __init__(self):
        self.local = threading.local()
        self.lock = threading.Lock()
        self.backend = None
        self.generation = 0
        # Graph nodes given hooks in this generation, by id: the node is kept
        # with its hooks so that the id cannot be reused by another node.
        # Once the graph has run its saved tensors are freed, so what this
        # keeps until the next iteration is small.
        self.nodes = {}
        # Set when this PyTorch cannot hook graph nodes (before 2.0): graph
        # backward ranges are then skipped rather than failing each time.
        self.graph_hooks_broken = False
        self.counts = collections.Counter()
        self.warned = set()

    # -- helpers -----------------------------------------------------------
    def default_backend(self):
        if self.backend is None:
            self.backend = _TorchNvtx()
        return self.backend

    def stack(self):
        s = getattr(self.local, "stack", None)
        if s is None:
            s = self.local.stack = []
        return s

    def count(self, what, n=1):
        with self.lock:
            self.counts[what] += n

    def fail(self, what, exc):
        self.count("errors")
        if what not in self.warned:
            self.warned.add(what)
            warnings.warn(f"ddtrace_nvtx: {what} failed ({type(exc).__name__}: {exc}); "
                          "training goes on, some ranges may be missing",
                          RuntimeWarning, stacklevel=3)

    def guard(self, what, fn, *args):
        """fn(*args), with any exception counted and reported once."""
        try:
            return fn(*args)
        except Exception as exc:  # a hook must never break training
            self.fail(what, exc)
            return None

    def new_generation(self):
        with self.lock:
            self.generation += 1
            self.nodes = {}

    # -- the stacks ----------------------------------------------------------
    def push(self, name, backend, key, kind, gen=None):
        """Opens a range on this thread; None if the backend failed (then
        nothing is left to pop)."""
        try:
            backend.range_push(name)
        except Exception as exc:
            self.fail("range push", exc)
            return None
        entry = _Entry(key, kind, self.generation if gen is None else gen, backend)
        self.stack().append(entry)
        self.count("pushes")
        return entry

    def find(self, key):
        """The innermost open range of this thread with this key."""
        stack = self.stack()
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].key == key:
                return stack[i]
        return None

    def pop_to(self, entry, counter="forced_pops"):
        """Closes entry and every range opened after it on this thread,
        innermost first. False if entry is not open on this thread."""
        stack = self.stack()
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is entry:
                break
        else:
            self.count("unmatched_pops")
            return False
        while len(stack) > i:
            e = stack.pop()
            if e is not entry:
                self.count(counter)
            try:
                e.backend.range_pop()
            except Exception as exc:
                self.fail("range pop", exc)
            self.count("pops")
        return True

    def drop_stale(self, gen):
        """Closes backward ranges of earlier generations still open on this
        thread (their last node never ran)."""
        stack = self.stack()
        for e in stack:
            if e.kind == "backward" and e.gen < gen:
                self.pop_to(e, counter="stale_pops")
                self.count("stale_pops")
                return

    # -- backward ranges on graph nodes ------------------------------------
    def hooks_of(self, node):
        key = id(node)
        found = self.nodes.get(key)
        if found is not None:
            return found[1]
        hooks = _NodeHooks()
        # Pre-hook first: on a PyTorch without node pre-hooks (before 2.0)
        # this fails before anything is registered on the node.
        try:
            node.register_prehook(hooks.pre)
            node.register_hook(hooks.post)
        except Exception:
            self.graph_hooks_broken = True
            raise
        self.nodes[key] = (node, hooks)
        return hooks

    def attach_backward(self, name, depth, backend, outputs, boundary, gen):
        """Gives the graph part between the nodes of the tensors in outputs
        and the boundary nodes (those of the inputs) a backward range."""
        if self.graph_hooks_broken:
            return
        bound_ids = {id(n) for n in boundary}
        outs = [n for n in _grad_nodes(outputs) if id(n) not in bound_ids]
        if not outs:
            return
        ends = _end_nodes(outs, bound_ids)
        if ends is None:
            self.count("walk_limit")
            return
        rng = _BackwardRange(name, depth, gen, backend, len(ends))
        for n in outs:
            self.hooks_of(n).starts.append(rng)
        for n in ends:
            self.hooks_of(n).ends.append(rng)

    def open_backward(self, ranges):
        for rng in sorted(ranges, key=lambda r: r.depth):
            with self.lock:
                if rng.opened:
                    continue
                rng.opened = True
            self.drop_stale(rng.gen)
            rng.entry = self.push(rng.name, rng.backend, rng, "backward", rng.gen)

    def close_backward(self, ranges):
        for rng in sorted(ranges, key=lambda r: -r.depth):
            with self.lock:
                rng.remaining -= 1
                done = rng.remaining == 0
            if done and rng.entry is not None:
                self.pop_to(rng.entry)
                rng.entry = None


_STATE = _State()


def _tensors(obj, depth=0):
    """The tensor-like objects (anything with grad_fn) in nested args."""
    if hasattr(obj, "grad_fn"):
        yield obj
    elif depth < 4 and isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _tensors(x, depth + 1)
    elif depth < 4 and isinstance(obj, dict):
        for x in obj.values():
            yield from _tensors(x, depth + 1)


def _grad_nodes(obj):
    """The distinct graph nodes that produced the tensors in obj."""
    seen, nodes = set(), []
    for t in _tensors(obj):
        n = getattr(t, "grad_fn", None)
        if n is not None and id(n) not in seen:
            seen.add(id(n))
            nodes.append(n)
    return nodes


def _is_leaf(node):
    # Gradient accumulation into a parameter runs once all of its uses are
    # done, possibly long after the module's backward: not part of it.
    return type(node).__name__ == "AccumulateGrad"


def _end_nodes(outs, bound_ids):
    """The nodes of the graph part reachable from outs, not going past the
    boundary nodes (the inputs' producers) or into parameters, that lead to
    no other node of that part: backward runs them last. None when the part
    has more than WALK_LIMIT nodes."""
    inside = {id(n): n for n in outs}
    todo, ends = list(outs), []
    while todo:
        node = todo.pop()
        inner = False
        for nxt, _ in getattr(node, "next_functions", ()):
            if nxt is None or id(nxt) in bound_ids or _is_leaf(nxt):
                continue
            inner = True
            if id(nxt) not in inside:
                if len(inside) >= WALK_LIMIT:
                    return None
                inside[id(nxt)] = nxt
                todo.append(nxt)
        if not inner:
            ends.append(node)
    return ends


def _grad_enabled():
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "is_grad_enabled"):
        return True
    return torch.is_grad_enabled()


# -- public API ---------------------------------------------------------------

def set_backend(backend):
    """Sends this module's ranges to backend (range_push(name), range_pop());
    None restores torch.cuda.nvtx. Returns the previous backend."""
    previous = _STATE.backend
    _STATE.backend = backend
    return previous


def get_backend():
    return _STATE.default_backend()


def stats():
    """Counters since the module was loaded: pushes, pops, errors,
    forced_pops (ranges closed because an enclosing one closed),
    unmatched_pops, stale_pops, walk_limit."""
    with _STATE.lock:
        return dict(_STATE.counts)


@contextlib.contextmanager
def section(name, backend=None):
    """A range named name around the block, on this thread."""
    entry = _STATE.guard("range push", _STATE.push, name,
                         backend or _STATE.default_backend(), object(), "context")
    try:
        yield
    finally:
        if entry is not None:
            _STATE.guard("range pop", _STATE.pop_to, entry)


@contextlib.contextmanager
def iteration(i, name=None, backend=None):
    """Marks one training iteration ("step#<i>"). Backward ranges left open
    by the previous iteration are closed when this one's backward starts."""
    _STATE.new_generation()
    local = _STATE.local
    local.in_iteration = getattr(local, "in_iteration", 0) + 1
    try:
        with section(name or iteration_name(i), backend):
            yield
    finally:
        local.in_iteration -= 1


def forward(backend=None):
    """The forward phase ("## forward ##")."""
    return section(FORWARD, backend)


@contextlib.contextmanager
def backward(loss=None, backend=None):
    """The backward phase ("## backward ##") on this thread; given the loss,
    also on the autograd thread, for the whole backward pass of its graph."""
    backend = backend or _STATE.default_backend()
    if loss is not None and _grad_enabled():
        _STATE.guard("backward graph hooks", _STATE.attach_backward, BACKWARD, -1,
                     backend, loss, (), _STATE.generation)
    with section(BACKWARD, backend):
        yield


class Handle:
    """What annotate() returns: remove() takes every hook off; stats() as
    the module's."""

    def __init__(self):
        self.active = True
        self.handles = []

    def remove(self):
        # Ranges already open are still closed by their hooks: only new
        # ones are refused.
        self.active = False
        for h in self.handles:
            try:
                h.remove()
            except Exception:
                pass
        self.handles = []

    @staticmethod
    def stats():
        return stats()


def _register(handle, what, fn, *args, **kwargs):
    """fn(*args, **kwargs), keeping the removable handle; falls back to no
    keyword arguments where this PyTorch does not know them."""
    try:
        try:
            h = fn(*args, **kwargs)
        except TypeError:
            if not kwargs:
                raise
            h = fn(*args)
        handle.handles.append(h)
        return True
    except Exception as exc:
        _STATE.fail(f"registering {what}", exc)
        return False


def annotate(model, optimizer=None, prefix="", backward="graph", backend=None):
    """Pushes a range around each module's forward and backward and around
    each optimizer step (see the module's doc). backward: "graph"
    (default), "module" (full backward hooks; not for in-place models) or
    None. Returns a Handle."""
    if backward not in ("graph", "module", None, "none"):
        raise ValueError(f"backward must be 'graph', 'module' or None, not {backward!r}")
    backward = None if backward == "none" else backward
    handle = Handle()

    def backend_now():
        return backend or _STATE.default_backend()

    for path, module in model.named_modules():
        if path:
            name = f"{prefix}.{path}" if prefix else path
        else:
            name = prefix or type(model).__name__
        depth = path.count(".") + 1 if path else 0
        _annotate_module(handle, module, module is model, name, depth, backward, backend_now)

    if optimizer is not None:
        key = ("optimizer", id(optimizer))
        opt_name = optimizer_range_name(optimizer)

        def step_pre(opt, args, kwargs):
            if handle.active:
                _STATE.guard("range push", _STATE.push, opt_name, backend_now(), key, "optimizer")

        def step_post(opt, args, kwargs):
            entry = _STATE.find(key)
            if entry is not None:
                _STATE.guard("range pop", _STATE.pop_to, entry)

        if hasattr(optimizer, "register_step_pre_hook"):
            _register(handle, "optimizer step pre-hook", optimizer.register_step_pre_hook,
                      step_pre)
            _register(handle, "optimizer step post-hook", optimizer.register_step_post_hook,
                      step_post)
        else:
            _register(handle, "optimizer step wrapper", _StepWrapper, optimizer, step_pre,
                      step_post)
    return handle


class _StepWrapper:
    """PyTorch before 2.0 has no optimizer step hooks: the instance's step
    is wrapped instead (the hooks guard themselves), and remove() puts the
    class's step back."""

    def __init__(self, optimizer, pre, post):
        self.optimizer = optimizer
        original = optimizer.step

        def step(*args, **kwargs):
            pre(optimizer, args, kwargs)
            try:
                return original(*args, **kwargs)
            finally:
                post(optimizer, args, kwargs)

        optimizer.step = step

    def remove(self):
        self.optimizer.__dict__.pop("step", None)


def _annotate_module(handle, module, is_root, name, depth, backward, backend_now):
    key = ("forward", id(module))
    fwd_name = module_range_name(name)
    bwd_name = backward_range_name(name)

    def start(args, kwargs):
        local = _STATE.local
        if is_root and not getattr(local, "in_iteration", 0):
            _STATE.new_generation()
        entry = _STATE.push(fwd_name, backend_now(), key, "forward")
        if entry is not None and backward == "graph" and _grad_enabled() \
                and not _STATE.graph_hooks_broken:
            # The producers of the inputs bound the module's part of the
            # graph; keep them now, before the module can modify its
            # inputs in place.
            entry.inputs = _grad_nodes((args, kwargs))

    def end(output):
        entry = _STATE.find(key)
        if entry is None:
            return
        inputs = entry.inputs
        entry.inputs = None
        _STATE.pop_to(entry)
        if inputs is not None and handle.active and _grad_enabled():
            _STATE.guard("backward graph hooks", _STATE.attach_backward, bwd_name, depth,
                         backend_now(), output, inputs, _STATE.generation)

    def pre_hook(mod, args, kwargs=None):
        if handle.active:
            _STATE.guard("forward range start", start, args, kwargs)
        return None

    def post_hook(mod, args, *rest):
        # (args, output) or, with kwargs, (args, kwargs, output).
        _STATE.guard("forward range end", end, rest[-1] if rest else None)
        return None

    _register(handle, "forward pre-hook", module.register_forward_pre_hook, pre_hook,
              with_kwargs=True)
    # always_call: the hook runs even when forward raises, closing the range.
    _register(handle, "forward hook", module.register_forward_hook, post_hook,
              with_kwargs=True, always_call=True)

    if backward == "module":
        bkey = ("backward-module", id(module))

        def bw_pre(mod, grad_output):
            if handle.active:
                gen = _STATE.generation
                _STATE.guard("stale range close", _STATE.drop_stale, gen)
                _STATE.guard("range push", _STATE.push, bwd_name, backend_now(), bkey,
                             "backward", gen)
            return None

        def bw_post(mod, grad_input, grad_output):
            entry = _STATE.find(bkey)
            if entry is not None:
                _STATE.guard("range pop", _STATE.pop_to, entry)
            return None

        _register(handle, "full backward pre-hook",
                  module.register_full_backward_pre_hook, bw_pre)
        _register(handle, "full backward hook", module.register_full_backward_hook, bw_post)
