"""Tests for the PyTorch track of training-step.

Each hidden test is a table of cases on three small models: a linear layer under the mean
squared error, two layers with a tanh under cross-entropy, and a linear layer without bias
on one sample. Every model and tensor of a test is built before the first call, from
torch's seeded generator. The tests read the gradients in the velocity after one step from
zero velocity, then stale gradients, the momentum rule, the update of the parameters, the
state of the parameters after the step, the in-place rule and three chained steps.

Values are read with t.values (float32 arrays), so each is compared with the statement's
float32 tolerance; the loss as a float32 too. The in-place test observes only identity and
storage (data_ptr), never values: wrong values are the business of the tests before it.
"""

import numpy as np
import torch
from torch import nn

from graders.sandbox.testing import Case, argument_code, example, from_code, shown_as, test

# The statement's tolerances (exercise.toml [tolerance]): every value observed is float32.
TOL = {"float32": (1e-4, 1e-6), "float64": (1e-9, 1e-12)}

MSE = from_code("nn.MSELoss()", globals())
CROSS_ENTROPY = from_code("nn.CrossEntropyLoss()", globals())


# Why the velocity is passed as a StepDict, not a plain dict: t.call copies a plain dict
# and clones the tensors in it, so the learner's code would update copies and the test
# could not see whether the caller's own tensors changed in place (the rule under test).
# t.call copies only objects whose type is exactly dict, list, tuple, ndarray or Tensor;
# an instance of this subclass reaches the learner's code as it is, tensors included.
# (t.changed_in_place cannot replace it: it says whether values changed, not whether the
# dict still holds the caller's tensors.) The model is passed as it is in any case.
class StepDict(dict):
    """A dict that t.call passes as it is (it copies a plain dict and clones its tensors)."""


def passed(tensors):
    """``tensors`` as a StepDict, shown in a failing call as the code of its values before
    the call (after it, the learner's step has changed them)."""
    d = StepDict(tensors)
    code = argument_code(dict(d))
    if code is not None:
        shown_as(d, code)
    return d


def values(t, d):
    """The values of a dict of tensors as they are now (anything else as it is)."""
    return {k: t.values(v) if isinstance(v, torch.Tensor) else v for k, v in dict.items(d)}


def parameters(t, model):
    return {name: t.values(p) for name, p in model.named_parameters()}


def loss_observations(loss):
    """The returned loss, as float32 when it is a float (the statement's tolerance)."""
    return {
        "returned loss": np.float32(loss) if isinstance(loss, float) else loss,
        "returned loss is a Python float": isinstance(loss, float),
    }


def zero_velocity(model):
    return {name: torch.zeros_like(p, requires_grad=False) for name, p in model.named_parameters()}


def random_velocity(model):
    """A velocity left by earlier steps."""
    return {name: 0.5 * torch.randn(p.shape, dtype=p.dtype) for name, p in model.named_parameters()}


STALE = "; each .grad holds an earlier batch's gradient"


def cases(velocity=zero_velocity, lr=0.5, momentum=0.9, stale=False):
    """The three models of the hidden tests, each with its batch, loss and velocity. With
    ``stale``, every .grad holds the gradient of an earlier batch, and the label says so."""
    table = [
        ("a linear layer, mean squared error", nn.Linear(3, 2), MSE, (4, 3), (4, 2)),
        (
            "two layers with a tanh, cross-entropy over 3 classes",
            nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 3)),
            CROSS_ENTROPY,
            (6, 2),
            None,
        ),
        (
            "a linear layer without bias, one sample",
            nn.Linear(3, 1, bias=False),
            MSE,
            (1, 3),
            (1, 1),
        ),
    ]
    rows = []
    for label, model, loss_fn, x_shape, y_shape in table:
        x = torch.randn(x_shape)
        # Cross-entropy takes class indices; the mean squared error, values.
        y = torch.tensor([0, 2, 1, 1, 0, 2]) if y_shape is None else torch.randn(y_shape)
        if stale:
            earlier_y = (
                torch.tensor([2, 1, 0, 2, 1, 0]) if y_shape is None else torch.randn(y_shape)
            )
            loss_fn(model(torch.randn(x_shape)), earlier_y).backward()
            label += STALE
        rows.append(
            Case(
                label,
                model=model,
                loss_fn=loss_fn,
                x=x,
                y=y,
                velocity=velocity(model),
                lr=lr,
                momentum=momentum,
            )
        )
    return rows


def step(t, model, loss_fn, x, y, velocity, lr, momentum):
    """One call of train_step; returns (loss, velocity as passed)."""
    velocity = passed(velocity)
    loss = t.call("train_step", model, loss_fn, x, y, velocity, lr, momentum)
    return loss, velocity


def unit_linear(weight):
    """The worked example's model: nn.Linear(1, 1, bias=False) with the given weight."""
    model = nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        model.weight.fill_(weight)
    return shown_as(model, f"nn.Linear(1, 1, bias=False)  # with weight [[{weight}]]")


EXAMPLE_X, EXAMPLE_Y = torch.tensor([[2.0]]), torch.tensor([[0.0]])


@example("the worked example: one step of a one-weight model", hint=2, tolerances=TOL)
def worked_example(t):
    model = unit_linear(1.0)
    loss, velocity = step(
        t, model, MSE, EXAMPLE_X, EXAMPLE_Y, {"weight": torch.zeros(1, 1)}, 0.1, 0.9
    )
    return {
        **loss_observations(loss),
        "velocity after the step": values(t, velocity),
        "parameters after the step": parameters(t, model),
    }


@example(
    "the worked example's second step: momentum carries the weight past 0", hint=3, tolerances=TOL
)
def second_step(t):
    model = unit_linear(0.2)
    loss, velocity = step(
        t, model, MSE, EXAMPLE_X, EXAMPLE_Y, {"weight": torch.tensor([[8.0]])}, 0.1, 0.9
    )
    return {
        **loss_observations(loss),
        "velocity after the step": values(t, velocity),
        "parameters after the step": parameters(t, model),
    }


@test(
    "returns the loss before the update, as a Python float",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def returned_loss(t):
    return t.cases(cases(lr=1.0), lambda **case: loss_observations(step(t, **case)[0]))


@test(
    "one step from zero velocity leaves each parameter's gradient in the velocity",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def gradients(t):
    return t.cases(
        cases(), lambda **case: {"velocity after the step": values(t, step(t, **case)[1])}
    )


@test(
    "gradients left in .grad before the call do not change the step",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def stale_gradients(t):
    def check(model, **case):
        _, velocity = step(t, model, **case)
        return {
            "velocity after the step": values(t, velocity),
            "parameters after the step": parameters(t, model),
        }

    return t.cases(cases(stale=True), check)


@test(
    "the velocity becomes momentum * velocity + gradient, from the velocity passed in",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def momentum(t):
    return t.cases(
        cases(velocity=random_velocity, momentum=0.6)[:2],
        lambda **case: {"velocity after the step": values(t, step(t, **case)[1])},
    )


@test(
    "each parameter moves by -lr times the new velocity",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def parameter_update(t):
    def check(model, **case):
        step(t, model, **case)
        return {"parameters after the step": parameters(t, model)}

    return t.cases(cases(velocity=random_velocity, lr=0.3, momentum=0.8)[:2], check)


@test(
    "after the step every parameter still requires grad, and its .grad is zero or None",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def after_the_step(t):
    def check(model, **case):
        step(t, model, **case)
        named = dict(model.named_parameters())
        return {
            "requires_grad after the step": {name: p.requires_grad for name, p in named.items()},
            "is_leaf after the step": {name: p.is_leaf for name, p in named.items()},
            "grad after the step is zero or None": {
                name: p.grad is None or bool((p.grad == 0).all()) for name, p in named.items()
            },
        }

    return t.cases(cases()[:2], check)


@test(
    "the parameters and the velocity tensors are the same objects, updated in their own storage",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def in_place(t):
    def check(model, loss_fn, x, y, velocity, lr, momentum):
        velocity = passed(velocity)
        originals = dict(model.named_parameters())
        speeds = dict(velocity)  # the tensors passed in
        # Views taken before the call keep the old storage alive: a tensor that got new
        # storage (p.data = ...) cannot be given the old address back.
        old_storage = {name: p.detach() for name, p in originals.items()}
        old_speed_storage = {name: v.detach() for name, v in speeds.items()}
        t.call("train_step", model, loss_fn, x, y, velocity, lr, momentum)
        now = dict(model.named_parameters())
        observations = {}
        for name, p in originals.items():
            q = now.get(name)
            observations[f"parameter {name!r} is still the Parameter passed in"] = q is p
            observations[f"parameter {name!r} was updated in its own storage"] = (
                isinstance(q, torch.Tensor) and q.data_ptr() == old_storage[name].data_ptr()
            )
        for name, v in speeds.items():
            w = dict.get(velocity, name)
            observations[f"velocity[{name!r}] is still the tensor passed in"] = w is v
            observations[f"velocity[{name!r}] was updated in its own storage"] = (
                isinstance(w, torch.Tensor) and w.data_ptr() == old_speed_storage[name].data_ptr()
            )
        return observations

    return t.cases(cases(velocity=random_velocity, lr=0.3, momentum=0.8)[1:2], check)


@test(
    "three steps in a row, each from the velocity the last one left",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def three_steps(t):
    def check(model, loss_fn, x, y, velocity, lr, momentum):
        velocity = passed(velocity)
        losses = [
            loss_observations(t.call("train_step", model, loss_fn, x, y, velocity, lr, momentum))[
                "returned loss"
            ]
            for _ in range(3)
        ]
        return {
            "losses of the three steps": losses,
            "velocity after three steps": values(t, velocity),
            "parameters after three steps": parameters(t, model),
        }

    return t.cases(cases(lr=0.2, momentum=0.9)[1:2], check)
