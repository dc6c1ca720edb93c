"""Third-party-initiated login: the redirect to the platform, the checks on the initiation,
and the whole browser round trip (login, platform, form_post, launch) over HTTP."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from app.lti.errors import LtiError
from app.lti.login import begin_login, take_pending
from app.lti.memory import MemoryLoginStates
from tests.lti.platform import FormReader, Platform
from tests.lti.tool import Tool


def test_the_login_redirects_to_the_platform_with_every_parameter(
    platform: Platform, tool: Tool
) -> None:
    params = platform.login_initiation("learner1")
    redirect = begin_login(params, tool.registrations, tool.site, now=1000.0)

    url = urlsplit(redirect.url)
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{platform.base}/auth"
    query = {name: values[0] for name, values in parse_qs(url.query).items()}
    assert query == {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": tool.site.launch_url,
        "login_hint": "learner1",
        "lti_message_hint": "resource",
        "state": redirect.pending.state,
        "nonce": redirect.pending.nonce,
    }
    assert redirect.pending.expires_at == 1600.0
    assert redirect.pending.target_link_uri == tool.site.launch_url


def test_state_and_nonce_are_fresh_random_and_url_safe(platform: Platform, tool: Tool) -> None:
    made = [
        begin_login(platform.login_initiation(), tool.registrations, tool.site).pending
        for _ in range(5)
    ]
    values = [p.state for p in made] + [p.nonce for p in made]
    assert len(set(values)) == len(values)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{40,}", value) for value in values)


def test_client_id_and_deployment_id_may_be_left_out(platform: Platform, tool: Tool) -> None:
    params = platform.login_initiation()
    del params["client_id"], params["lti_deployment_id"], params["lti_message_hint"]
    redirect = begin_login(params, tool.registrations, tool.site)
    assert "lti_message_hint" not in redirect.url
    assert redirect.registration == platform.registration()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"iss": "https://unknown.example.com"}, "not registered with this tool"),
        ({"client_id": "someone-else"}, "not registered with this tool"),
        ({"lti_deployment_id": "deployment-9"}, "deployment deployment-9, unknown"),
        ({"login_hint": ""}, "lacks the login_hint parameter"),
        ({"target_link_uri": "https://evil.example.com/phish"}, "not on this tool's site"),
        ({"lti_message_hint": "x" * 5000}, "lti_message_hint is over 2048 characters"),
    ],
)
def test_a_bad_login_initiation_is_refused(
    platform: Platform, tool: Tool, change: dict[str, str], message: str
) -> None:
    params = platform.login_initiation() | change
    with pytest.raises(LtiError, match=re.escape(message)):
        begin_login(params, tool.registrations, tool.site)


def test_a_state_is_taken_once_and_never_after_it_expired(platform: Platform, tool: Tool) -> None:
    states = MemoryLoginStates()
    first = begin_login(platform.login_initiation(), tool.registrations, tool.site, now=0.0)
    second = begin_login(platform.login_initiation(), tool.registrations, tool.site, now=0.0)
    states.put(first.pending)
    states.put(second.pending)
    assert take_pending(states, first.pending.state, now=10.0) == first.pending
    with pytest.raises(LtiError, match="unknown, expired or already used"):
        take_pending(states, first.pending.state, now=10.0)
    with pytest.raises(LtiError, match="unknown, expired or already used"):
        take_pending(states, second.pending.state, now=601.0)
    with pytest.raises(LtiError, match="has no state"):
        take_pending(states, "", now=10.0)


def browser_launch(platform: Platform, tool: Tool, user: str, message: str) -> httpx.Response:
    """What the browser does: the login initiation, the platform's authorization page,
    then the form it posts to the tool."""
    with httpx.Client(follow_redirects=True) as browser:
        page = browser.get(tool.site.login_url, params=platform.login_initiation(user, message))
        assert page.status_code == 200, page.text
        form = FormReader(page.text)
        assert form.action == tool.site.launch_url
        assert set(form.fields) == {"id_token", "state"}
        return browser.post(form.action, data=form.fields)


def test_a_browser_launch_goes_through_login_platform_and_launch(
    platform: Platform, tool: Tool
) -> None:
    answer = browser_launch(platform, tool, "teacher", "resource")
    assert answer.status_code == 200, answer.text
    launch = answer.json()
    assert launch["subject"] == "sub-teacher"
    assert launch["role"] == "instructor"
    assert launch["message_type"] == "LtiResourceLinkRequest"
    (asked,) = platform.auth_requests
    assert asked["redirect_uri"] == tool.site.launch_url


def test_a_browser_deep_linking_launch_goes_through_too(platform: Platform, tool: Tool) -> None:
    answer = browser_launch(platform, tool, "teacher", "deep")
    assert answer.status_code == 200, answer.text
    assert answer.json()["message_type"] == "LtiDeepLinkingRequest"


def test_a_launch_posted_again_is_refused(platform: Platform, tool: Tool) -> None:
    with httpx.Client(follow_redirects=True) as browser:
        page = browser.get(tool.site.login_url, params=platform.login_initiation())
        form = FormReader(page.text)
        assert form.action is not None
        assert browser.post(form.action, data=form.fields).status_code == 200
        again = browser.post(form.action, data=form.fields)
    assert again.status_code == 400
    assert "state is unknown, expired or already used" in again.json()["error"]


def test_a_launch_whose_nonce_is_not_the_logins_is_refused(platform: Platform, tool: Tool) -> None:
    """A valid id_token made for another login (another browser's) cannot finish this one."""
    redirect = begin_login(platform.login_initiation(), tool.registrations, tool.site)
    tool.states.put(redirect.pending)
    token = platform.id_token(nonce="a-nonce-of-another-login")
    answer = httpx.post(
        tool.site.launch_url, data={"id_token": token, "state": redirect.pending.state}
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == (
        "the launch's nonce is not the one this browser's login asked for"
    )


def test_the_course_page_embeds_the_tool_login_in_an_iframe(platform: Platform, tool: Tool) -> None:
    page = httpx.get(f"{platform.base}/course", params={"user": "learner2"}).text
    (src,) = re.findall(r"<iframe[^>]* src='([^']*)'", page)
    src = src.replace("&amp;", "&")
    assert src.startswith(tool.site.login_url + "?")
    query = {name: values[0] for name, values in parse_qs(urlsplit(src).query).items()}
    assert query == platform.login_initiation("learner2")
