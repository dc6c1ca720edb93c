"""A learner's path through the pages, in Chromium, against the real service."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from graders.settings import ROOT
from tests.browser.learner import (
    GC,
    all_passed,
    editor,
    open_exercise,
    replace_code,
    results,
)
from tests.catalog import (
    BASICS_SECTION,
    BASICS_SECTION_NAME,
    MEMORY_SECTION,
    MEMORY_SECTION_NAME,
    only,
    shipped_exercises_dir,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

TRACK_NAMES = {"numpy": "NumPy", "torch": "PyTorch"}
SCREENSHOT = ROOT / "var" / "screenshots" / "exercise.png"  # docs/ holds a copy


def test_catalog_lists_the_exercises_by_section(page: Page, server: str) -> None:
    page.goto(server)
    expect(page).to_have_title(re.compile("Drill"))
    link = page.get_by_role("link", name=re.compile("Gradient checkpointing"))
    expect(link).to_be_visible()
    expect(page.get_by_role("link", name=re.compile("layer stack", re.I))).to_be_visible()
    expect(page.get_by_text("Memory and autograd").first).to_be_visible()
    link.click()
    expect(page).to_have_url(f"{server}/exercises/gradient-checkpointing")
    expect(page.get_by_role("heading", name="Gradient checkpointing", level=1)).to_be_visible()


def test_submit_a_correct_solution_and_every_test_passes(page: Page, server: str) -> None:
    open_exercise(page, server)
    replace_code(page, (GC / "numpy" / "solution.py").read_text())
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server), timeout=30_000)
    expect(results(page).get_by_text(re.compile("^fail", re.I))).to_have_count(0)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    page.goto(server)  # the catalog now marks the track solved
    card = page.get_by_role("listitem").filter(has_text="Gradient checkpointing")
    expect(card).to_contain_text("NumPy ✓ solved")


def test_run_shows_the_worked_examples(page: Page, server: str) -> None:
    open_exercise(page, server)
    replace_code(page, (GC / "numpy" / "solution.py").read_text())
    page.get_by_role("button", name="Run", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, mode="run"), timeout=30_000)


def test_failures_come_first_with_their_message(page: Page, server: str) -> None:
    open_exercise(page, server)
    wrong = (GC / "numpy" / "wrong" / "replays_from_input.py").read_text()
    replace_code(page, wrong)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text("tests passed", timeout=30_000)
    expect(results(page)).to_contain_text("calls")
    expect(results(page)).not_to_contain_text(all_passed(server))


FAILING_SCREENSHOT = ROOT / "var" / "screenshots" / "failing-test.png"  # docs/ holds a copy


def test_a_failing_hidden_test_shows_the_call_expected_and_got(page: Page, server: str) -> None:
    open_exercise(page, server)
    reference = (GC / "numpy" / "solution.py").read_text()
    stops_early = reference.replace(
        "layers[start + 1 : layer_idx + 1]", "layers[start + 1 : layer_idx]"
    )
    assert stops_early != reference
    replace_code(page, stops_early)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text("tests passed", timeout=30_000)
    failing = results(page).locator(".test-message").first
    # "In case 'LABEL', checkpoint_recompute(...)": the failing case of the table, then its call.
    expect(failing).to_contain_text("checkpoint_recompute(layers, saved_activations, ")
    # A hidden test shows a summary (reveal="summary"): what ran against how many calls
    # are expected, and what was got where the values differ, but no expected value.
    expect(failing).to_contain_text(re.compile(r"values differ at \d+ of \d+ positions?; .*got \S"))
    expect(failing).to_contain_text(re.compile(r"ran: \d+ calls? where \d+ (is|are) expected"))
    expect(failing).not_to_contain_text("— expected")
    failing.scroll_into_view_if_needed()
    FAILING_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(FAILING_SCREENSHOT))


def test_a_syntax_error_shows_its_line(page: Page, server: str) -> None:
    open_exercise(page, server)
    replace_code(page, "def checkpoint_forward(layers, x, checkpoint_indices):\n    return (\n")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text("SyntaxError", timeout=30_000)
    expect(results(page)).to_contain_text("line 2")


def test_reveal_hints_one_at_a_time(page: Page, server: str) -> None:
    open_exercise(page, server)
    total = httpx.get(f"{server}/api/exercises/{GC.name}", timeout=30).json()["hint_count"]
    assert total >= 2, "this test reveals a first hint and then offers the second"
    page.get_by_role("button", name="Hints", exact=True).click()  # beside the editor
    button = page.get_by_role("button", name=re.compile(r"^Show hint \d"))
    expect(button).to_have_text(re.compile(f"Show hint 1 of {total}"))
    button.click()
    first = (GC / "hints" / "1.md").read_text().split()[:4]
    expect(page.get_by_text(" ".join(first), exact=False).first).to_be_visible()
    expect(button).to_have_text(re.compile(f"Show hint 2 of {total}"))
    page.reload()
    # Revealed hints are kept (and the panel stays open, as the learner left it).
    expect(page.get_by_text(" ".join(first), exact=False).first).to_be_visible()


def test_the_draft_survives_a_reload_and_another_session(page: Page, server: str) -> None:
    open_exercise(page, server)
    page.get_by_role("button", name="PyTorch").click()
    marker = "# my draft 42"
    replace_code(page, f"{marker}\nimport torch\n")
    # "Draft saved" comes once the server has the draft ("Unsaved changes…" matched
    # "saved" at once, and a fixed pause stood in for the save).
    expect(page.get_by_text("Draft saved", exact=True).first).to_be_visible(timeout=30_000)
    page.reload()
    page.get_by_role("button", name="PyTorch").click()
    expect(editor(page)).to_contain_text(marker)

    # Same learner (cookie), fresh browser storage: the server's copy comes back.
    cookies = page.context.cookies()
    other = page.context.browser.new_context()  # type: ignore[union-attr]
    other.add_cookies(cookies)
    second = other.new_page()
    second.goto(f"{server}/exercises/gradient-checkpointing")
    second.get_by_role("button", name="PyTorch").click()
    expect(second.get_by_role("textbox", name="Code editor")).to_contain_text(marker)
    other.close()


def test_switching_track_keeps_each_tracks_code(page: Page, server: str) -> None:
    open_exercise(page, server)
    numpy_button = page.get_by_role("button", name="NumPy")
    torch_button = page.get_by_role("button", name="PyTorch")
    numpy_button.click()
    replace_code(page, "# numpy work\n")
    torch_button.click()
    expect(torch_button).to_have_attribute("aria-pressed", "true")
    expect(editor(page)).not_to_contain_text("# numpy work")
    replace_code(page, (GC / "torch" / "solution.py").read_text())
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, track="torch"), timeout=30_000)
    numpy_button.click()
    expect(editor(page)).to_contain_text("# numpy work")


def test_output_with_html_is_shown_as_text(page: Page, server: str) -> None:
    open_exercise(page, server)
    code = (GC / "numpy" / "solution.py").read_text()
    code += '\nprint("<img src=x id=injected><b>bold?</b>")\n'
    replace_code(page, code)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, mode="run"), timeout=30_000)
    for toggle in results(page).locator("summary").all():
        toggle.click()
    expect(results(page)).to_contain_text("<img src=x id=injected><b>bold?</b>")
    assert page.locator("#injected").count() == 0
    assert results(page).locator("b").count() == 0


def test_the_layer_stack_is_solvable(page: Page, server: str) -> None:
    slug = "checkpointing-layer-stack"
    open_exercise(page, server, slug)
    solution = shipped_exercises_dir() / slug / "torch" / "solution.py"
    replace_code(page, solution.read_text())
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, slug, "torch"), timeout=30_000)


def test_the_catalog_lists_the_memory_section_in_order(page: Page, server: str) -> None:
    # Issue 13's order, relative: an instructor's exercises may come anywhere.
    page.goto(server)
    section = page.get_by_role("region", name=MEMORY_SECTION_NAME)
    links = section.locator(".exercise-card-title a")
    expect(links.first).to_be_visible()
    hrefs = [str(links.nth(i).get_attribute("href")) for i in range(links.count())]
    slugs = [href.removeprefix("/exercises/") for href in hrefs]
    assert only(slugs) == list(MEMORY_SECTION)


@pytest.mark.parametrize("slug", MEMORY_SECTION[3:] + MEMORY_SECTION[:1])
def test_each_new_exercise_is_solvable_in_the_browser(page: Page, server: str, slug: str) -> None:
    # A learner's solution in another style than the reference (the first alternative),
    # typed into the editor of the exercise's only track: Run, then Submit.
    folder = shipped_exercises_dir() / slug
    (track,) = [p.parent.name for p in folder.glob("*/solution.py")]
    alternative = sorted((folder / track / "alternatives").glob("*.py"))[0]
    open_exercise(page, server, slug)
    replace_code(page, alternative.read_text())
    page.get_by_role("button", name="Run", exact=True).click()
    run = all_passed(server, slug, track, mode="run")
    expect(results(page)).to_contain_text(run, timeout=30_000)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, slug, track), timeout=30_000)
    expect(results(page).get_by_text(re.compile("^fail", re.I))).to_have_count(0)


@pytest.mark.parametrize("slug", BASICS_SECTION)
def test_each_tensors_exercise_is_solvable_in_the_browser(
    page: Page, server: str, slug: str
) -> None:
    # Issue 29: one track of each exercise of the first section, by an alternative (a style
    # other than the reference) pasted into the editor: Run, Submit, then the link onwards,
    # which after the section's last exercise leads into the next section.
    folder = shipped_exercises_dir() / slug
    tracks = sorted(p.parent.name for p in folder.glob("*/solution.py"))
    position = BASICS_SECTION.index(slug)
    track = tracks[position % len(tracks)]  # NumPy and PyTorch by turns
    alternatives = sorted((folder / track / "alternatives").glob("*.py"))
    alternative = alternatives[position % len(alternatives)]  # a different style each time
    open_exercise(page, server, slug)
    page.get_by_role("button", name=TRACK_NAMES[track], exact=True).click()
    replace_code(page, alternative.read_text())
    page.get_by_role("button", name="Run", exact=True).click()
    expect(results(page)).to_contain_text(
        all_passed(server, slug, track, mode="run"), timeout=30_000
    )
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, slug, track), timeout=30_000)
    expect(results(page).get_by_text(re.compile("^fail", re.I))).to_have_count(0)
    following = httpx.get(f"{server}/api/exercises/{slug}", timeout=30).json()["next_exercise"]
    onwards = page.locator("#next-link")
    if following["section"] == BASICS_SECTION_NAME:
        expect(onwards).to_have_text(f"Next exercise: {following['title']}")
    else:
        expect(onwards).to_have_text(f"Next section, {following['section']}: {following['title']}")
    expect(onwards).to_have_attribute("href", f"/exercises/{following['slug']}")


def test_keyboard_shortcut_submits(page: Page, server: str) -> None:
    open_exercise(page, server)
    replace_code(page, (GC / "numpy" / "solution.py").read_text())
    page.keyboard.press("Control+Enter")
    expect(results(page)).to_contain_text(all_passed(server), timeout=30_000)


def test_page_works_without_the_editor_bundle(page: Page, server: str) -> None:
    page.route("**/static/build/editor.js*", lambda route: route.abort())
    open_exercise(page, server, codemirror=False)
    assert page.locator("textarea[aria-label='Code editor']").is_visible()
    replace_code(page, (GC / "numpy" / "solution.py").read_text())
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server), timeout=30_000)
