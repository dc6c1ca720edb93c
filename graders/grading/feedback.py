"""The message a learner reads for a failing test, built in the server.

A failing hidden test shows, as an online judge does for its first failing case, the first
call that failed and every observation of it that differs (an exception the learner's code
raised first, as it explains what follows; then call records: which layers ran tells more
than which numbers came out)::

    In checkpoint_recompute(layers, saved_activations, [4, 1], layer_idx=3):
    calls when recomputing layer 3: layers 0, 1, 2, 3 ran; only layers 2, 3 should run
    activation 3: values differ — expected [0.5], got [0.25]

In a table of cases (``t.cases``), the first failing case leads, with its call::

    In case 'an unsorted list', checkpoint_forward(layers, x, [5, 2]):
    saved: keys differ — expected [-1, 2, 5], got [-1, 5]
    …and 2 more observations differ in 2 other cases

The sandbox describes each call of the learner's code (``call_notes`` in the runner);
those descriptions are display text only, checked for shape here and never used for a
verdict. Parameter names come from the reference solution, read by the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graders.grading.compare import case_label, raised

MAX_SHOWN = 5  # differing observations listed in one message
_MAX_ARGS = 20
_MAX_ARG_TEXT = 200
_MAX_CODE = 600  # characters of one argument's code (graders.sandbox.testing.MAX_CODE)


class Call:
    """One call of an entry point as the sandbox described it."""

    def __init__(
        self,
        name: str,
        args: list[tuple[str, bool]],
        kwargs: dict[str, tuple[str, bool]],
        case: str | None = None,
        code: tuple[list[str | None], dict[str, str | None]] = ([], {}),
    ) -> None:
        self.name, self.args, self.kwargs = name, args, kwargs
        self.case = case  # the label of the case of a table it was made in
        self.code = code  # each argument as code a learner can paste, or None

    def setup(self, parameters: Mapping[str, Sequence[str]]) -> list[str]:
        """The arguments named in ``render`` (those not shown as they are) as lines of
        code a learner can paste to call their function on this case:
        ``    x = np.array([1.0, 2.0], dtype=np.float64)``."""
        names = parameters.get(self.name, ())
        lines = []
        args, kwargs = self.code
        for i, (_text, short) in enumerate(self.args):
            code = args[i] if i < len(args) else None
            if not short and code is not None:
                lines.append(f"    {names[i] if i < len(names) else f'arg{i + 1}'} = {code}")
        for k, (_text, short) in self.kwargs.items():
            code = kwargs.get(k)
            if not short and code is not None:
                lines.append(f"    {k} = {code}")
        return lines

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
    if not (isinstance(item, list) and len(item) in (4, 5, 6) and type(item[0]) is int):
        return None
    _, name, args, kwargs, *rest = item
    case = rest[0] if rest else None
    code = _code(rest[1]) if len(rest) > 1 else ([], {})
    if case is not None and not _arg([case, True]):
        return None
    if not (isinstance(name, str) and name.isidentifier() and len(name) <= 100):
        return None
    if not (isinstance(args, list) and isinstance(kwargs, dict)):
        return None
    if len(args) + len(kwargs) > _MAX_ARGS or not all(map(_arg, args)):
        return None
    if not all(isinstance(k, str) and k.isidentifier() and _arg(v) for k, v in kwargs.items()):
        return None
    return Call(
        name,
        [(a[0], a[1]) for a in args],
        {k: (v[0], v[1]) for k, v in kwargs.items()},
        case,
        code,
    )


def _code(value: Any) -> tuple[list[str | None], dict[str, str | None]]:
    """A call's arguments as code, as the sandbox wrote them; nothing when malformed
    (it only costs the learner the lines to paste)."""
    if not isinstance(value, dict):
        return [], {}
    args, kwargs = value.get("args"), value.get("kwargs", {})
    if not (isinstance(args, list) and isinstance(kwargs, dict) and len(args) <= _MAX_ARGS):
        return [], {}
    if not all(_code_line(c) for c in [*args, *kwargs.values()]) or len(kwargs) > _MAX_ARGS:
        return [], {}
    return list(args), {k: v for k, v in kwargs.items() if isinstance(k, str) and k.isidentifier()}


def _code_line(value: Any) -> bool:
    return value is None or (
        isinstance(value, str)
        and len(value) <= _MAX_CODE
        and "\n" not in value
        and "\r" not in value
    )


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
    judge shows its first failing case; the rest is counted, not listed.

    The observations of a case of a table (``t.cases``) go together, led by the case's
    label and its call; the first failing case (in the order its calls were made) is the
    one shown."""
    # A group: ("case", its key) or ("call", the index of the call, or None).
    groups: dict[tuple[str, Any], list[str]] = {}
    where: dict[tuple[str, Any], int | None] = {}
    # When the test made a single call, what no call claims (a backward pass after it) is
    # that call's. (The last call of a test is always among those described: only call 0
    # described means call 0 was the only one.)
    only = 0 if list(calls) == [0] else None
    for key, problem in problems:
        case = case_label(key)
        index = origins.get(key, only) if key is not None else only
        group = ("case", case) if case else ("call", index)
        groups.setdefault(group, []).append(problem)
        where[group] = index
    # By the call each came from (cases in the order they ran), unknown calls last; but
    # a group where the learner's code raised first: the error explains the rest.
    order = sorted(
        groups,
        key=lambda g: (
            not any(raised(p) for p in groups[g]),
            where[g] is None,
            where[g] or 0,
        ),
    )
    first = order[0]
    index = where[first]
    shown = calls.get(index) if index is not None else None
    call = shown.render(parameters) if shown is not None else None
    if first[0] == "case":
        lines = [f"In {first[1]}, {call}:" if call else f"In {first[1]}:"]
    else:
        lines = [f"In {call}:"] if call else []
    if shown is not None:  # the inputs, as code to paste: the learner can run the case
        lines += shown.setup(parameters)
    lines += groups[first][:MAX_SHOWN]
    hidden = len(problems) - min(len(groups[first]), MAX_SHOWN)
    if hidden > 0:
        cases = sum(g[0] == "case" for g in order[1:])
        others = [
            _count(cases, "other case"),
            _count(len(order) - 1 - cases, "other call"),
        ]
        elsewhere = " and ".join(o for o in others if o)
        noun = "observations differ" if hidden > 1 else "observation differs"
        lines.append(f"…and {hidden} more {noun}" + (f" in {elsewhere}" if elsewhere else ""))
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return "" if n == 0 else f"{n} {noun}{'s' if n > 1 else ''}"


def setup(
    calls: dict[int, Call], failed: int | None, parameters: Mapping[str, Sequence[str]]
) -> list[str]:
    """The inputs of the call that was running when the test stopped, as code lines."""
    return [] if failed is None else calls[failed].setup(parameters)


def failed_call(
    calls: dict[int, Call], failed: int | None, parameters: Mapping[str, Sequence[str]]
) -> str | None:
    """The call that was running when the test stopped, rendered, led by its case's label
    when it was made in a case of a table (``case 'no checkpoint', f(x)``, read after
    "In "); None when unknown."""
    if failed is None:
        return None
    call = calls[failed]
    rendered = call.render(parameters)
    return f"case {call.case!r}, {rendered}" if call.case is not None else rendered
