"""Tests for the PyTorch track of training-step.

Most hidden tests are tables of cases on two small models (MODELS): a linear layer under
the mean squared error, and two layers with a tanh under cross-entropy. Every model and
tensor of a test is built before the first call, from torch's seeded generator. The tests
read the gradients in the velocity after one step from zero velocity, then stale
gradients, a velocity dict in another order than the parameters, the momentum rule, the
update of the parameters, the state of the parameters after the step, the number of
forward passes (counted by a batch norm layer), the in-place rule, that x and y are left
unchanged, and three chained steps.

Values are read with t.values (float32 arrays), so each is compared with the statement's
float32 tolerance; the loss as a float32 too. The in-place test observes only identity and
storage (data_ptr), never values: wrong values are the business of the tests before it.
Each t.call costs time in the sandbox (and each new kind of layer or loss costs more the
first time): each test makes as few calls as its rule needs, on the same few layers.
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

# The models of the hidden tests: (label, build, loss_fn, x shape, y shape or None for the
# class indices of cross-entropy). cases() builds only the ones a test asks for.
MODELS = [
    ("a linear layer, mean squared error", lambda: nn.Linear(3, 2), MSE, (4, 3), (4, 2)),
    (
        "two layers with a tanh, cross-entropy over 3 classes",
        lambda: nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 3)),
        CROSS_ENTROPY,
        (6, 2),
        None,
    ),
]
LINEAR, TWO_LAYERS = range(len(MODELS))
CLASSES, EARLIER_CLASSES = torch.tensor([0, 2, 1, 1, 0, 2]), torch.tensor([2, 1, 0, 2, 1, 0])


def cases(*which, velocity=zero_velocity, lr=0.5, momentum=0.9, stale=False):
    """The models ``which`` (indices of MODELS), each with its batch, loss and velocity.
    With ``stale``, every .grad holds the gradient of an earlier batch, and the label says
    so."""
    rows = []
    for label, build, loss_fn, x_shape, y_shape in [MODELS[i] for i in which]:
        model = build()
        x = torch.randn(x_shape)
        y = CLASSES if y_shape is None else torch.randn(y_shape)
        if stale:
            earlier_y = EARLIER_CLASSES if y_shape is None else torch.randn(y_shape)
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
    return t.cases(
        cases(TWO_LAYERS, lr=1.0),
        lambda **case: loss_observations(step(t, **case)[0]),
    )


@test(
    "one step from zero velocity leaves each parameter's gradient in the velocity",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def gradients(t):
    return t.cases(
        cases(LINEAR, TWO_LAYERS),
        lambda **case: {"velocity after the step": values(t, step(t, **case)[1])},
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

    return t.cases(cases(TWO_LAYERS, stale=True), check)


def zero_velocity_in_order(model, names):
    """A zero velocity whose dict lists the parameters in the order of ``names``."""
    zeros = zero_velocity(model)
    return {name: zeros[name] for name in names}


@test(
    "the velocity is looked up by parameter name, whatever the dict's order",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def velocity_by_name(t):
    # Paired by position, the first case mixes up tensors of equal shapes without an
    # error; the second pairs a weight with the bias's velocity.
    equal_layers = from_code(
        "nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3))", globals()
    )
    linear = nn.Linear(3, 2)
    table = [
        Case(
            "two layers of equal shapes, the second layer's velocity listed first",
            model=equal_layers,
            x=torch.randn(4, 3),
            y=torch.randn(4, 3),
            velocity=zero_velocity_in_order(
                equal_layers, ["2.weight", "2.bias", "0.weight", "0.bias"]
            ),
        ),
        Case(
            "a linear layer, the bias's velocity listed before the weight's",
            model=linear,
            x=torch.randn(4, 3),
            y=torch.randn(4, 2),
            velocity=zero_velocity_in_order(linear, ["bias", "weight"]),
        ),
    ]

    def check(**case):
        _, velocity = step(t, loss_fn=MSE, lr=0.5, momentum=0.9, **case)
        return {"velocity after the step": values(t, velocity)}

    return t.cases(table, check)


@test(
    "the velocity becomes momentum * velocity + gradient, from the velocity passed in",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def momentum(t):
    return t.cases(
        cases(TWO_LAYERS, velocity=random_velocity, momentum=0.6),
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

    return t.cases(cases(TWO_LAYERS, velocity=random_velocity, lr=0.3, momentum=0.8), check)


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

    return t.cases(cases(TWO_LAYERS), check)


@test("the model runs forward once per step", hint=2, tolerances=TOL, reveal="summary")
def one_forward_pass(t):
    # A batch norm layer counts the forward passes it takes part in, whatever the way the
    # model is called, in its buffer num_batches_tracked (0 when the layer is new).
    model = from_code("nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))", globals())
    table = [
        Case(
            "a linear layer and a batch norm layer, mean squared error",
            model=model,
            loss_fn=MSE,
            x=torch.randn(4, 3),
            y=torch.randn(4, 2),
            velocity=zero_velocity(model),
            lr=0.5,
            momentum=0.9,
        )
    ]

    def check(model, **case):
        step(t, model, **case)
        return {"forward passes the batch norm layer counted": int(model[1].num_batches_tracked)}

    return t.cases(table, check)


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

    return t.cases(cases(TWO_LAYERS, velocity=random_velocity, lr=0.3, momentum=0.8), check)


@test("x and y are left unchanged", hint=1, tolerances=TOL, reveal="summary")
def inputs_unchanged(t):
    def check(**case):
        step(t, **case)
        names = ("model", "loss_fn", "x", "y", "velocity", "lr", "momentum")
        return {"changed in place": t.changed_in_place(*names)}

    return t.cases(cases(LINEAR), check)


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

    return t.cases(cases(LINEAR, lr=0.2, momentum=0.9), check)
