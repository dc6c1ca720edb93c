// Run, Submit and Cancel (frontend/src/grading.js) over fake elements and a fake
// api.submit: the busy state, a result, a problem shown where the results go, Cancel.

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, mock, test } from "node:test";

import { api } from "../../frontend/src/api.js";
import { setUpGrading } from "../../frontend/src/grading.js";
import { fakeDocument, fakeElement, findAll, byTag, h, text } from "./helpers.js";

const CODE = "import numpy as np\n";
const realSubmit = api.submit;
let doc;

beforeEach(() => {
  doc = fakeDocument();
});
afterEach(() => {
  api.submit = realSubmit;
  doc.restore();
  mock.timers.reset();
});

// The grading of an exercise whose NumPy track has a 10 s limit. api.submit answers when
// the test calls `answer(...)`.
function setUp() {
  const ui = {};
  for (const name of ["run", "submit", "reset", "cancel", "results", "grading", "gradingText", "gradingTimer", "notice", "announcer", "editorFrame"]) {
    ui[name] = fakeElement(name);
  }
  ui.cancel.hidden = true;
  ui.grading.hidden = true;
  const state = { track: "numpy", busy: null, latest: {}, viewing: {} };
  const log = { requests: [], calls: [] };
  let answer = null;
  api.submit = (...args) => {
    log.requests.push(args);
    return new Promise((resolve) => {
      answer = resolve;
    });
  };
  const record = (name) => (...args) => log.calls.push([name, ...args]);
  const grading = setUpGrading({
    slug: "broadcasting",
    data: { tracks: { numpy: { wall_seconds: 10 } } },
    state,
    ui,
    editor: { getValue: () => CODE },
    saver: { flush: record("flush") },
    layout: { isNarrow: () => false, selectTab: record("selectTab") },
    solved: { markSolved: record("markSolved") },
    reset: { clearUndo: record("clearUndo") },
    results: { renderResults: record("renderResults") },
    history: { addToHistory: record("addToHistory"), loadHistory: record("loadHistory") },
    h,
  });
  return { ui, state, log, grading, answer: (value) => answer(value) };
}

const busyButtons = (ui) => [ui.run, ui.submit, ui.reset].map((b) => b.disabled);
const noticeText = (ui) => findAll(ui.notice.children, byTag("p")).map(text);

describe("grading", () => {
  test("Submit: the page is busy until the answer, with a timer against the limit", async () => {
    const { ui, state, log, answer } = setUp();
    const [pending] = ui.submit.fire("click");
    assert.equal(log.requests.length, 1);
    const [slug, track, code, mode, options] = log.requests[0];
    assert.deepEqual([slug, track, code, mode], ["broadcasting", "numpy", CODE, "submit"]);
    assert.ok(options.signal instanceof AbortSignal);
    assert.deepEqual(log.calls, [["flush"], ["clearUndo"]], "the draft saved and the undo forgotten first");
    assert.deepEqual(busyButtons(ui), [true, true, true]);
    assert.equal(ui.submit.classList.contains("is-running"), true);
    assert.equal(ui.run.classList.contains("is-running"), false);
    assert.equal(ui.results.getAttribute("aria-busy"), "true");
    assert.equal(ui.cancel.hidden, false);
    assert.equal(ui.grading.hidden, false);
    assert.equal(ui.gradingText.textContent, "Running the hidden tests…");
    assert.equal(ui.gradingTimer.textContent, "0.0 s of 10 s");
    assert.equal(doc.document.activeElement, ui.cancel, "focus kept on an enabled button");

    ui.run.fire("click"); // a second press while grading does nothing
    assert.equal(log.requests.length, 1);

    const result = { id: "r1", track: "numpy", mode: "submit", status: "pass", passed: 2, total: 2, tests: [] };
    answer({ ok: true, status: 201, data: result });
    await pending;
    assert.equal(state.busy, null);
    assert.deepEqual(busyButtons(ui), [false, false, false]);
    assert.equal(ui.results.getAttribute("aria-busy"), "false");
    assert.equal(ui.cancel.hidden, true);
    assert.deepEqual(state.latest.numpy, { result, code: CODE });
    assert.deepEqual(log.calls.slice(2), [["addToHistory", "numpy", result], ["markSolved", "numpy"], ["renderResults"]]);
    assert.deepEqual(ui.notice.children, []);
  });

  test("a problem (429) is said where the results go, and focus returns to Submit", async () => {
    const { ui, state, log, answer } = setUp();
    const [pending] = ui.submit.fire("click");
    answer({ ok: false, status: 429, data: null, message: "too many submissions; you can submit again in 30 s", retryAfter: 30, aborted: false });
    await pending;
    assert.equal(ui.notice.children.length, 1);
    assert.equal(ui.notice.children[0].props.role, "alert");
    assert.deepEqual(noticeText(ui), [
      "Too many submissions.",
      "too many submissions; you can submit again in 30 s",
      "You can retry in 30 seconds. Your code is kept.",
    ]);
    assert.deepEqual(busyButtons(ui), [false, false, false]);
    assert.equal(ui.cancel.hidden, true);
    assert.equal(ui.grading.hidden, true);
    assert.equal(doc.document.activeElement, ui.submit);
    assert.equal(state.latest.numpy, undefined);
    assert.ok(!log.calls.some(([name]) => name === "renderResults" || name === "addToHistory"));
  });

  test("from the editor's shortcut, a problem leaves the cursor where it is", async () => {
    const { ui, answer, grading } = setUp();
    const cursor = { name: "cm-content" };
    ui.editorFrame.contains = (node) => node === cursor;
    doc.document.activeElement = cursor;
    const pending = grading.grade("run", cursor);
    assert.equal(ui.gradingText.textContent, "Running the examples…");
    assert.equal(ui.run.classList.contains("is-running"), true);
    answer({ ok: false, status: 0, data: null, message: "Could not reach the server.", retryAfter: null, aborted: false });
    await pending;
    assert.deepEqual(noticeText(ui), ["Could not reach the server.", "Check your connection and try again. Your code is kept in this browser."]);
    assert.equal(doc.document.activeElement, cursor);
  });

  test("an answer for a track left meanwhile shows no problem on the new one", async () => {
    const { ui, state, answer } = setUp();
    const [pending] = ui.submit.fire("click");
    state.track = "torch";
    answer({ ok: false, status: 503, data: null, message: "busy", retryAfter: 2, aborted: false });
    await pending;
    assert.deepEqual(ui.notice.children, []);
  });

  test("Cancel: stops waiting, says so, and looks in the history after the limit", async () => {
    mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
    const { ui, state, log, answer } = setUp();
    const [pending] = ui.submit.fire("click");
    const [signal] = log.requests.map((r) => r[4].signal);
    ui.cancel.fire("click");
    assert.equal(signal.aborted, true, "the request is aborted");
    assert.equal(state.busy, null);
    assert.deepEqual(busyButtons(ui), [false, false, false]);
    assert.equal(ui.notice.children[0].props.role, "status");
    assert.deepEqual(noticeText(ui), [
      "Stopped waiting for the result.",
      "The grader may still finish: the result will appear in your submission history.",
    ]);
    assert.equal(doc.document.activeElement, ui.submit);

    // The aborted request's answer changes nothing.
    answer({ ok: false, status: 0, data: null, message: "Cancelled.", retryAfter: null, aborted: true });
    await pending;
    assert.equal(noticeText(ui)[0], "Stopped waiting for the result.");

    const loads = () => log.calls.filter(([name]) => name === "loadHistory");
    mock.timers.tick(12_999); // the 10 s limit and a 3 s margin
    assert.deepEqual(loads(), []);
    mock.timers.tick(1);
    assert.deepEqual(loads(), [["loadHistory", "numpy", { adoptNewest: true }]]);
  });
});
