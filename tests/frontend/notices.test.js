// Rendering a problem (frontend/src/notices.js): a grading request that produced no
// result, as the learner reads it above the results. The answers come from the real API
// client (api.js) reading fake HTTP responses, as the page gets them from a Run or Submit.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { request } from "../../frontend/src/api.js";
import { renderAttemptError, renderProblem, renderStoppedWaiting } from "../../frontend/src/notices.js";
import { byClass, byTag, findAll, h, text } from "./helpers.js";

// What api.submit resolves to when the server answers `status` with `body` (JSON unless a
// string) and `headers`.
function answered(status, body, headers = {}) {
  const payload = body == null ? null : typeof body === "string" ? body : JSON.stringify(body);
  const fetch = async () => new Response(payload, { status, headers: { "Content-Type": "application/json", ...headers } });
  return request("POST", "/api/exercises/broadcasting/submissions", { track: "numpy", code: "x", mode: "submit" }, { fetch });
}

// The notice as the learner reads it: its title, then its paragraphs.
function read(notice) {
  const [title, ...lines] = findAll(notice, byTag("p")).map(text);
  return { title, lines };
}

describe("renderProblem", () => {
  test("429: too many submissions, the server's reason, and when to retry (Retry-After)", async () => {
    const answer = await answered(
      429,
      { error: "rate_limited", message: "too many submissions; you can submit again in 30 s", retry_after: 30 },
      { "Retry-After": "30" },
    );
    const notice = renderProblem(answer, { h });
    assert.equal(notice.tag, "div");
    assert.equal(notice.props.className, "notice");
    assert.equal(notice.props.role, "alert", "read out at once");
    assert.deepEqual(read(notice), {
      title: "Too many submissions.",
      lines: ["too many submissions; you can submit again in 30 s", "You can retry in 30 seconds. Your code is kept."],
    });
    assert.equal(findAll(notice, byClass("notice-title")).length, 1);
    assert.equal(text(findAll(notice, byClass("notice-title"))[0]), "Too many submissions.");
  });

  test("429 with one second to wait says 'second'", async () => {
    const answer = await answered(429, { error: "rate_limited", message: "slow down" }, { "Retry-After": "1" });
    assert.equal(read(renderProblem(answer, { h })).lines[1], "You can retry in 1 second. Your code is kept.");
  });

  test("429 with Retry-After as an HTTP date counts the seconds left", async () => {
    const when = new Date(Math.floor(Date.now() / 1000) * 1000 + 120_000).toUTCString();
    const answer = await answered(429, { error: "rate_limited", message: "slow down" }, { "Retry-After": when });
    assert.match(read(renderProblem(answer, { h })).lines[1], /^You can retry in 1(19|20) seconds\. Your code is kept\.$/);
  });

  test("503 without Retry-After: the graders are busy, retry in a moment", async () => {
    const answer = await answered(503, { error: "unavailable", message: "the graders are at capacity; please try again in a few seconds" });
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "The graders are busy.",
      lines: ["the graders are at capacity; please try again in a few seconds", "You can retry in a moment. Your code is kept."],
    });
  });

  test("413: the code is too large, with the server's limit", async () => {
    const answer = await answered(413, { error: "too_large", message: "the request body is larger than 256 KiB" });
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "Your code is too large to grade.",
      lines: ["the request body is larger than 256 KiB"],
    });
  });

  test("413 from a proxy, without a JSON body, still says the status", async () => {
    const answer = await answered(413, "<html>Request Entity Too Large</html>", { "Content-Type": "text/html" });
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "Your code is too large to grade.",
      lines: ["The server answered 413."],
    });
  });

  test("422: our error body's message", async () => {
    const answer = await answered(422, {
      error: "invalid_request",
      message: "invalid request: mode: Input should be 'run' or 'submit'",
      detail: [{ loc: ["body", "mode"], msg: "Input should be 'run' or 'submit'", type: "literal_error" }],
    });
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "Could not grade your code.",
      lines: ["invalid request: mode: Input should be 'run' or 'submit'"],
    });
  });

  test("422: FastAPI's own body (a list of details) joined into one line", async () => {
    const answer = await answered(422, { detail: [{ msg: "Field required" }, { msg: "Input should be a valid string" }] });
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "Could not grade your code.",
      lines: ["Field required; Input should be a valid string"],
    });
  });

  test("a network failure: the server is out of reach, the code stays in this browser", async () => {
    const answer = await request("POST", "/api/x", {}, { fetch: () => Promise.reject(new TypeError("Failed to fetch")) });
    assert.equal(answer.status, 0);
    assert.deepEqual(read(renderProblem(answer, { h })), {
      title: "Could not reach the server.",
      lines: ["Check your connection and try again. Your code is kept in this browser."],
    });
  });

  test("an answer without a message shows the title alone, no empty paragraph", () => {
    const notice = renderProblem({ ok: false, status: 500, message: "", retryAfter: null }, { h });
    assert.deepEqual(read(notice), { title: "Could not grade your code.", lines: [] });
  });

  test("the server's message stays text", () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const notice = renderProblem({ ok: false, status: 400, message: hostile, retryAfter: null }, { h });
    assert.equal(read(notice).lines[0], hostile);
    assert.equal(findAll(notice, byTag("img")).length, 0);
  });
});

describe("the other notices", () => {
  test("after Cancel: stopped waiting, the result will reach the history", () => {
    const notice = renderStoppedWaiting({ h });
    assert.equal(notice.props.className, "notice notice-info");
    assert.equal(notice.props.role, "status", "polite: the learner asked for it");
    assert.deepEqual(read(notice), {
      title: "Stopped waiting for the result.",
      lines: ["The grader may still finish: the result will appear in your submission history."],
    });
  });

  test("an attempt that could not be loaded says why", () => {
    const notice = renderAttemptError("Submission not found.", { h });
    assert.equal(notice.props.role, "alert");
    assert.deepEqual(read(notice), { title: "Could not load that attempt.", lines: ["Submission not found."] });
  });
});
