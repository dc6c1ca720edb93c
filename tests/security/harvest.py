"""A learner's table of expected values read off earlier failures (issue 25, point 6).

The attack: the learner's code answers each call of an entry point from a table keyed by
call order, and with a *marker* for a call the table does not know. The order is which
hidden test is running (the harness seeds torch afresh for each test, so a new
``torch.initial_seed()`` is a new test) and the number of the call within that test, so a
test that stops early does not shift the keys of the next. The marker of call ``c`` of
test ``k`` is ``MARKER + 1_000_000 * k + c``. A failing test whose message reads
``bytes saved by x.sin(): value differs — expected 140, got 7000002003`` has told the
learner what the reference gave for call 3 of test 2: the next Submit replays it. Submit
after Submit the table grows, until every hidden test passes or a Submit teaches nothing
new.

The learner reads only what a Submit answers, as JSON: each test's status and message.
Nothing here knows an exercise: the replayer is built from a track's entry points. It
also calls, once, a function it is handed as its first argument with the other arguments
(what ``saved_bytes(fn, *inputs)`` must do), so that a test counting those calls, or
running backward through their graph, finds what it expects.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

MARKER = 7_000_000_000
PER_TEST = 1_000_000
MOST_SUBMITS = 40  # a test of 88 calls shows 5 expected values per Submit: 18 Submits

Key = tuple[int, int]  # (hidden test in the order it ran, call within it)

_REPLAYER = '''"""Answers each call from a table of values read off earlier failures."""

import torch

TABLE = {table!r}
MARKER = {marker}
PER_TEST = {per_test}
_now = {{"seed": None, "test": -1, "call": 0}}


def _answer(args):
    seed = torch.initial_seed()  # seeded afresh for each test: a new seed, a new test
    if seed != _now["seed"]:
        _now.update(seed=seed, test=_now["test"] + 1, call=0)
    key = (_now["test"], _now["call"])
    _now["call"] += 1
    if args and callable(args[0]):
        try:
            args[0](*args[1:])  # run what it is given, once, as saved_bytes must
        except Exception:
            pass
    return TABLE.get(key, MARKER + PER_TEST * key[0] + key[1])
'''

_ENTRY_POINT = """

def {name}(*args, **kwargs):
    return _answer(args)
"""

# One difference of a failure message, as graders/grading/compare.py words it with its values:
# "NAME: RULE — expected VALUE, got VALUE". A marker got is a whole number.
_DIFFERENCE = re.compile(r" — expected (?P<expected>.+), got (?P<got>\d+)$")


def replayer(entry_points: Iterable[str], table: Mapping[Key, Any]) -> str:
    """The learner's code: every entry point answers from ``table`` or with a marker."""
    code = _REPLAYER.format(table=dict(table), marker=MARKER, per_test=PER_TEST)
    return code + "".join(_ENTRY_POINT.format(name=name) for name in entry_points)


def read_off(result: Mapping[str, Any]) -> dict[Key, Any]:
    """Every expected value a Submit's answer shows beside a marker, by the call the
    marker names: what a learner can add to the table."""
    found: dict[Key, Any] = {}
    for test in result.get("tests", []):
        if test.get("status") == "pass":
            continue
        for line in str(test.get("message", "")).splitlines():
            match = _DIFFERENCE.search(line)
            if match is None or int(match["got"]) < MARKER:
                continue
            try:
                value = ast.literal_eval(match["expected"])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue  # a clipped or unprintable value: nothing to replay
            marker = int(match["got"]) - MARKER
            found[(marker // PER_TEST, marker % PER_TEST)] = value
    return found


@dataclass
class Harvest:
    """What the learner got out of it."""

    submits: int = 0
    table: dict[Key, Any] = field(default_factory=dict)
    # Every hidden test any Submit passed, by name.
    passed: set[str] = field(default_factory=set)
    # Those the first Submit passed, before any value was read off: a test of a rule that
    # code answering with markers keeps (leaves the inputs alone, runs no nll_loss).
    first: set[str] = field(default_factory=set)
    hidden: int = 0  # hidden tests of the track
    last: dict[str, Any] = field(default_factory=dict)  # the last Submit's answer

    @property
    def passed_all(self) -> bool:
        return self.hidden > 0 and len(self.passed) == self.hidden

    def describe(self) -> str:
        shown = [
            f"{t['name']}: {t['message']}"
            for t in self.last.get("tests", [])
            if t.get("status") != "pass"
        ][:2]
        return (
            f"{self.submits} Submits, {len(self.table)} expected values read off, "
            f"hidden tests passed: {sorted(self.passed) or 'none'} "
            f"(by the first Submit, before any value was read: {sorted(self.first) or 'none'}); "
            f"last failures: {shown}"
        )


def harvest(
    submit: Callable[[str], Mapping[str, Any]],
    entry_points: Iterable[str],
    most: int = MOST_SUBMITS,
) -> Harvest:
    """Submit the replayer again and again, each time with what the last answer showed,
    until every hidden test passes, an answer shows nothing new, or ``most`` Submits."""
    names = list(entry_points)
    new_key = object()
    done = Harvest()
    while done.submits < most:
        answer = dict(submit(replayer(names, done.table)))
        done.submits += 1
        done.last = answer
        tests = answer.get("tests", [])
        done.hidden = len(tests)
        done.passed |= {t["name"] for t in tests if t.get("status") == "pass"}
        if done.submits == 1:
            done.first = set(done.passed)
        new = {k: v for k, v in read_off(answer).items() if done.table.get(k, new_key) != v}
        if done.passed_all or not new:
            break
        done.table.update(new)
    return done
