// The page's smaller pure pieces: formatting, shortcuts, tabs, history and the API
// client's error handling.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { errorMessage, parseRetryAfter, request } from "../../frontend/src/api.js";
import { elapsedText, formatBytes, formatDuration, relativeTime } from "../../frontend/src/format.js";
import { cleanHistory, entryLabel, renderHistory, solvedBy } from "../../frontend/src/history.js";
import { isTyping, shortcutFor } from "../../frontend/src/shortcuts.js";
import { nextTabIndex } from "../../frontend/src/tabs.js";
import { byTag, findAll, h, text } from "./helpers.js";

describe("format", () => {
  test("elapsed time against the limit", () => {
    assert.equal(elapsedText(1234, 10), "1.2 s of 10 s");
    assert.equal(elapsedText(0, 2.5), "0.0 s of 2.5 s");
    assert.equal(elapsedText(900, null), "0.9 s");
  });

  test("sizes", () => {
    assert.equal(formatBytes(512), "512 bytes");
    assert.equal(formatBytes(1), "1 byte");
    assert.equal(formatBytes(16 * 1024), "16 KiB");
    assert.equal(formatBytes(1536), "1.5 KiB");
    assert.equal(formatBytes(12_300_000), "12.3 MB");
    assert.equal(formatBytes(4.2e9), "4.2 GB");
  });

  test("durations", () => {
    assert.equal(formatDuration(0.42), "0.4 ms");
    assert.equal(formatDuration(23.4), "23 ms");
    assert.equal(formatDuration(1250), "1.25 s");
    assert.equal(formatDuration(undefined), "");
  });

  test("relative times", () => {
    const now = Date.parse("2026-12-03T12:00:00Z");
    assert.equal(relativeTime("2026-12-03T11:59:40Z", now), "just now");
    assert.equal(relativeTime("2026-12-03T11:55:00Z", now), "5 min ago");
    assert.equal(relativeTime("2026-12-03T09:00:00Z", now), "3 h ago");
    assert.equal(relativeTime("2026-12-01T12:00:00Z", now), "2 days ago");
    assert.equal(relativeTime("2026-10-01T12:00:00Z", now), "2026-10-01");
    assert.equal(relativeTime("nonsense", now), "");
  });
});

describe("shortcuts", () => {
  const button = { tagName: "BUTTON", closest: () => null };
  const editor = { tagName: "DIV", isContentEditable: true, closest: () => ({}) };
  const key = (key, extra = {}) => ({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: button, ...extra });

  test("Run and Submit anywhere, in the editor too", () => {
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true })), "submit");
    assert.equal(shortcutFor(key("Enter", { metaKey: true })), "submit");
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true, shiftKey: true })), "run");
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true, target: editor })), "submit");
    assert.equal(shortcutFor(key("Enter")), null);
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true, altKey: true })), null);
  });

  test("'?' opens the list, but types a question mark where one types", () => {
    assert.equal(shortcutFor(key("?", { shiftKey: true })), "help");
    assert.equal(shortcutFor(key("?", { target: editor })), null);
    assert.equal(shortcutFor(key("?", { target: { tagName: "INPUT", type: "text" } })), null);
    assert.equal(shortcutFor(key("?", { target: { tagName: "INPUT", type: "checkbox" } })), "help");
    assert.equal(shortcutFor(key("?", { target: { tagName: "TEXTAREA" } })), null);
    assert.equal(shortcutFor(key("?", { ctrlKey: true })), null);
  });

  test("no shortcut while composing (IME) or on auto-repeat", () => {
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true, isComposing: true })), null);
    assert.equal(shortcutFor(key("Enter", { ctrlKey: true, repeat: true })), null);
  });

  test("isTyping", () => {
    assert.equal(isTyping(null), false);
    assert.equal(isTyping(button), false);
    assert.equal(isTyping({ tagName: "SPAN", closest: (s) => (s === ".cm-editor" ? {} : null) }), true);
  });
});

describe("tabs", () => {
  test("arrow keys wrap; Home and End", () => {
    assert.equal(nextTabIndex("ArrowRight", 2, 3), 0);
    assert.equal(nextTabIndex("ArrowLeft", 0, 3), 2);
    assert.equal(nextTabIndex("Home", 2, 3), 0);
    assert.equal(nextTabIndex("End", 0, 3), 2);
    assert.equal(nextTabIndex("a", 0, 3), null);
  });
});

describe("history", () => {
  const rows = [
    { id: "a", mode: "run", status: "pass", passed: 2, total: 2, duration_ms: 12, created_at: "2026-12-03T10:00:00+00:00" },
    { id: "b", mode: "submit", status: "fail", passed: 4, total: 6, duration_ms: 30, created_at: "2026-12-03T11:00:00+00:00" },
    { id: "c", mode: "submit", status: "error", passed: 0, total: 0, duration_ms: 3, created_at: "2026-12-03T09:00:00+00:00" },
    { nonsense: true },
  ];

  test("newest first, malformed rows dropped", () => {
    assert.deepEqual(cleanHistory(rows).map((r) => r.id), ["b", "a", "c"]);
    assert.deepEqual(cleanHistory(null), []);
  });

  test("labels", () => {
    assert.equal(entryLabel(rows[1]), "Submit · 4/6 passed");
    assert.equal(entryLabel(rows[0]), "Run · 2/2 passed");
    assert.equal(entryLabel(rows[2]), "Submit · could not be graded");
  });

  test("each entry is a button; the shown one is current", () => {
    const chosen = [];
    const nodes = renderHistory(cleanHistory(rows), { h, selectedId: "a", onSelect: (row) => chosen.push(row.id), now: Date.parse("2026-12-03T11:00:30Z") });
    const buttons = findAll(nodes, byTag("button"));
    assert.equal(buttons.length, 3);
    assert.equal(buttons[1].props["aria-current"], "true");
    assert.equal(buttons[0].props["aria-current"], null);
    assert.match(text(buttons[0]), /Failed.*Submit · 4\/6 passed.*just now/);
    buttons[2].props.onClick();
    assert.deepEqual(chosen, ["c"]);
  });

  test("an empty history says so", () => {
    assert.match(text(renderHistory([], { h, onSelect() {} })), /No attempts on this track yet/);
  });
});

describe("api", () => {
  test("Retry-After as seconds or a date", () => {
    assert.equal(parseRetryAfter("3"), 3);
    assert.equal(parseRetryAfter("Thu, 03 Dec 2026 12:00:10 GMT", Date.parse("2026-12-03T12:00:00Z")), 10);
    assert.equal(parseRetryAfter(""), null);
  });

  test("error messages from our bodies and FastAPI's", () => {
    assert.equal(errorMessage({ message: "Solve this track first" }, 403), "Solve this track first");
    assert.equal(errorMessage({ detail: [{ msg: "bad" }, { msg: "worse" }] }, 422), "bad; worse");
    assert.equal(errorMessage(null, 500), "The server answered 500.");
  });

  test("a cancelled request resolves, marked aborted", async () => {
    const controller = new AbortController();
    const fetch = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError")));
      });
    const pending = request("POST", "/api/x", { a: 1 }, { signal: controller.signal, fetch });
    controller.abort();
    const answer = await pending;
    assert.equal(answer.ok, false);
    assert.equal(answer.aborted, true);
    assert.equal(answer.status, 0);
  });

  test("a network failure is not a cancel", async () => {
    const answer = await request("GET", "/x", undefined, { fetch: () => Promise.reject(new TypeError("offline")) });
    assert.equal(answer.aborted, false);
    assert.equal(answer.message, "Could not reach the server.");
  });
});

describe("solvedBy", () => {
  const submit = (id, status, regrade_of = null) => ({ id, mode: "submit", status, regrade_of });

  test("a passing Submit solves the track; a Run does not", () => {
    assert.equal(solvedBy([submit("a", "pass")]), true);
    assert.equal(solvedBy([{ id: "r", mode: "run", status: "pass" }]), false);
    assert.equal(solvedBy([submit("a", "fail")]), false);
  });

  test("a pass that a regrade replaced by a failure no longer counts", () => {
    assert.equal(solvedBy([submit("b", "fail", "a"), submit("a", "pass")]), false);
    assert.equal(solvedBy([submit("b", "pass", "a"), submit("a", "fail")]), true);
    assert.equal(solvedBy([submit("b", "fail", "a"), submit("a", "pass"), submit("c", "pass")]), true);
  });
});

test("a launched page sends its session in a header, and only once it has one", async () => {
  const { request, setSessionToken } = await import("../../frontend/src/api.js");
  const seen = [];
  const fetch = async (url, init) => {
    seen.push(init.headers["X-Drill-Session"]);
    return { ok: true, status: 200, headers: { get: () => null }, json: async () => ({}) };
  };
  await request("GET", "/api/progress", undefined, { fetch });
  setSessionToken("tok_abcdefghijklmnopqrstuvwxyz0123456789");
  await request("POST", "/api/x", { a: 1 }, { fetch });
  setSessionToken(null);
  await request("GET", "/api/progress", undefined, { fetch });
  assert.deepEqual(seen, [undefined, "tok_abcdefghijklmnopqrstuvwxyz0123456789", undefined]);
});
