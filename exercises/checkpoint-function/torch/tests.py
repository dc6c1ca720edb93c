"""Tests for the PyTorch track of checkpoint-function.

Every comparison is exact (rtol=0, atol=0): a checkpoint replays the very same operations,
so the output and every gradient are bit for bit those of plain autograd. Besides the
reference's observations, several tests compute the plain-autograd gradients themselves
(with torch.autograd.grad, which leaves every .grad alone) and observe whether the
learner's gradients equal them: that is no secret, and it makes the message plain.

What the tests observe, and not the source: which counted modules run during the forward
pass and during backward, the bytes of the tensors autograd keeps for backward during the
call (saved-tensor hooks see what ``ctx.save_for_backward`` keeps), the result's autograd
flags, gradients, and random numbers drawn by the caller around the backward pass. A
backward pass that raises is an observation too ("backward pass: raised ..."), so that
the modules that ran before the error are still shown.
"""

import itertools

import torch
from torch import nn

from graders.sandbox.checkpointing import counting_modules, kept_for_backward, recording
from graders.sandbox.testing import example, test


class WeightedSum(nn.Module):
    """The statement's worked example: ``(x * w).sum() * scale``."""

    def forward(self, x, w, scale):
        return (x * w).sum() * scale


class Mixer(nn.Module):
    """A function of tensors and plain values in which every argument changes the result."""

    NAMES = ("x", "power", "index", "scale", "mode", "bias", "w", "c")

    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.requiring_grad = []  # per call: the tensor arguments that required grad

    def forward(self, x, power, index, scale, mode, bias, w, c):
        arguments = zip(self.NAMES, (x, power, index, scale, mode, bias, w, c), strict=True)
        self.requiring_grad.append(
            [name for name, a in arguments if isinstance(a, torch.Tensor) and a.requires_grad]
        )
        h = self.linear(x) * w + c
        h = h.index_select(1, index) ** power * scale
        if bias is not None:
            h = h + bias
        return torch.tanh(h) if mode == "tanh" else torch.sin(h)


class Affine(nn.Module):
    """``tanh(linear(x) * w + shift)``: a layer with parameters and two more arguments."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)

    def forward(self, x, w, shift):
        return torch.tanh(self.linear(x) * w + shift)


def counted(*modules):
    """The modules as a counting nn.ModuleList (seeded, so the same weights in both runs)."""
    return counting_modules(nn.ModuleList(modules))


def mlp(sizes):
    """An nn.Sequential of counting layers: Linear, Tanh, Linear, ..., ending with a Linear."""
    modules = []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        if i:
            modules.append(nn.Tanh())
        modules.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*counted(*modules))


def attempt(action):
    """``"finished"`` when ``action()`` returns, otherwise what it raised (first line)."""
    try:
        action()
    except Exception as error:  # a wrong backward raises; that is the finding
        lines = str(error).strip().splitlines()
        return f"raised {type(error).__name__}: {lines[0] if lines else ''}".strip()
    return "finished"


def needs_grad(value):
    return isinstance(value, torch.Tensor) and value.requires_grad


def loss_of(output):
    return (output**2).sum()


def backward(t, output):
    """``loss_of(output).backward()``, recorded; the calls and how it ended."""
    status = "not run: the result does not require grad"
    with recording(t, "backward") as calls:
        if needs_grad(output):
            status = attempt(lambda: loss_of(output).backward())
    return {"calls during backward": calls, "backward pass": status}


def plain_gradients(fn, args, wrt):
    """Gradients of ``loss_of(fn(*args))`` by plain autograd, for the tensors in ``wrt``
    (touching no .grad)."""
    return torch.autograd.grad(loss_of(fn(*args)), wrt)


def same(got, plain):
    """Whether each gradient got is exactly the plain one (False where one is missing)."""
    return len(got) == len(plain) and all(
        isinstance(g, torch.Tensor) and g.shape == p.shape and torch.equal(g, p)
        for g, p in zip(got, plain)
    )


def fresh(x):
    """A leaf copy of ``x`` with the same requires_grad, for a plain-autograd run."""
    return x.detach().clone().requires_grad_(x.requires_grad)


def mixer_args(x_requires_grad, power, scale, mode, with_bias, w_requires_grad=True, width=6):
    """Arguments for Mixer: tensors of several kinds between plain values."""
    x = torch.randn(3, width, requires_grad=x_requires_grad)
    index = torch.tensor([4, 0, 2])  # an integer tensor: it can never require grad
    bias = torch.randn(3, requires_grad=True) if with_bias else None
    w = torch.randn(width, requires_grad=w_requires_grad)
    c = torch.randn(width)  # a float tensor that does not require grad
    return [x, power, index, scale, mode, bias, w, c]


def gradient_report(args, label):
    """The .grad of each tensor argument of Mixer, after a backward pass."""
    names = ["x", "power", "index", "scale", "mode", "bias", "w", "c"]
    return {
        f"gradient of {name}{label}": arg.grad
        for name, arg in zip(names, args, strict=True)
        if isinstance(arg, torch.Tensor)
    }


@example("the worked example: (x * w).sum() * scale", hint=1, rtol=0, atol=0)
def worked_example(t):
    fn = counted(WeightedSum())[0]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    with recording(t, "forward") as calls:
        output = t.call("checkpoint", fn, x, w, 2.0)
    observed = {"result": output, "calls during forward": calls}
    observed.update(backward(t, output))
    observed["gradient of x"] = x.grad
    observed["gradient of w"] = w.grad
    return observed


@example(
    "a small network runs once in the forward pass and once more in backward",
    hint=2,
    rtol=0,
    atol=0,
)
def small_network(t):
    net = mlp([3, 4, 2])
    x = torch.randn(2, 3, requires_grad=True)
    with recording(t, "forward") as calls:
        output = t.call("checkpoint", net, x)
    observed = {"result": output, "calls during forward": calls}
    observed.update(backward(t, output))
    observed["gradient of x"] = x.grad
    observed["gradients of the parameters"] = t.grads(net)
    return observed


@test(
    "the forward pass runs fn once, records no graph and keeps only the tensor arguments",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def forward_pass(t):
    net = mlp([4, 16, 16, 3])
    x = torch.randn(5, 4, requires_grad=True)
    with recording(t, "forward") as calls, kept_for_backward(t, parameters_of=net) as kept:
        output = t.call("checkpoint", net, x)
    observed = {
        "result": output,
        "calls during forward": calls,
        # The activations of the 16-wide layers would show here if fn recorded a graph.
        "bytes autograd keeps for backward": kept,
    }

    mixer = counted(Mixer(6))
    args = mixer_args(True, 2, 0.5, "tanh", with_bias=True)
    with recording(t, "forward") as calls, kept_for_backward(t, parameters_of=mixer) as kept:
        output = t.call("checkpoint", mixer[0], *args)
    label = " with five tensor arguments among plain values"
    observed[f"result{label}"] = output
    observed[f"calls during forward{label}"] = calls
    observed[f"bytes autograd keeps for backward{label}"] = kept
    return observed


@test(
    "backward replays fn once and gives exactly the gradients of plain autograd",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def backward_pass(t):
    layers = counted(
        nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3), nn.Tanh()
    )
    first, second = nn.Sequential(*layers[:3]), nn.Sequential(*layers[3:])
    x = torch.randn(5, 4, requires_grad=True)
    parameters = list(layers.parameters())
    x_plain = fresh(x)
    plain = plain_gradients(lambda a: second(first(a)), [x_plain], [x_plain, *parameters])

    # Two checkpoints in a row: the input of the second is the output of the first.
    with recording(t, "forward") as calls:
        hidden = t.call("checkpoint", first, x)
        output = t.call("checkpoint", second, hidden)
    observed = {"result": output, "calls during forward": calls}
    observed.update(backward(t, output))
    observed["gradient of x"] = x.grad
    observed["gradients of the parameters"] = t.grads(layers)
    grads = [x.grad, *(p.grad for p in parameters)]
    observed["gradients equal those of plain autograd"] = same(grads, plain)
    return observed


@test(
    "torch.autograd.grad goes through the checkpoint as well as .backward()",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def autograd_grad(t):
    fn = counted(Affine(3, 4))[0]
    x = torch.randn(5, 3, requires_grad=True)
    w = torch.randn(4, requires_grad=True)
    x_plain, w_plain = fresh(x), fresh(w)
    plain = plain_gradients(lambda a, b: fn(a, b, 0.5), [x_plain, w_plain], [x_plain, w_plain])

    output = t.call("checkpoint", fn, x, w, 0.5)
    found = []
    status = "not run: the result does not require grad"
    with recording(t, "torch.autograd.grad") as calls:
        if needs_grad(output):
            status = attempt(lambda: found.extend(torch.autograd.grad(loss_of(output), [x, w])))
    return {
        "result": output,
        "calls during torch.autograd.grad(loss, [x, w])": calls,
        "torch.autograd.grad(loss, [x, w])": status,
        "gradients of x and w from torch.autograd.grad": found or None,
        "gradients of x and w equal those of plain autograd": same(found, plain),
    }


@test(
    "the replay draws the same random numbers, and the caller's random stream is left alone",
    hint=3,
    rtol=0,
    atol=0,
    reveal="summary",
)
def randomness(t):
    layers = counted(
        nn.Linear(4, 8),
        nn.Dropout(0.5),  # training mode: dropout draws a random mask
        nn.Tanh(),
        nn.Linear(8, 8),
        nn.Dropout(0.25),
        nn.Linear(8, 2),
    )
    net = nn.Sequential(*layers)
    x = torch.randn(6, 4, requires_grad=True)
    start = torch.get_rng_state()
    with recording(t, "forward") as calls:
        output = t.call("checkpoint", net, x)
    observed = {"result": output, "calls during forward": calls}
    # The caller goes on drawing between the forward pass and backward, and after it.
    observed["random numbers the caller draws between forward and backward"] = torch.rand(5)
    observed.update(backward(t, output))
    observed["random numbers the caller draws after backward"] = torch.rand(5)
    observed["gradient of x"] = x.grad
    observed["gradients of the parameters"] = t.grads(net)

    # Plain autograd from the same random state draws the same dropout masks.
    torch.set_rng_state(start)
    x_plain = fresh(x)
    parameters = list(net.parameters())
    plain = plain_gradients(net, [x_plain], [x_plain, *parameters])
    grads = [x.grad, *(p.grad for p in parameters)]
    observed["gradients equal those of plain autograd with the same dropout masks"] = same(
        grads, plain
    )
    return observed


@test(
    "plain arguments and tensors that need no gradient pass through and get none",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def plain_arguments(t):
    observed = {}
    cases = [
        (" (x requires grad, bias=None)", mixer_args(True, 2, 0.5, "tanh", with_bias=False)),
        (" (x needs no grad, bias requires grad)", mixer_args(False, 3, -1.5, "sin", True)),
    ]
    for label, args in cases:
        mixer = counted(Mixer(6))
        with recording(t, "forward") as calls:
            output = t.call("checkpoint", mixer[0], *args)
        observed[f"result{label}"] = output
        observed[f"calls during forward{label}"] = calls
        # No record of the backward calls here: a record belongs to a call and would be
        # shown before the error a wrong backward raises, which says more.
        status = "not run: the result does not require grad"
        if needs_grad(output):
            status = attempt(lambda output=output: loss_of(output).backward())
        observed[f"backward pass{label}"] = status
        # The replay gets each tensor detached, with its argument's requires_grad (the
        # forward call, left out, may take its tensors detached or not: no graph either way).
        key = f"tensor arguments that require grad when the replay runs fn{label}"
        observed[key] = mixer[0].requiring_grad[1:]
        observed.update(gradient_report(args, label))
        observed[f"gradients of the parameters{label}"] = t.grads(mixer)
    return observed


@test(
    "when no tensor argument requires grad, the result does not either",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def nothing_requires_grad(t):
    net = mlp([4, 6, 3])
    x = torch.randn(3, 4)
    with recording(t, "forward") as calls:
        output = t.call("checkpoint", net, x)
    observed = {
        "result": output,
        "result requires grad": needs_grad(output),
        "calls during forward": calls,
    }

    mixer = counted(Mixer(6))
    args = mixer_args(False, 2, 0.25, "sin", with_bias=False, w_requires_grad=False)
    with recording(t, "forward") as calls:
        output = t.call("checkpoint", mixer[0], *args)
    label = " with only tensors that need no grad among plain values"
    observed[f"result{label}"] = output
    observed[f"result requires grad{label}"] = needs_grad(output)
    observed[f"calls during forward{label}"] = calls
    return observed
