"""Comparison of two records of layer calls (``graders.sandbox.checkpointing.recording``),
in the server: which layers ran, in which order, and on which values::

    calls during recompute: layers 0, 1, 2 ran; only layer 2 should run

Only the checkpointing exercises record layer calls; :mod:`graders.grading.compare`
hands such a record here and words every other observation itself.
"""

from __future__ import annotations

from graders.sandbox.wire import CallsObs

MAX_SEQUENCE = 300  # characters of a list of layer numbers, as compare clips a value


def difference(exp: CallsObs, got: CallsObs, path: str, *, full: bool, summary: bool) -> str | None:
    """The first difference, worded as far as the test's ``reveal`` allows: ``full``
    shows the expected layers and their order, ``summary`` only what ran and which rule
    that breaks, neither only that the layers differ."""
    if exp.layers == got.layers and exp.more == got.more:
        return _inputs(exp, got, path)
    if got.more and not exp.more:
        return (
            f"{path}: layers were called more than {len(got.layers)} times; "
            f"expected {_count(len(exp.layers))}"
            if summary
            else f"{path}: layers were called more than {len(got.layers)} times"
        )
    ran = _layers(got.layers)
    if not summary:
        return f"{path}: the layers that ran are not the expected ones"
    if not exp.layers:
        return f"{path}: {ran} ran; no layer should run"
    same_layers = sorted(exp.layers) == sorted(got.layers)
    if not full:
        # A summary says what ran and which rule that breaks; the expected layers and
        # their order are values, which only a test that reveals them in full shows.
        if same_layers:
            return (
                f"{path}: layers ran in the order {_seq(got.layers)}: the right layers, "
                "but not in the expected order"
            )
        got_n, exp_n = len(got.layers), len(exp.layers)
        if got_n == exp_n:
            return f"{path}: {ran} ran: {_count(got_n)}, as expected, but not the right layers"
        return f"{path}: {ran} ran: {_count(got_n)} where {exp_n} {_are(exp_n)} expected"
    if same_layers:
        return f"{path}: layers ran in the order {_seq(got.layers)}; expected {_seq(exp.layers)}"
    if len(set(exp.layers)) == len(exp.layers) and len(set(got.layers)) == len(got.layers):
        only = "only " if set(exp.layers) < set(got.layers) else ""
        return f"{path}: {ran} ran; {only}{_layers(exp.layers)} should run"
    return f"{path}: layers ran in the order {_seq(got.layers)}; expected {_seq(exp.layers)}"


def _inputs(exp: CallsObs, got: CallsObs, path: str) -> str | None:
    """The right layers ran; were they given the right values? (The reference's layer
    inputs, bit for bit: a layer run for show on other values does not count.)"""
    if not exp.inputs or exp.inputs == got.inputs:
        return None
    if len(got.inputs) != len(exp.inputs):
        return f"{path}: the record of the layers' inputs is incomplete"
    i = next(i for i, (e, g) in enumerate(zip(exp.inputs, got.inputs, strict=True)) if e != g)
    # A layer that drew other random numbers before (dropout) explains a wrong input.
    random = _random_states(exp, got, path, i + 1)
    if random:
        return random
    return (
        f"{path}: the right layers ran, but layer {got.layers[i]} (call {i + 1}) was not "
        "given the value it should work on: each layer must be applied to the output "
        "of the layer before it, starting from the activation the rule says to start from"
    )


def _random_states(exp: CallsObs, got: CallsObs, path: str, within: int) -> str | None:
    """The first of the first ``within`` calls that ran with another random state than
    the reference's, worded as random numbers: a layer that draws (dropout) then draws
    other numbers, and the input of a layer after it differs because of that."""
    if not exp.randoms or len(got.randoms) != len(exp.randoms):
        return None
    pairs = list(zip(exp.randoms, got.randoms, strict=True))[:within]
    i = next((i for i, (e, g) in enumerate(pairs) if e != g), None)
    if i is None:
        return None
    return (
        f"{path}: torch's random state was not the expected one when layer {got.layers[i]} "
        f"(call {i + 1}) ran, so the layers that draw random numbers (dropout) drew other "
        "numbers than they should, and the layers after them were given other values"
    )


def _seq(layers: tuple[int, ...]) -> str:
    if not layers:
        return "(none)"
    text = ", ".join(str(i) for i in layers[:200])
    return text if len(text) <= MAX_SEQUENCE else text[: MAX_SEQUENCE - 1] + "…"


def _count(calls: int) -> str:
    return "1 call" if calls == 1 else f"{calls} calls"


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def _layers(layers: tuple[int, ...]) -> str:
    if not layers:
        return "no layer"
    word = "layer" if len(layers) == 1 else "layers"
    return f"{word} {_seq(layers)}"
