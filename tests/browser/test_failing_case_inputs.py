"""A failing hidden case, in Chromium against the real service: the learner reads the call
with its inputs written out as code they can paste (the layers as the test runs them, the
arrays with their dtype), and the code, pasted into Python, runs their function on it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import GC_WRONG, open_exercise, replace_code, results, submit

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]


def test_a_failing_hidden_case_shows_its_inputs_as_code_to_paste(page: Page, server: str) -> None:
    open_exercise(page, server)
    replace_code(page, GC_WRONG)  # replays every recompute from the input
    submit(page, "Submit")
    failing = results(page).locator(".test.status-fail").first
    message = failing.locator(".test-message")
    expect(message).to_contain_text("checkpoint_recompute(layers, saved_activations,")
    text = message.inner_text()
    lines = [line.strip() for line in text.splitlines() if line.startswith("    ")]
    assert [line.split(" = ")[0] for line in lines] == ["layers", "saved_activations"], text
    # Pasted as they are, the lines build the case; the learner's own function then fails it
    # the way the message says (every layer from the input ran).
    case: dict[str, object] = {"np": np}
    for line in lines:
        exec(line, case)  # the text the page shows, as a learner would paste it
    called = re.search(r"\[[\d, ]*\], layer_idx=(\d+)\)", text)
    assert called is not None, text
    indices = [int(i) for i in re.findall(r"\d+", called.group(0).split("]")[0])]
    layers = case["layers"]
    saved = case["saved_activations"]
    assert isinstance(layers, list) and isinstance(saved, dict)
    assert sorted(saved) == sorted({-1, *indices})
    ran: list[int] = []
    counted = [lambda a, i=i, f=f: (ran.append(i), f(a))[1] for i, f in enumerate(layers)]
    namespace: dict[str, object] = {}
    exec(GC_WRONG, namespace)  # the wrong solution the page was given
    recompute = namespace["checkpoint_recompute"]
    assert callable(recompute)
    recompute(counted, saved, indices, int(called.group(1)))
    assert ran[0] == 0  # from the input, as the message's "layers 0, 1, ... ran" says
    expect(message).to_contain_text(re.compile(r"layers 0(, \d+)* ran"))
