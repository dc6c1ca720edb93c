"""An LMS course page embeds Drill's launch in an iframe, in Chromium with third-party
cookies blocked, the LMS and Drill on different sites (127.0.0.1 and localhost): the
learner solves the exercise inside the frame (its requests carry the launch's session in
a header: no cookie of Drill's reaches it), and the LMS's gradebook gets the score. A
forged launch shows Drill's refusal page in the same frame.

Chromium blocks third-party cookies by the profile's preference (``cookie_controls_mode``
1, what chrome://settings/cookies sets), written before it starts; the test checks that
the frame really gets no cookie (a SameSite=None probe cookie stays out of it)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from joserfc.jwk import RSAKey
from playwright.sync_api import Browser, BrowserContext, Frame, Page, expect

from app.lti.registration import ToolSite
from app.lti.store import DbRegistrations
from app.store import Store
from graders.settings import ROOT
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.learner import GC_SOLUTION, all_passed
from tests.lti.drill import OPERATOR_TOKEN, wait_for
from tests.lti.platform import Platform
from tests.serving import free_port, running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    lms = Platform(
        RSAKey.generate_key(2048, parameters={"kid": "lms-1"}),
        RSAKey.generate_key(2048, parameters={"kid": "lms-1"}),  # a forger's, same kid
    )
    with lms.running():
        yield lms


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory, platform: Platform) -> Iterator[str]:
    """``drill serve`` at http://localhost:PORT (another site than the LMS's 127.0.0.1),
    with the LMS registered."""
    var = tmp_path_factory.mktemp("lti-browser")
    port = free_port()
    base = f"http://localhost:{port}"
    environment = {"DRILL_INSTRUCTOR_TOKEN": OPERATOR_TOKEN, "DRILL_PUBLIC_URL": base}
    with running_server(var, port=port, **environment):
        store = Store(f"sqlite:///{var / 'drill.db'}")
        DbRegistrations(store).add(platform.registration())
        store.close()
        platform.know_tool(ToolSite(base))
        yield base


@pytest.fixture
def context(browser: Browser, tmp_path: Path) -> Iterator[BrowserContext]:
    """A Chromium profile that blocks third-party cookies. Started through the session's
    Playwright (tests/browser/conftest.py): a second sync_playwright in the same process
    refuses to start while the first one runs."""
    (tmp_path / "Default").mkdir()
    preferences = {"profile": {"cookie_controls_mode": 1, "block_third_party_cookies": True}}
    (tmp_path / "Default" / "Preferences").write_text(json.dumps(preferences))
    opened = browser.browser_type.launch_persistent_context(
        tmp_path,
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": 1280, "height": 1000},
    )
    yield opened
    opened.close()


def tool_frame(page: Page, drill: str) -> Frame:
    """The LMS page's iframe, once the launch landed in it (login, the LMS's
    authorization, then the form posted to Drill's launch URL)."""
    handle = page.locator("#tool").element_handle()
    frame = handle.content_frame() if handle else None
    assert frame is not None
    frame.wait_for_url(f"{drill}/lti/launch", timeout=30_000)
    return frame


def paste(page: Page, frame: Frame, code: str) -> None:
    box = frame.get_by_role("textbox", name="Code editor")
    box.click()
    expect(box).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    frame.wait_for_function("code => window.DrillPage.editor.getValue() === code", arg=code)


def test_a_learner_solves_the_exercise_inside_the_lms_with_third_party_cookies_blocked(
    context: BrowserContext, drill: str, platform: Platform
) -> None:
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # A cookie the framed page would see if third-party cookies were allowed.
    context.add_cookies(
        [
            {
                "name": "probe",
                "value": "1",
                "domain": "localhost",
                "path": "/",
                "sameSite": "None",
                "secure": True,
            }
        ]
    )
    page.goto(f"{platform.base}/course?user=learner1")
    frame = tool_frame(page, drill)
    banner = frame.locator("#lti-banner")
    expect(banner).to_be_visible(timeout=30_000)
    host = platform.base.removeprefix("http://")
    expect(banner).to_have_text(f"Signed in from {host}, Deep Learning as Learner 1 (learner).")
    assert frame.url == f"{drill}/lti/launch"
    assert frame.evaluate("document.cookie") == ""  # no cookie reaches the frame
    assert frame.evaluate("document.hasStorageAccess()") is False

    expect(frame.get_by_role("textbox", name="Code editor")).to_be_visible()
    paste(page, frame, GC_SOLUTION)
    frame.get_by_role("button", name="Submit", exact=True).click()
    results = frame.get_by_role("region", name="Test results")
    passed = all_passed(drill.replace("localhost", "127.0.0.1"))
    expect(results).to_contain_text(passed, timeout=120_000)
    frame.evaluate("window.scrollTo(0, 0)")  # the banner, for the docs' picture
    page.screenshot(path=str(ROOT / "docs" / "screenshot-lti-launch.png"))

    score = wait_for(lambda: platform.scores, within=30, what="the score in the LMS")[0]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == (
        "sub-learner1",
        1.0,
        1.0,
    )
    assert score["activityProgress"] == "Completed" and re.match(r"\d{4}-", score["timestamp"])
    # Drill set no cookie in the frame: the session went in the header only.
    assert [c["name"] for c in context.cookies(drill)] == ["probe"]
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors


def test_a_forged_launch_shows_the_refusal_inside_the_lms(
    context: BrowserContext, drill: str, platform: Platform
) -> None:
    platform.signing = "other"  # the LMS's /auth now signs with a forger's key
    try:
        page = context.new_page()
        page.goto(f"{platform.base}/course?user=learner2")
        frame = tool_frame(page, drill)
        heading = frame.get_by_role("heading", name="The launch was refused")
        expect(heading).to_be_visible(timeout=30_000)
        expect(frame.locator("#lti-refusal")).to_have_text(
            "The launch's signature does not match the platform's keys."
        )
    finally:
        platform.signing = "platform"
