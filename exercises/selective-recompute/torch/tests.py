"""Tests for the PyTorch track of selective-recompute.

Every test builds the five tensors of the block (seeded, so both runs see the same ones),
calls ``mlp_block`` and takes gradients from its result. Besides values and gradients,
the tests take two measurements of their own, with a ``TorchDispatchMode`` that sees
every aten operation run inside a ``with`` block (``Watch`` below):

- memory: the bytes of the storages created during the call (the copies ``t.call`` hands
  to the learner included) that are still alive after it, other than the result's; and,
  independently, the bytes autograd keeps for backward (``kept_for_backward``, which
  sees ``ctx.save_for_backward`` through saved-tensor hooks and in the graph itself);
  and the memory held outside torch, NumPy arrays and Python objects made during the call
  and still alive after it (``held_in_python``, with ``tracemalloc``);
- work: the multiply-adds of the matrix products run (``mm``, ``addmm``, ``bmm``, ...: what
  ``@``, ``torch.matmul``, ``torch.einsum`` and ``F.linear`` turn into), so that every
  way of writing a product is counted alike.

Both are compared with the reference's, so no expected number is written here. The
measurements of memory and work are taken with every input requiring grad and with every
size at least 2 (``einsum`` turns a contraction over a size-1 dimension into a plain
multiplication). A backward pass that raises inside a test is turned into an observation
("raised ...") only where the test goes on after it; elsewhere the error itself is shown.
"""

import gc

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from graders.sandbox.checkpointing import held_in_python, kept_for_backward
from graders.sandbox.testing import example, test

aten = torch.ops.aten

# For each matrix product that reaches the dispatcher, where its two factors are among
# the positional arguments. Composite operations (matmul, linear, einsum, tensordot,
# inner, multi_dot) are taken apart before they reach a dispatch mode, into these.
PRODUCTS = {
    aten.mm: (0, 1),
    aten.bmm: (0, 1),
    aten.mv: (0, 1),
    aten.dot: (0, 1),
    aten.vdot: (0, 1),
    aten.addmm: (1, 2),
    aten.baddbmm: (1, 2),
    aten.addbmm: (1, 2),
    aten.addmv: (1, 2),
    aten._addmm_activation: (1, 2),
}

# Bound once, when the tests load, so that nothing the learner's module does later to
# torch's classes changes what these helpers read.
STORAGE_OF = torch.Tensor.untyped_storage
DATA_PTR = torch.UntypedStorage.data_ptr
NBYTES = torch.UntypedStorage.nbytes
WEAK_REF = torch.UntypedStorage._weak_ref
EXPIRED = torch.UntypedStorage._expired
FREE_WEAK_REF = torch.UntypedStorage._free_weak_ref
NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
TENSOR = torch.Tensor

NAMES = ("x", "w1", "b1", "w2", "b2")

# The statement's tolerances, by dtype (exercise.toml states them too; validate checks).
TOLERANCES = {"float64": (1e-9, 1e-12), "float32": (1e-4, 1e-5)}


def multiply_adds(func, args):
    """The multiply-adds of one matrix product: every element of the first factor meets
    every column of the second (one column for a vector)."""
    first, second = PRODUCTS[func.overloadpacket]
    a, b = args[first], args[second]
    return a.numel() * (b.shape[-1] if b.dim() >= 2 else 1)


class Watch(TorchDispatchMode):
    """Counts the multiply-adds of matrix products run inside the block, and keeps a weak
    reference to the storage of every tensor an operation returns there."""

    def __init__(self):
        super().__init__()
        self.multiply_adds = 0
        self.storages = []  # (weak reference, address, bytes)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket in PRODUCTS:
            self.multiply_adds += multiply_adds(func, args)
        for value in out if isinstance(out, tuple | list) else (out,):
            if isinstance(value, TENSOR):
                storage = STORAGE_OF(value)
                self.storages.append((WEAK_REF(storage), DATA_PTR(storage), NBYTES(storage)))
        return out

    def bytes_alive(self, besides):
        """Bytes of the storages made in the block that are still alive, each counted
        once (a view shares its base's storage), other than those of ``besides``."""
        gc.collect(1)  # young reference cycles, if any, are not memory anyone holds
        skip = set()
        with NO_TORCH_FUNCTION():
            for value in besides:
                if isinstance(value, TENSOR):
                    skip.add(DATA_PTR(STORAGE_OF(value)))
        alive = {}
        for ref, address, size in self.storages:
            if not EXPIRED(ref) and address not in skip:
                alive[address] = size
        return sum(alive.values())

    def release(self):
        for ref, _, _ in self.storages:
            FREE_WEAK_REF(ref)
        self.storages = []


def block(dims, dtype=torch.float64, needs_grad=NAMES, x_scale=1.0):
    """The five tensors of a block with sizes (batch, d_in, hidden, d_out); those named in
    ``needs_grad`` require grad. Weights are scaled so that h is of order ``x_scale``."""
    batch, d_in, hidden, d_out = dims
    shapes = {
        "x": (batch, d_in),
        "w1": (hidden, d_in),
        "b1": (hidden,),
        "w2": (d_out, hidden),
        "b2": (d_out,),
    }
    scale = {"x": x_scale, "w1": d_in**-0.5, "b1": 0.5, "w2": hidden**-0.5, "b2": 0.5}
    tensors = {}
    for name in NAMES:
        tensor = torch.randn(shapes[name], dtype=dtype) * scale[name]
        tensors[name] = tensor.requires_grad_(name in needs_grad)
    return tensors


def size_text(dims):
    return "batch={}, d_in={}, hidden={}, d_out={}".format(*dims)


def requires_grad(value):
    return isinstance(value, TENSOR) and value.requires_grad


def attempt(action):
    """``"finished"`` when ``action()`` returns, otherwise what it raised (first line)."""
    try:
        action()
    except Exception as error:  # a backward that raises is the finding itself
        lines = str(error).strip().splitlines()
        return f"raised {type(error).__name__}: {lines[0] if lines else ''}".strip()
    return "finished"


def gradients(tensors):
    return {name: tensors[name].grad for name in NAMES}


def call_block(t, tensors):
    return t.call("mlp_block", *(tensors[name] for name in NAMES))


def worked_example_inputs():
    """The tensors of the statement's worked example, all requiring grad."""
    tensors = {
        "x": torch.tensor([[1.0, 0.0], [0.0, -1.0]]),
        "w1": torch.eye(2),
        "b1": torch.tensor([0.0, 1.0]),
        "w2": torch.tensor([[1.0, 2.0], [0.0, -1.0]]),
        "b2": torch.tensor([0.5, 0.0]),
    }
    return {name: tensor.requires_grad_() for name, tensor in tensors.items()}


def output_and_gradients(t, dims, dtype, label):
    """Call the block, backpropagate ``(y * c).sum()`` (c random: every entry of the
    upstream gradient differs) and observe the output and the five gradients."""
    tensors = block(dims, dtype)
    y = call_block(t, tensors)
    weights = torch.randn(dims[0], dims[3], dtype=dtype)
    if requires_grad(y):
        (y * weights).sum().backward()
    return {f"output {label}": t.values(y), f"gradients {label}": gradients(tensors)}


@example("the worked example: output and gradients", hint=2, tolerances=TOLERANCES)
def worked_example(t):
    tensors = worked_example_inputs()
    y = call_block(t, tensors)
    if requires_grad(y):
        y.sum().backward()
    return {"output": y, "gradients after y.sum().backward()": gradients(tensors)}


@example(
    "the worked example: 64 bytes kept, 32 multiply-adds in backward",
    hint=1,
    rtol=0,
    atol=0,
)
def worked_example_costs(t):
    tensors = worked_example_inputs()
    with kept_for_backward(t) as kept, Watch() as forward:
        y = call_block(t, tensors)
    held = forward.bytes_alive([y])
    forward.release()
    backward = Watch()
    if requires_grad(y):
        with backward:
            y.sum().backward()
    return {
        "bytes saved for backward": kept,
        "bytes still held when mlp_block returns (besides its result)": held,
        "multiply-adds of matrix products in the forward": forward.multiply_adds,
        "multiply-adds of matrix products in the backward": backward.multiply_adds,
    }


@test(
    "the output is the block's, in the input's dtype, a batch of one included",
    hint=2,
    exact_dtype=True,
    tolerances=TOLERANCES,
    reveal="summary",
)
def output_values(t):
    observed = {}
    for dims, dtype in [
        ((5, 4, 8, 3), torch.float64),
        ((1, 6, 4, 5), torch.float64),
        ((3, 3, 3, 3), torch.float32),
        ((1, 2, 7, 2), torch.float32),
    ]:
        # Large pre-activations too, where GELU is nearly linear or nearly zero.
        tensors = block(dims, dtype, x_scale=3.0)
        y = call_block(t, tensors)
        observed[f"output with {size_text(dims)}, {str(dtype).removeprefix('torch.')}"] = y
    return observed


@test(
    "gradients of x, w1, b1, w2 and b2 match the plain block",
    hint=2,
    rtol=1e-9,
    atol=1e-12,
    reveal="summary",
)
def gradient_values(t):
    observed = {}
    for dims in [(6, 4, 8, 3), (3, 5, 2, 4), (1, 3, 5, 2), (7, 1, 3, 1)]:
        observed.update(output_and_gradients(t, dims, torch.float64, f"with {size_text(dims)}"))
    return observed


@test(
    "backward keeps only x, w1, w2 and h: no GELU output, no copies, no biases",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def memory_kept(t):
    observed = {}
    for dims, dtype in [
        ((4, 3, 6, 2), torch.float32),
        ((3, 5, 2, 4), torch.float64),
        ((6, 2, 5, 3), torch.float32),
        # A GELU output of 128 KiB: a copy of it kept as Python objects (a list, bytes)
        # outweighs the few KiB any call leaves behind.
        ((32, 16, 1024, 16), torch.float32),
    ]:
        tensors = block(dims, dtype)
        label = f"with {size_text(dims)}, {str(dtype).removeprefix('torch.')}"
        with kept_for_backward(t) as kept, Watch() as watch, held_in_python(t) as held:
            y = call_block(t, tensors)
        observed[f"bytes saved for backward {label}"] = kept
        observed[f"bytes still held when mlp_block returns (besides its result) {label}"] = (
            watch.bytes_alive([y])
        )
        observed[
            f"bytes held outside torch, in NumPy arrays or Python objects (none may be) {label}"
        ] = held
        watch.release()
    return observed


@test(
    "backward runs exactly four matrix products: none of the forward again, none built by "
    "broadcasting",
    hint=3,
    rtol=0,
    atol=0,
    reveal="summary",
)
def products_in_backward(t):
    observed = {}
    for dims in [(4, 3, 6, 2), (3, 6, 2, 5), (2, 2, 9, 3)]:
        tensors = block(dims, torch.float32)
        label = f"with {size_text(dims)}"
        with Watch() as forward:
            y = call_block(t, tensors)
        forward.release()
        weights = torch.randn(dims[0], dims[3])
        backward = Watch()
        status = "not run: the output does not require grad"
        if requires_grad(y):
            with backward:
                status = attempt(lambda y=y, weights=weights: (y * weights).sum().backward())
        backward.release()
        observed[f"multiply-adds of matrix products in the forward {label}"] = forward.multiply_adds
        observed[f"backward pass {label}"] = status
        observed[f"multiply-adds of matrix products in the backward {label}"] = (
            backward.multiply_adds
        )
    return observed


@test(
    "inputs that need no gradient get none, and the others still get theirs",
    hint=3,
    tolerances=TOLERANCES,
    reveal="summary",
)
def partial_grads(t):
    observed = {}
    dims = (4, 3, 5, 2)
    for needs_grad, label in [
        (("w1", "b1", "w2", "b2"), "when x needs no gradient"),
        (("x",), "when only x needs a gradient (frozen weights)"),
        (("b1", "w2"), "when only b1 and w2 need a gradient"),
        ((), "when no input needs a gradient"),
    ]:
        tensors = block(dims, torch.float32, needs_grad)
        y = call_block(t, tensors)
        weights = torch.randn(dims[0], dims[3])
        if requires_grad(y):
            (y * weights).sum().backward()
        observed[f"output {label}"] = y  # requires_grad and grad_fn are compared too
        observed[f"gradients {label}"] = gradients(tensors)
    return observed


@test(
    "torch.autograd.grad works, and twice on the same graph gives the same gradients",
    hint=3,
    tolerances=TOLERANCES,
    reveal="summary",
)
def autograd_grad_twice(t):
    dims = (5, 4, 6, 3)
    tensors = block(dims, torch.float32)
    y = call_block(t, tensors)
    weights = torch.randn(dims[0], dims[3])
    inputs = [tensors[name] for name in NAMES]
    found = {}

    def take(key, retain):
        loss = (y * weights).sum()
        grads = torch.autograd.grad(loss, inputs, retain_graph=retain)
        found[key] = dict(zip(NAMES, grads, strict=True))

    first = second = "not run: the output does not require grad"
    if requires_grad(y):
        first = attempt(lambda: take("first", True))
        second = attempt(lambda: take("second", False))
    return {
        "torch.autograd.grad(loss, [x, w1, b1, w2, b2], retain_graph=True)": first,
        "first torch.autograd.grad": found.get("first"),
        "the same call again on the same graph": second,
        "second torch.autograd.grad": found.get("second"),
    }
