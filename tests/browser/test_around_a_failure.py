"""The exercise page around a failure (issue 27, point 7), in Chromium against the real
service: the hints beside the editor, long lines that wrap, the learner's passing code
beside the reference, the stale note for the current result only, and what the module
printed while loading shown apart from the tests.

Each test gets a fresh browser context, hence a new learner (cookie) and empty storage.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.learner import (
    GC_SOLUTION,
    GC_WRONG,
    all_passed,
    counts,
    editor,
    history_entries,
    open_exercise,
    replace_code,
    results,
    submit,
    summary,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

WIDE = {"width": 1280, "height": 900}
NARROW = {"width": 390, "height": 844}
LONG = "a_rather_long_name + " * 12  # about 250 characters on one line
NEXT_HINT = re.compile(r"^Show hint \d+ of \d+$")


def box(locator: Locator) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not shown"
    return found


def window_scroll(page: Page) -> int:
    return int(page.evaluate("() => window.scrollY"))


def no_horizontal_scroll(page: Page) -> None:
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], f"the page scrolls sideways: {sizes[0]} px in {sizes[1]} px"


def wider_than_shown(page: Page, selector: str) -> list[str]:
    """The boxes matching ``selector`` whose content is wider than they show (they would
    scroll sideways)."""
    return list(
        page.evaluate(
            """(selector) => [...document.querySelectorAll(selector)]
                .filter((e) => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1)
                .map((e) => `${e.className}: ${e.scrollWidth} > ${e.clientWidth}`)""",
            selector,
        )
    )


# --- 1. hints beside the editor ---


def test_hints_open_beside_the_editor_without_scrolling_the_statement(
    page: Page, server: str
) -> None:
    page.set_viewport_size(WIDE)
    open_exercise(page, server)
    toggle = page.get_by_role("button", name="Hints", exact=True)
    hints = page.get_by_role("region", name="Hints")
    expect(toggle).to_be_in_viewport()  # in the bar above the editor
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(hints).to_be_hidden()

    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(hints).to_be_in_viewport()
    expect(editor(page)).to_be_in_viewport()
    # Beside the editor, in the workspace column, not under the statement.
    statement = box(page.locator("#statement-pane"))
    assert box(hints)["x"] >= statement["x"] + statement["width"]
    assert abs(box(hints)["x"] - box(page.locator("#editor"))["x"]) < 2
    assert window_scroll(page) == 0, "the statement moved"

    # One at a time, as before.
    button = hints.get_by_role("button", name=NEXT_HINT)
    expect(button).to_have_text(re.compile(r"^Show hint 1 of \d+$"))
    button.click()
    first = page.locator("#hint-1")
    expect(first).not_to_have_class(re.compile("is-loading"))
    expect(first).to_be_in_viewport()
    expect(page.locator("#hint-list > li")).to_have_count(1)
    expect(button).to_have_text(re.compile(r"^Show hint 2 of \d+$"))
    expect(editor(page)).to_be_in_viewport()
    assert window_scroll(page) == 0, "the statement moved"

    # Closed by its button (or Escape); open again after a reload, as the learner left it.
    page.get_by_role("button", name="Close hints").click()
    expect(hints).to_be_hidden()
    expect(toggle).to_be_focused()
    toggle.click()
    page.reload()
    expect(page.get_by_role("region", name="Hints")).to_be_in_viewport()
    expect(page.locator("#hint-1")).to_be_visible()
    page.keyboard.press("Escape")  # focus is on the page, not in the panel: stays open
    expect(page.get_by_role("region", name="Hints")).to_be_visible()
    page.locator("#hint-button").focus()
    page.keyboard.press("Escape")
    expect(page.get_by_role("region", name="Hints")).to_be_hidden()


def test_a_failing_tests_hint_link_opens_the_hints_beside_the_editor(
    page: Page, server: str
) -> None:
    page.set_viewport_size(WIDE)
    open_exercise(page, server)
    replace_code(page, GC_WRONG)
    submit(page)
    link = results(page).get_by_role("link", name=re.compile(r"^Hint \d+ may help$")).first
    expect(link).to_be_visible()
    n = int(re.findall(r"\d+", link.inner_text())[0])
    link.scroll_into_view_if_needed()
    before = window_scroll(page)
    link.click()
    hint = page.locator(f"#hint-{n}")
    expect(hint).not_to_have_class(re.compile("is-loading"))
    expect(hint).to_be_in_viewport()
    expect(hint).to_be_focused()
    expect(page.locator("#hint-list > li")).to_have_count(n)  # the ones before it too
    assert window_scroll(page) == before, "the statement moved"


# --- 2. long lines wrap ---


@pytest.mark.parametrize("viewport", [NARROW, WIDE], ids=["390", "1280"])
def test_long_lines_wrap_in_the_statement_the_editor_and_the_solution(
    page: Page, server: str, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    open_exercise(page, server)
    narrow = viewport is NARROW

    # The statement's code blocks wrap rather than scroll.
    if narrow:
        page.get_by_role("tab", name="Statement").click()
    blocks = page.locator(".statement pre")
    assert blocks.count() > 0
    assert blocks.first.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
    assert wider_than_shown(page, ".statement pre") == []
    no_horizontal_scroll(page)

    # The editor: an indented long line wraps, and its rest starts under its code.
    # At the top: CodeMirror draws only the lines in view.
    code = f"def helper():\n    return {LONG}1\n\n\n" + GC_SOLUTION
    replace_code(page, code)
    assert wider_than_shown(page, "#editor .cm-scroller") == []
    no_horizontal_scroll(page)
    line = page.locator(".cm-line", has_text="a_rather_long_name").first
    line.scroll_into_view_if_needed()
    rows, code_start, rest_start = line.evaluate(
        """(line) => {
            const range = document.createRange();
            range.selectNodeContents(line);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            const first = document.createRange();
            const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
            let node = walker.nextNode();
            while (node && !/\\S/.test(node.textContent)) node = walker.nextNode();
            const at = node.textContent.search(/\\S/);
            first.setStart(node, at);
            first.setEnd(node, at + 1);
            const style = getComputedStyle(line);
            return [tops.size, first.getBoundingClientRect().left,
                    line.getBoundingClientRect().left + parseFloat(style.paddingLeft)];
        }"""
    )
    assert rows > 1, "the long line did not wrap"
    assert abs(code_start - rest_start) < 2, (code_start, rest_start)

    # After solving: the reference solution, and the compare view of the learner's code.
    submit(page)
    expect(summary(page)).to_have_text(all_passed(server))
    page.get_by_role("button", name="Show solution").click()
    expect(page.locator("#solution-code .cm-content")).to_contain_text("def checkpoint_forward")
    assert wider_than_shown(page, "#solution-code .cm-scroller") == []
    no_horizontal_scroll(page)
    page.get_by_role("button", name="Compare with your code").click()
    dialog = page.get_by_role("dialog", name=re.compile("^Your code and the reference"))
    expect(dialog.get_by_role("textbox", name=re.compile("^Your passing code"))).to_contain_text(
        "a_rather_long_name"
    )
    assert wider_than_shown(page, "#compare-dialog .cm-scroller") == []
    assert wider_than_shown(page, "#compare-dialog") == []
    no_horizontal_scroll(page)


# --- 3. the learner's passing code beside the reference ---


def test_compare_the_passing_code_with_the_reference_side_by_side(page: Page, server: str) -> None:
    page.set_viewport_size(WIDE)
    open_exercise(page, server)
    compare = page.get_by_role("button", name="Compare with your code")
    expect(compare).to_have_count(0)  # nothing to compare before solving
    mine = "# my own way\n" + GC_SOLUTION
    replace_code(page, mine)
    submit(page)
    expect(summary(page)).to_have_text(all_passed(server))
    # The learner edits on: the comparison shows the code that passed, not the editor's.
    replace_code(page, GC_WRONG)

    compare.click()
    dialog = page.get_by_role("dialog", name="Your code and the reference solution (NumPy)")
    expect(dialog).to_be_visible()
    yours = dialog.get_by_role("textbox", name=re.compile(r"^Your passing code \(NumPy\)"))
    reference = dialog.get_by_role(
        "textbox", name=re.compile(r"^Reference solution to compare \(NumPy\)")
    )
    expect(yours).to_contain_text("# my own way")
    expect(reference).to_contain_text("def checkpoint_forward")
    expect(reference).not_to_contain_text("# my own way")
    expect(dialog).to_contain_text("Your Submit that passed every hidden test")
    # The boxes that show them (the text boxes themselves are as tall as their text).
    left, right = box(page.locator("#compare-yours")), box(page.locator("#compare-reference"))
    assert left["x"] + left["width"] <= right["x"], "not side by side"
    assert abs(left["y"] - right["y"]) < 2, "not side by side"
    assert left["width"] > 400 and right["width"] > 400, (left, right)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(compare).to_be_focused()

    # A later visit finds the passing Submit in the history; stacked on a phone.
    page.reload()
    page.set_viewport_size(NARROW)
    page.get_by_role("tab", name="Results").click()
    compare.click()
    expect(yours).to_contain_text("# my own way")
    expect(reference).to_contain_text("def checkpoint_forward")
    top, bottom = box(page.locator("#compare-yours")), box(page.locator("#compare-reference"))
    assert top["y"] + top["height"] <= bottom["y"], "not stacked"
    no_horizontal_scroll(page)
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()


# --- 4. the stale note, for the current result only ---


def test_the_stale_note_is_for_the_current_result_not_an_earlier_attempt(
    page: Page, server: str
) -> None:
    page.set_viewport_size(WIDE)
    open_exercise(page, server)
    stale = page.get_by_text("Your code has changed since these results")
    replace_code(page, GC_SOLUTION)
    submit(page, "Run")
    replace_code(page, GC_WRONG)
    submit(page)
    expect(stale).to_be_hidden()  # the result is for the code in the editor

    replace_code(page, GC_WRONG + "\n# edited since\n")
    expect(stale).to_be_visible()  # the current result, for other code

    entries = history_entries(page)
    examples, _ = counts(server)
    entries.nth(1).click()  # the earlier Run
    expect(results(page)).to_contain_text("Showing an earlier attempt")
    expect(summary(page)).to_have_text(f"{examples}/{examples} tests passed")
    expect(stale).to_be_hidden()  # old by choice: the banner says so

    page.get_by_role("button", name="Back to the latest result").click()
    expect(stale).to_be_visible()
    entries.nth(0).click()  # the latest result, chosen in the history: still current
    expect(stale).to_be_visible()
    replace_code(page, GC_WRONG)
    expect(stale).to_be_hidden()


# --- 5. what the module printed while loading, apart ---


def test_what_the_module_prints_while_loading_is_shown_apart_from_the_tests(
    page: Page, server: str
) -> None:
    page.set_viewport_size(WIDE)
    open_exercise(page, server)
    loud = 'print("hello from import time")\n' + GC_SOLUTION.replace(
        '    """Run every layer once;', '    print("in the forward")\n    """Run every layer once;'
    )
    assert "in the forward" in loud
    replace_code(page, loud)
    submit(page, "Run")
    expect(summary(page)).to_have_text(all_passed(server, mode="run"))
    block = results(page).get_by_role("region", name="Printed while your module was loading")
    expect(block).to_be_visible()
    expect(block.locator("summary")).to_have_text("Printed while your module was loading (1 line)")
    expect(block.locator("pre")).to_have_text("hello from import time")
    # Above the tests, and in none of their outputs (the first one's included).
    tests = results(page).locator(".test-list")
    above = block.evaluate(  # measured at once: the results may still be scrolling
        """(b) => b.getBoundingClientRect().bottom
                 <= document.querySelector('#results .test-list').getBoundingClientRect().top"""
    )
    assert above, "the block is not above the tests"
    results(page).locator(".test-list details").evaluate_all(
        "all => all.forEach(d => (d.open = true))"
    )
    outputs = results(page).locator(".test-list .test-output pre")
    expect(outputs.first).to_be_visible()
    printed = outputs.all_inner_texts()
    assert not [text for text in printed if "hello from import time" in text], printed
    assert printed[0].startswith("in the forward"), printed[0][:200]  # the first test's own
    expect(tests).not_to_contain_text("hello from import time")
