"""The message a learner reads for a failing test, built in the server.

A failing hidden test shows, as an online judge does for its first failing case, the first
call that failed and every observation of it that differs (call records first: which
layers ran tells more than which numbers came out)::

    In checkpoint_recompute(layers, saved_activations, [4, 1], layer_idx=3):
    calls when recomputing layer 3: layers 0, 1, 2, 3 ran; only layers 2, 3 should run
    activation 3: values differ — expected [0.5], got [0.25]

The sandbox describes each call of the learner's code (``call_notes`` in the runner);
those descriptions are display text only, checked for shape here and never used for a
verdict. Parameter names come from the reference solution, read by the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MAX_SHOWN = 5  # differing observations listed in one message
_MAX_ARGS = 20
_MAX_ARG_TEXT = 200


class Call:
    """One call of an entry point as the sandbox described it."""

    def __init__(
        self, name: str, args: list[tuple[str, bool]], kwargs: dict[str, tuple[str, bool]]
    ) -> None:
        self.name, self.args, self.kwargs = name, args, kwargs

    def render(self, parameters: Mapping[str, Sequence[str]]) -> str:
        """``checkpoint_recompute(layers, saved_activations, [4, 1], layer_idx=3)``:
        a short value as it is (a number with its parameter's name), a long one by the
        name of its parameter."""
        names = parameters.get(self.name, ())
        parts = []
        for i, (text, short) in enumerate(self.args):
            name = names[i] if i < len(names) else None
            if not short:
                parts.append(name or text)
            elif name and not text.startswith(("[", "(", "range(")):
                parts.append(f"{name}={text}")
            else:
                parts.append(text)
        parts += [f"{k}={text}" if short else k for k, (text, short) in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def read_calls(header: Mapping[str, Any]) -> tuple[dict[int, Call], dict[str, int], int | None]:
    """The calls a test frame describes, which observation came from which, and the call
    that was running when the test failed. Anything malformed is dropped: it only costs
    the learner the context line."""
    calls: dict[int, Call] = {}
    raw = header.get("calls")
    for item in raw[:100] if isinstance(raw, list) else []:
        call = _call(item)
        if call is not None:
            calls[item[0]] = call
    call_of = header.get("call_of")
    origins = {
        k: v
        for k, v in (call_of.items() if isinstance(call_of, dict) else ())
        if isinstance(k, str) and type(v) is int and v in calls
    }
    failed = header.get("failed_call")
    return calls, origins, failed if type(failed) is int and failed in calls else None


def _call(item: Any) -> Call | None:
    if not (isinstance(item, list) and len(item) == 4 and type(item[0]) is int):
        return None
    _, name, args, kwargs = item
    if not (isinstance(name, str) and name.isidentifier() and len(name) <= 100):
        return None
    if not (isinstance(args, list) and isinstance(kwargs, dict)):
        return None
    if len(args) + len(kwargs) > _MAX_ARGS or not all(map(_arg, args)):
        return None
    if not all(isinstance(k, str) and k.isidentifier() and _arg(v) for k, v in kwargs.items()):
        return None
    return Call(name, [(a[0], a[1]) for a in args], {k: (v[0], v[1]) for k, v in kwargs.items()})


def _arg(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and len(value[0]) <= _MAX_ARG_TEXT
        and "\n" not in value[0]
        and type(value[1]) is bool
    )


def message(
    problems: list[tuple[str | None, str]],
    calls: dict[int, Call],
    origins: Mapping[str, int],
    parameters: Mapping[str, Sequence[str]],
) -> str:
    """The first failing call and every observation of it that differs, as an online
    judge shows its first failing case; the rest is counted, not listed."""
    groups: dict[int | None, list[str]] = {}
    for key, problem in problems:
        index = origins.get(key) if key is not None else None
        groups.setdefault(index, []).append(problem)
    order = sorted(groups, key=lambda i: (i is None, i or 0))
    first = order[0]
    lines = [f"In {calls[first].render(parameters)}:"] if first is not None else []
    lines += groups[first][:MAX_SHOWN]
    hidden = len(problems) - min(len(groups[first]), MAX_SHOWN)
    if hidden > 0:
        more = len(order) - 1
        where = f" in {more} other call{'s' if more > 1 else ''}" if more else ""
        noun = "observations differ" if hidden > 1 else "observation differs"
        lines.append(f"…and {hidden} more {noun}{where}")
    return "\n".join(lines)


def failed_call(
    calls: dict[int, Call], failed: int | None, parameters: Mapping[str, Sequence[str]]
) -> str | None:
    """The call that was running when the test stopped, rendered; None when unknown."""
    return calls[failed].render(parameters) if failed is not None else None
