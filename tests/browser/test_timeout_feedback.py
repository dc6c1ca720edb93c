"""A learner's infinite loop, typed into the editor, in Chromium against the real service:
the result says which time limit stopped it, in which test, during which call and at which
line of their code, offers to go to that line, and shows how long the test ran."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import editor_text, open_exercise, replace_code, results, submit

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

# The forgotten ``i += 1``: lines 3 and 4 spin for ever in the first example's call; the
# limit stops it on either.
LOOPING = """\
def checkpoint_forward(layers, x, checkpoint_indices):
    i = 0
    while i < len(layers):
        x = layers[i](x)
    return x, {-1: x}


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    raise NotImplementedError
"""

MESSAGE = re.compile(
    # The CPU limit, or the wall-clock one on a loaded machine; the figure is the one the
    # exercise sets (the service's default here), never hard-coded.
    r"^(CPU time|wall-clock time) limit of [\d.]+ s exceeded in test '[^']+', "
    r"during checkpoint_forward\(layers, x, \[[\d, ]*\]\), "
    r"at line (3: `while i < len\(layers\):`|4: `x = layers\[i\]\(x\)`)$"
)


def test_an_infinite_loop_names_the_limit_the_test_the_call_and_the_line(
    page: Page, server: str
) -> None:
    open_exercise(page, server)
    replace_code(page, LOOPING)
    submit(page, "Run")
    expect(results(page)).to_contain_text(re.compile(r"0/\d+ tests passed"))
    stopped = results(page).locator(".test.status-error").first
    expect(stopped.locator(".test-message")).to_have_text(MESSAGE)
    # Its duration is the time it ran until the limit stopped it (seconds), not "0.0 ms".
    expect(stopped.locator(".test-duration")).to_have_text(re.compile(r"^\d+\.\d+ s$"))
    # The tests after it never started.
    expect(results(page).locator(".test.status-not_run").first).to_contain_text("Not run")
    # The line the message names is one click away.
    found = MESSAGE.match(stopped.locator(".test-message").inner_text())
    assert found is not None
    number = int(found[2].split(":")[0])
    go = stopped.get_by_role("button", name=f"Go to line {number}")
    expect(go).to_be_visible()
    go.click()
    line = page.evaluate(
        "() => { const v = window.DrillPage.editor.view;"
        " return v.state.doc.lineAt(v.state.selection.main.head).number; }"
    )
    assert line == number
    assert editor_text(page) == LOOPING
