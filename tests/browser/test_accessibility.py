"""Accessibility of every page in Chromium, light and dark: axe-core (from npm) finds no
serious or critical violation, and no focus ring is cut off by a box that clips.

axe-core is served to the page from its own address (a Playwright route on the server's
origin), so the pages' Content-Security-Policy stays on: an inline script would be refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from graders.settings import ROOT
from tests.browser.learner import all_passed, open_exercise, replace_code, results, some_failed
from tests.catalog import shipped_exercises_dir
from tests.serving import running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_PATH = "/__test__/axe.min.js"  # answered by the route below, never by the server
TOKEN = "a11y-t0ken"
SLUG = "gradient-checkpointing"
NUMPY = shipped_exercises_dir() / SLUG / "numpy"
SOLUTION = (NUMPY / "solution.py").read_text()
WRONG = (NUMPY / "wrong" / "saves_references.py").read_text()
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")
WIDE, NARROW = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def axe_source() -> str:
    assert AXE.exists(), f"{AXE} is missing: `make install` (npm ci) installs axe-core"
    return AXE.read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``drill serve`` of its own with the dashboard on, and a few Submits to show."""
    var = tmp_path_factory.mktemp("a11y-var")
    with running_server(var, DRILL_INSTRUCTOR_TOKEN=TOKEN) as running:
        base = running.base
        with httpx.Client(base_url=base, timeout=120) as learner:
            learner.get(f"/api/exercises/{SLUG}")  # warm the references
            for code in (WRONG, SOLUTION, WRONG + "\n# </code></pre><script>alert(1)</script>\n"):
                body = {"track": "numpy", "code": code, "mode": "submit"}
                assert learner.post(f"/api/exercises/{SLUG}/submissions", json=body).is_success
        yield base


def with_axe(context: BrowserContext, base: str, source: str) -> None:
    context.route(
        f"{base}{AXE_PATH}",
        lambda route: route.fulfill(body=source, content_type="text/javascript"),
    )


@pytest.fixture
def open_page(
    browser: Browser, server: str, axe_source: str
) -> Iterator[Callable[[str, dict[str, int]], Page]]:
    """``open_page(scheme, viewport)``: a page in a fresh context (a new learner), which
    fails the test on a Content-Security-Policy error or a script error."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []  # console errors
    crashes: list[str] = []  # uncaught exceptions in the pages' scripts

    def make(scheme: str, viewport: dict[str, int] = WIDE) -> Page:
        context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
        contexts.append(context)
        with_axe(context, server, axe_source)
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: crashes.append(str(e)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
    assert not crashes, crashes


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    page.add_script_tag(url=AXE_PATH)
    report = page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ["violations"]});
            return result.violations;
        }"""
    )
    return [v for v in report if v["impact"] in BLOCKING]


def describe(violations: list[dict[str, Any]]) -> str:
    """Rule id, impact, help text and the selectors of each offending element."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} <{v['helpUrl']}>")
        for node in v["nodes"][:8]:
            lines.append(f"    {' > '.join(map(str, node['target']))}")
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            if summary:
                lines.append(f"      {summary[:300]}")
        if len(v["nodes"]) > 8:
            lines.append(f"    ... and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


def assert_no_violations(page: Page, what: str) -> None:
    found = axe_violations(page)
    assert not found, f"axe-core on {what} ({page.url}):\n{describe(found)}"


def log_in(page: Page, base: str) -> None:
    page.goto(f"{base}/instructor/login")
    page.get_by_label("Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{base}/instructor")


def submit(page: Page, code: str, expected: str | re.Pattern[str]) -> None:
    replace_code(page, code)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(expected, timeout=30_000)


# --- axe-core, page by page ---


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_catalog(open_page: Callable[..., Page], server: str, scheme: str) -> None:
    page = open_page(scheme)
    page.goto(server)
    expect(page.get_by_role("heading", name="Exercises", level=1)).to_be_visible()
    assert_no_violations(page, f"the catalog ({scheme})")
    # With progress shown: a solved track and a tried one.
    open_exercise(page, server)
    page.get_by_role("button", name="NumPy").click()
    submit(page, SOLUTION, all_passed(server))
    page.goto(server)
    expect(page.locator(f'[data-slug="{SLUG}"] .track-chip.is-solved')).to_be_visible()
    assert_no_violations(page, f"the catalog with progress ({scheme})")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280", "390"])
def test_an_exercise_before_and_after_submit(
    open_page: Callable[..., Page], server: str, scheme: str, viewport: dict[str, int]
) -> None:
    page = open_page(scheme, viewport)
    open_exercise(page, server)
    # Under the pointer: Submit's hover colours must keep its text readable too.
    page.get_by_role("button", name="Submit", exact=True).hover()
    assert_no_violations(page, f"an exercise before Submit ({scheme})")
    page.get_by_role("button", name="NumPy").click()
    submit(page, WRONG, some_failed(server))
    assert_no_violations(page, f"an exercise after a failing Submit ({scheme})")
    submit(page, SOLUTION, all_passed(server))
    assert_no_violations(page, f"an exercise after a passing Submit ({scheme})")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_instructor_login(open_page: Callable[..., Page], server: str, scheme: str) -> None:
    page = open_page(scheme)
    page.goto(f"{server}/instructor/login")
    assert_no_violations(page, f"the login form ({scheme})")
    page.get_by_label("Instructor token").fill("wrong")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("not the instructor token")
    assert_no_violations(page, f"the login form with an error ({scheme})")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280", "390"])
def test_the_dashboard_pages(
    open_page: Callable[..., Page], server: str, scheme: str, viewport: dict[str, int]
) -> None:
    page = open_page(scheme, viewport)
    log_in(page, server)
    assert_no_violations(page, f"the dashboard ({scheme})")
    page.get_by_role("link", name="Gradient checkpointing", exact=True).click()
    expect(page.locator(".recent-item").first).to_be_visible()
    assert_no_violations(page, f"an exercise's dashboard ({scheme})")
    page.get_by_role("link", name="Only learner").first.click()
    expect(page.get_by_text("Filtered: learner")).to_be_visible()
    assert_no_violations(page, f"the filtered submissions ({scheme})")
    page.get_by_label("Learner pseudonym").fill("not a pseudonym")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("alert")).to_contain_text("is not a learner pseudonym")
    assert_no_violations(page, f"the filter's error ({scheme})")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_error_page(open_page: Callable[..., Page], server: str, scheme: str) -> None:
    page = open_page(scheme)
    page.goto(f"{server}/exercises/no-such-exercise")
    expect(page.get_by_role("heading", name="Exercise not found")).to_be_visible()
    assert_no_violations(page, f"the 404 page ({scheme})")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280", "390"])
def test_the_account_and_course_pages(
    open_page: Callable[..., Page], server: str, scheme: str, viewport: dict[str, int]
) -> None:
    page = open_page(scheme, viewport)
    page.goto(f"{server}/account/signin")
    assert_no_violations(page, f"the sign-in form ({scheme})")
    page.goto(f"{server}/account/signup")
    name = f"a11y-{scheme}-{viewport['width']}"
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("The same password again").fill("short")
    page.get_by_label("Password", exact=True).evaluate("e => e.removeAttribute('minlength')")
    page.get_by_label("The same password again").evaluate("e => e.removeAttribute('minlength')")
    page.get_by_role("button", name="Create the account").click()
    expect(page.get_by_role("alert")).to_contain_text("at least 10 characters")
    assert_no_violations(page, f"the sign-up form with an error ({scheme})")
    page.get_by_label("Password", exact=True).fill("a long enough password")
    page.get_by_label("The same password again").fill("a long enough password")
    page.get_by_role("button", name="Create the account").click()
    page.goto(f"{server}/courses")
    assert_no_violations(page, f"the courses page ({scheme})")
    page.get_by_label("Title").fill("Accessible course")
    page.get_by_role("button", name="Create the course").click()
    page.get_by_role("button", name="Add the assignment").click()
    expect(page.locator("table.assignments tbody tr")).to_have_count(1)
    assert_no_violations(page, f"a course page ({scheme})")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"the course page is {width} px wide"  # tables scroll
    page.get_by_role("link", name="Gradebook").click()
    assert_no_violations(page, f"the gradebook ({scheme})")
    page.goto(f"{server}/account")
    assert_no_violations(page, f"the account page ({scheme})")


# --- focus rings ---

# For the focused element: its ring (outline width + offset, or a box-shadow), and the
# ancestors that clip their content (any overflow but visible) and would cut it. A ring
# may be drawn by a pseudo-element (the catalog's cards: the whole card is the link) or,
# for the code editor, by its frame (box-shadow under :focus-within).
FOCUS_RING = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
        [...e.classList].slice(0, 3).map((c) => "." + c).join("");
    const outline = (s) => s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0
        ? parseFloat(s.outlineWidth) + parseFloat(s.outlineOffset) : null;
    let owner = el, ring = outline(getComputedStyle(el));
    let shown = ring !== null || getComputedStyle(el).boxShadow !== "none";
    if (!shown) {
        for (const pseudo of ["::after", "::before"]) {
            const s = getComputedStyle(el, pseudo);
            if (outline(s) !== null) {
                ring = outline(s);
                owner = s.position === "absolute" && el.offsetParent ? el.offsetParent : el;
                shown = true;
                break;
            }
        }
    }
    const frame = el.closest(".editor-frame");
    if (!shown && frame && getComputedStyle(frame).boxShadow !== "none") {
        owner = frame;
        ring = 1;
        shown = true;
    }
    const box = owner.getBoundingClientRect();
    const out = Math.max(ring || 0, 0);
    const edges = {left: box.left - out, right: box.right + out, top: box.top - out,
                   bottom: box.bottom + out};
    const clipped = [];
    for (let a = owner.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === "visible" && s.overflowY === "visible") continue;
        const r = a.getBoundingClientRect();
        const inner = {
            left: r.left + parseFloat(s.borderLeftWidth),
            right: r.right - parseFloat(s.borderRightWidth),
            top: r.top + parseFloat(s.borderTopWidth),
            bottom: r.bottom - parseFloat(s.borderBottomWidth),
        };
        const cut = [];
        if (s.overflowX !== "visible" && edges.left < inner.left - 0.5) cut.push("left");
        if (s.overflowX !== "visible" && edges.right > inner.right + 0.5) cut.push("right");
        if (s.overflowY !== "visible" && edges.top < inner.top - 0.5) cut.push("top");
        if (s.overflowY !== "visible" && edges.bottom > inner.bottom + 0.5) cut.push("bottom");
        if (cut.length) clipped.push(name(a) + " cuts its " + cut.join(", "));
    }
    return {element: name(el), ring, shown, clipped,
            editor: el.classList.contains("cm-content")};
}"""


def walk_focus(page: Page, limit: int = 120) -> list[dict[str, Any]]:
    """Press Tab through the page (Escape first inside the code editor, where Tab indents)
    and read the focus ring of each element reached."""
    page.locator("body").click(position={"x": 1, "y": 1})
    seen: list[dict[str, Any]] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        found = page.evaluate(FOCUS_RING)
        if found is None:
            break
        if found["editor"]:
            page.keyboard.press("Escape")  # CodeMirror's way out: Escape, then Tab
        if seen and found["element"] == seen[0]["element"]:
            break  # round the page once
        seen.append(found)
    return seen


def assert_rings_whole(page: Page, what: str) -> None:
    stops = walk_focus(page)
    assert len(stops) > 3, f"{what}: Tab reached only {stops}"
    problems = [
        f"{stop['element']}: "
        + ("no visible focus ring" if not stop["shown"] else "; ".join(stop["clipped"]))
        for stop in stops
        if stop["clipped"] or not stop["shown"]
    ]
    assert not problems, f"focus rings on {what}:\n" + "\n".join(problems)


def settle_scrolling(page: Page) -> None:
    """Wait until the workspace stops moving (its scroll position the same 300 ms apart):
    a focus ring measured mid-scroll is cut by where the box happened to be."""
    page.wait_for_function(
        """() => new Promise((done) => {
            const box = document.getElementById("workspace");
            const at = box ? box.scrollTop : 0;
            setTimeout(() => done(!box || box.scrollTop === at), 300);
        })"""
    )


def assert_ring_whole_when_half_hidden(page: Page, before: str, control: str) -> None:
    """Chromium scrolls a control that is half out of view just far enough into view when
    it takes focus (one that is wholly out of view, to the middle): the workspace must
    leave room for its ring. A learner who scrolled a little leaves it so, and so can the
    results' own smooth scroll after a Submit."""
    page.locator(before).focus()
    page.wait_for_function(
        """(selector) => new Promise((done) => {
            const box = document.getElementById("workspace");
            const el = box.querySelector(selector);
            const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top;
            box.scrollTo({top: box.scrollTop + top + el.offsetHeight / 2, behavior: "instant"});
            const at = box.scrollTop;  // no smooth scroll of the page's still moving it
            setTimeout(() => done(box.scrollTop === at), 300);
        })""",
        arg=control,
    )
    page.keyboard.press("Tab")
    found = page.evaluate(FOCUS_RING)
    assert found["element"].startswith(f"button{control}"), found
    assert not found["clipped"], f"a half-hidden {control} taking focus: {found['clipped']}"


@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280", "390"])
def test_focus_rings_are_never_clipped(
    open_page: Callable[..., Page], server: str, viewport: dict[str, int]
) -> None:
    page = open_page("light", viewport)
    page.goto(server)
    assert_rings_whole(page, "the catalog")
    open_exercise(page, server)
    page.get_by_role("button", name="NumPy").click()
    submit(page, WRONG, some_failed(server))
    settle_scrolling(page)  # the results' smooth scroll, slower on a busy machine
    assert_rings_whole(page, "an exercise after Submit")
    if viewport is WIDE:  # the workspace is a scrolling box of its own
        # From the statement's last focusable element, Tab reaches the track switch.
        last_in_statement = ".statement-pane :is(a[href], [tabindex='0'], button):visible >> nth=-1"
        assert_ring_whole_when_half_hidden(page, last_in_statement, ".track-button")
    log_in(page, server)
    assert_rings_whole(page, "the dashboard")
    page.goto(f"{server}/instructor/exercises/{SLUG}")
    assert_rings_whole(page, "an exercise's dashboard")


# --- small screens ---


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_page_scrolls_sideways_at_390px(
    open_page: Callable[..., Page], server: str, scheme: str
) -> None:
    page = open_page(scheme, NARROW)
    log_in(page, server)
    pages = ("/", f"/exercises/{SLUG}", "/instructor", f"/instructor/exercises/{SLUG}")
    for url in (*pages, "/instructor/login", "/exercises/nope"):
        page.goto(f"{server}{url}")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= NARROW["width"], f"{url} is {width} px wide at 390 px"


def test_axe_reports_what_it_finds(open_page: Callable[..., Page], server: str) -> None:
    """The check itself: a page made to fail (grey on grey, an unnamed button) fails it,
    and the message names the rule, the impact and the element."""
    page = open_page("light")
    page.goto(f"{server}/instructor/login")
    page.evaluate(
        """() => {
            const p = document.querySelector(".lede");
            p.style.color = "#bbb";  // a script may set styles; only inline markup may not
            document.querySelector("form button").textContent = "";
        }"""
    )
    found = axe_violations(page)
    message = describe(found)
    assert {"color-contrast", "button-name"} <= {v["id"] for v in found}, message
    assert "color-contrast (serious)" in message and ".lede" in message, message
    assert "button-name (critical)" in message, message
