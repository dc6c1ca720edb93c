"""A page on another site, open in the learner's or the instructor's own Chromium, posts forms
to Drill: it neither replaces the learner (their cookie, hence their drafts, history and
progress) nor logs the instructor out. Drill is served on 127.0.0.1 and the hostile page
on localhost: two sites to the browser, as two domains are."""

from __future__ import annotations

import html
import http.server
import threading
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import open_exercise
from tests.serving import free_port, running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

TOKEN = "cross-site-t0ken"
SLUG = "gradient-checkpointing"


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("cross-site"), DRILL_INSTRUCTOR_TOKEN=TOKEN) as up:
        httpx.get(f"{up.base}/api/exercises/{SLUG}", timeout=120)  # warm the references
        yield up.base


class HostilePages:
    """An HTTP server on another site whose pages auto-submit one form each."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pages.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.port = free_port()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def form(self, name: str, action: str, fields: dict[str, str], enctype: str) -> str:
        inputs = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in fields.items()
        )
        self.pages[f"/{name}"] = (
            f'<!doctype html><title>prizes</title><form id="f" method="post" '
            f'action="{html.escape(action)}" enctype="{enctype}">{inputs}</form>'
            '<script>document.getElementById("f").submit()</script>'
        )
        return f"http://localhost:{self.port}/{name}"  # localhost: another site than 127.0.0.1

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostilePages]:
    pages = HostilePages()
    yield pages
    pages.close()


def cookie(page: Page, base: str, name: str) -> str | None:
    found = [c["value"] for c in page.context.cookies(base) if c["name"] == name]
    return found[0] if found else None


def test_a_page_on_another_site_cannot_reset_a_learner(
    page: Page, drill: str, hostile: HostilePages
) -> None:
    open_exercise(page, drill, SLUG)
    learner = cookie(page, drill, "drill_learner")
    assert learner
    # A text/plain form whose body reads as JSON: {"track": ..., "pad": "="}.
    body = '{"track": "numpy", "mode": "submit", "code": "x = 1", "pad": "'
    url = hostile.form(
        "submit", f"{drill}/api/exercises/{SLUG}/submissions", {body: '"}'}, "text/plain"
    )
    with page.expect_response(lambda r: "/submissions" in r.url) as answered:
        page.goto(url)
    assert answered.value.status == 403
    expect(page.locator("body")).to_contain_text("cross_site")
    assert cookie(page, drill, "drill_learner") == learner
    page.goto(f"{drill}/exercises/{SLUG}")
    assert cookie(page, drill, "drill_learner") == learner
    history = page.request.get(f"{drill}/api/exercises/{SLUG}/submissions?track=numpy").json()
    assert history == []  # nothing was submitted in the learner's name either


def test_a_page_on_another_site_cannot_log_an_instructor_out(
    page: Page, drill: str, hostile: HostilePages
) -> None:
    page.goto(f"{drill}/instructor/login")
    page.get_by_label("Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{drill}/instructor")
    logged_in = cookie(page, drill, "drill_instructor")
    assert logged_in
    url = hostile.form(
        "logout", f"{drill}/instructor/logout", {}, "application/x-www-form-urlencoded"
    )
    with page.expect_response(lambda r: r.url.endswith("/instructor/logout")) as answered:
        page.goto(url)
    assert answered.value.status == 403
    assert cookie(page, drill, "drill_instructor") == logged_in
    page.goto(f"{drill}/instructor")
    expect(page).to_have_url(f"{drill}/instructor")  # still logged in: no login form
    # Drill's own Log out button still works.
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(f"{drill}/instructor/login")
