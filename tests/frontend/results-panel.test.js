// Rendering a result into the results panel (frontend/src/results-panel.js, with
// results-view.js): what the learner reads after a pass, a failure, an error, a run cut
// short and a truncated output; the stale note, the marked line and an earlier attempt.

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";

import { TRUNCATION_MARKER } from "../../frontend/src/results-view.js";
import { setUpResultsPanel } from "../../frontend/src/results-panel.js";
import { byClass, byTag, fakeDocument, fakeElement, findAll, h, text } from "./helpers.js";

const CODE = "def f(x):\n    return x\n";

function result(overrides = {}) {
  return {
    id: "r1",
    exercise: "broadcasting",
    track: "numpy",
    mode: "submit",
    version: 1,
    status: "pass",
    message: "",
    passed: 3,
    total: 3,
    duration_ms: 23,
    created_at: "2020-01-05T10:00:00+00:00",
    tests: ["shapes", "values", "dtype"].map((name) => ({ name, status: "pass", message: "", output: "", duration_ms: 1.5, hint: null })),
    ...overrides,
  };
}

// A panel over fake elements and a fake editor holding `editorText`; `latest` and
// `viewing` are what the track's results hold.
function setUp({ latest = null, viewing = null, editorText = CODE, narrow = false } = {}) {
  const state = { track: "numpy", latest: {}, viewing: {}, touched: false };
  if (latest) state.latest.numpy = latest;
  if (viewing) state.viewing.numpy = viewing;
  const ui = {
    body: fakeElement("results-body"),
    stale: fakeElement("results-stale"),
    attemptBanner: fakeElement("attempt-banner"),
    actionStatus: fakeElement("action-status-text"),
  };
  const log = { marked: [], focused: 0, tabs: [], hints: [], histories: [], setCode: [], scheduled: [] };
  const editor = {
    text: editorText,
    getValue() {
      return editor.text;
    },
    markLine: (n) => log.marked.push(n),
    focus: () => (log.focused += 1),
  };
  const panel = setUpResultsPanel({
    state,
    ui,
    editor,
    setCode: (code) => {
      editor.text = code;
      log.setCode.push(code);
    },
    saver: { schedule: (track, code) => log.scheduled.push([track, code]) },
    layout: { isNarrow: () => narrow, selectTab: (name) => log.tabs.push(name) },
    onHint: (n) => log.hints.push(n),
    showHistory: (track) => log.histories.push(track),
    h,
  });
  return { state, ui, editor, log, panel };
}

const heading = (ui) => findAll(ui.body.children, byTag("h2"))[0];
const items = (ui) => findAll(ui.body.children, byTag("li"));

describe("the results panel", () => {
  test("with no result yet, says how to get one", () => {
    const { ui, log, panel } = setUp();
    panel.renderResults();
    assert.equal(ui.body.children.length, 1);
    assert.equal(ui.body.children[0].props.className, "results-empty");
    assert.equal(text(ui.body), "Press Run to try the examples, or Submit to grade your code against the hidden tests.");
    assert.deepEqual(findAll(ui.body.children, byTag("strong")).map(text), ["Run", "Submit"]);
    assert.equal(ui.stale.hidden, true);
    assert.equal(ui.attemptBanner.hidden, true);
    assert.deepEqual(log.marked, [null]);
  });

  test("a pass: every test passed, the track solved", () => {
    const { ui, log, panel } = setUp({ latest: { result: result(), code: CODE } });
    panel.renderResults();
    const h2 = heading(ui);
    assert.equal(text(h2), "3/3 tests passed");
    assert.equal(h2.props.id, "results-summary");
    assert.match(h2.props.className, /\bstatus-pass\b/);
    assert.equal(text(findAll(ui.body.children, byClass("results-meta"))[0]), "Submit · hidden tests · NumPy · 23 ms");
    assert.equal(text(findAll(ui.body.children, byClass("results-success"))[0]), "Every hidden test passes: this track is solved.");
    const [list] = findAll(ui.body.children, byClass("test-list"));
    assert.equal(list.props["aria-label"], "3 tests, 3 passed");
    assert.deepEqual(
      items(ui).map((li) => [li.props.className, ...["test-status", "test-name", "test-duration"].map((c) => text(findAll(li, byClass(c))[0]))]),
      [
        ["test status-pass", "✓ Passed", "shapes", "2 ms"],
        ["test status-pass", "✓ Passed", "values", "2 ms"],
        ["test status-pass", "✓ Passed", "dtype", "2 ms"],
      ],
    );
    assert.equal(findAll(ui.body.children, byClass("test-details")).length, 0, "nothing to open on a pass");
    assert.equal(ui.stale.hidden, true, "the result is for the code in the editor");
    assert.deepEqual(log.marked, [null]);
  });

  test("a failure: failures first with their messages, the first one open, its hint offered", () => {
    const failing = result({
      status: "fail",
      passed: 1,
      tests: [
        { name: "shapes", status: "pass", message: "", output: "", duration_ms: 1, hint: null },
        { name: "values", status: "fail", message: "In f(x):\nvalues differ at [0, 2]: expected 3.0, got 2.0", output: "", duration_ms: 2, hint: 2 },
        { name: "dtype", status: "fail", message: "dtype differs: expected float64, got int64", output: "", duration_ms: 3, hint: null },
      ],
    });
    const { ui, log, panel } = setUp({ latest: { result: failing, code: CODE } });
    panel.renderResults();
    assert.equal(text(heading(ui)), "1/3 tests passed");
    assert.match(heading(ui).props.className, /\bstatus-fail\b/);
    assert.equal(findAll(ui.body.children, byClass("results-success")).length, 0);
    const list = items(ui);
    assert.deepEqual(
      list.map((li) => text(findAll(li, byClass("test-name"))[0])),
      ["values", "dtype", "shapes"],
      "failures before passes",
    );
    assert.deepEqual(
      findAll(ui.body.children, byClass("test-message")).map(text),
      ["In f(x):\nvalues differ at [0, 2]: expected 3.0, got 2.0", "dtype differs: expected float64, got int64"],
    );
    assert.deepEqual(findAll(ui.body.children, byClass("test-preview")).map(text), [
      "values differ at [0, 2]: expected 3.0, got 2.0",
      "dtype differs: expected float64, got int64",
    ]);
    const details = findAll(ui.body.children, byClass("test-details"));
    assert.deepEqual(details.map((d) => d.props.open), [true, false], "only the first failure is open");
    assert.match(text(list[0]), /^✗ Failedvalues/);
    const [link] = findAll(ui.body.children, byTag("a"));
    assert.equal(text(link), "Hint 2 may help");
    assert.equal(link.props.href, "#hint-2");
    link.props.onClick({ preventDefault() {} });
    assert.deepEqual(log.hints, [2]);
  });

  test("an error with a message: why it could not be graded, its line marked and offered", () => {
    const broken = result({
      status: "error",
      passed: 0,
      total: 0,
      tests: [],
      message: "SyntaxError at line 2, column 12: '(' was never closed",
    });
    const { ui, log, panel } = setUp({ latest: { result: broken, code: CODE }, narrow: true });
    panel.renderResults();
    assert.equal(text(heading(ui)), "Your code could not be graded");
    assert.match(heading(ui).props.className, /\bstatus-error\b/);
    const [message] = findAll(ui.body.children, byClass("results-message"));
    assert.equal(text(findAll(message, byTag("pre"))[0]), "SyntaxError at line 2, column 12: '(' was never closed");
    assert.equal(findAll(ui.body.children, byClass("test-list")).length, 0);
    assert.deepEqual(log.marked, [2], "the editor holds the graded code: its line is marked");
    const [button] = findAll(message, byTag("button"));
    assert.equal(text(button), "Go to line 2");
    button.props.onClick();
    assert.deepEqual(log.tabs, ["code"], "on a narrow screen the Code tab comes first");
    assert.deepEqual(log.marked, [2, 2]);
    assert.equal(log.focused, 1);
  });

  test("an error for code since changed: no line marked, the stale note shown", () => {
    const broken = result({ status: "error", passed: 0, total: 0, tests: [], message: "SyntaxError at line 2, column 1: x" });
    const { ui, log, panel } = setUp({ latest: { result: broken, code: CODE }, editorText: "something else\n" });
    panel.renderResults();
    assert.deepEqual(log.marked, [null]);
    assert.equal(ui.stale.hidden, false);
  });

  test("a Run cut short: the tests that never ran say so, apart from the failures", () => {
    const cut = result({
      mode: "run",
      status: "error",
      passed: 1,
      total: 3,
      tests: [
        { name: "small", status: "pass", message: "", output: "", duration_ms: 1 },
        { name: "large", status: "error", message: "timed out after 5 s", output: "", duration_ms: 5000 },
        { name: "huge", status: "not_run", message: "test 'large' ended the run (timed out after 5 s) before this test started", output: "", duration_ms: 0 },
      ],
    });
    const { ui, panel } = setUp({ latest: { result: cut, code: CODE } });
    panel.renderResults();
    assert.equal(text(heading(ui)), "1/3 tests passed");
    assert.match(text(findAll(ui.body.children, byClass("results-meta"))[0]), /^Run · examples · NumPy/);
    assert.equal(text(findAll(ui.body.children, byClass("results-not-run"))[0]), "1 test did not run: an earlier test ended the run.");
    const list = items(ui);
    assert.deepEqual(list.map((li) => li.props.className), ["test status-error", "test status-pass", "test status-not_run"]);
    const notRun = list[2];
    assert.equal(text(findAll(notRun, byClass("test-status"))[0]), "– Not run");
    assert.equal(text(findAll(notRun, byClass("test-duration"))[0]), "", "no time for a test that never ran");
    assert.equal(
      text(findAll(notRun, byClass("test-message"))[0]),
      "test 'large' ended the run (timed out after 5 s) before this test started",
    );
    assert.equal(text(findAll(list[0], byClass("test-status"))[0]), "! Error");
    assert.equal(text(findAll(list[0], byClass("test-message"))[0]), "timed out after 5 s");
  });

  test("a truncated output: the note on top, what was kept, without the marker", () => {
    const kept = "step 1\n".repeat(3000); // 21000 bytes
    const noisy = result({
      status: "fail",
      passed: 0,
      total: 1,
      tests: [
        {
          name: "prints",
          status: "fail",
          message: "values differ",
          output: kept + TRUNCATION_MARKER,
          output_truncated: true,
          output_bytes: 5_000_000,
          duration_ms: 40,
        },
      ],
    });
    const { ui, panel } = setUp({ latest: { result: noisy, code: CODE } });
    panel.renderResults();
    const [output] = findAll(ui.body.children, byClass("test-output"));
    assert.equal(output.tag, "details");
    assert.equal(output.props.open, true, "the first failure's output is open");
    assert.equal(text(findAll(output, byTag("summary"))[0]), "Your output (truncated: first 21 KiB of 5.0 MB)");
    assert.equal(text(findAll(output, byClass("output-note"))[0]), "Output truncated: showing the first 21 KiB of 5.0 MB; the rest was not kept.");
    const shown = text(findAll(output, byTag("code"))[0]);
    assert.equal(shown, kept);
    assert.ok(!shown.includes("[output truncated]"));
  });
});

describe("a failure that is not a verdict on the code", () => {
  test("a test blamed on the grader: its note in the panel, next to its message", () => {
    const blamed = result({
      status: "error",
      passed: 2,
      total: 3,
      tests: [
        { name: "shapes", status: "pass", message: "", output: "", duration_ms: 1, hint: null, blame: null },
        { name: "values", status: "error", message: "internal grading error", output: "", duration_ms: 2, hint: 2, blame: "grader" },
        { name: "dtype", status: "pass", message: "", output: "", duration_ms: 1, hint: null, blame: null },
      ],
    });
    const { ui, panel } = setUp({ latest: { result: blamed, code: CODE } });
    panel.renderResults();
    assert.equal(text(heading(ui)), "2/3 tests passed, 1 could not be judged");
    const [values] = items(ui);
    assert.deepEqual(
      findAll(values, byClass("test-body")).map(text),
      ["internal grading errorDrill's grader failed here, so this is not a verdict on your code. Please press Submit again."],
    );
    assert.equal(findAll(ui.body.children, byClass("blame-grader")).length, 1);
  });

  test("a whole run lost with its machine: the note with the message, no line marked", () => {
    const lost = result({
      status: "error",
      passed: 0,
      total: 0,
      tests: [],
      message: "the grading machine was lost at line 2 of its job",
      blame: "infrastructure",
    });
    const { ui, log, panel } = setUp({ latest: { result: lost, code: CODE } });
    panel.renderResults();
    assert.equal(text(heading(ui)), "Your code could not be graded");
    const [message] = findAll(ui.body.children, byClass("results-message"));
    assert.equal(
      text(message),
      "the grading machine was lost at line 2 of its job" +
        "The grading machine was lost before grading finished, so this is not a verdict on your code. Please press Submit again.",
    );
    assert.deepEqual(findAll(message, byTag("button")), []);
    assert.deepEqual(log.marked, [null], "no line of the learner's code is marked");
  });

  test("an earlier attempt stored before blame existed: no note", () => {
    const old = result({
      status: "error",
      passed: 2,
      total: 3,
      tests: [
        { name: "shapes", status: "pass", message: "", output: "", duration_ms: 1, hint: null },
        { name: "values", status: "error", message: "internal grading error", output: "", duration_ms: 2, hint: null },
      ],
    });
    const row = { id: "r1", mode: "submit", status: "error", passed: 2, total: 3, created_at: "2020-01-05T10:00:00+00:00" };
    const { ui, panel } = setUp({ viewing: { result: old, code: CODE, row } });
    panel.renderResults();
    assert.equal(ui.attemptBanner.hidden, false);
    assert.equal(text(heading(ui)), "2/3 tests passed");
    assert.deepEqual(findAll(ui.body.children, byClass("blame-note")), []);
    assert.doesNotMatch(text(ui.body), /not a verdict|not in your code/);
  });
});

describe("an earlier attempt chosen in the history", () => {
  let doc;
  beforeEach(() => {
    doc = fakeDocument();
  });
  afterEach(() => doc.restore());

  const older = result({ id: "old", status: "fail", passed: 1, total: 3 });
  const row = { id: "old", mode: "submit", status: "fail", passed: 1, total: 3, created_at: "2020-01-05T10:00:00+00:00" };

  test("a banner says which; its code loads into the editor as one change", () => {
    const viewing = { result: older, code: "old code\n", row };
    const { state, ui, log, panel, editor } = setUp({ latest: { result: result(), code: CODE }, viewing });
    panel.renderResults();
    assert.equal(ui.attemptBanner.hidden, false);
    assert.equal(text(findAll(ui.attemptBanner.children, byClass("attempt-title"))[0]), "Showing an earlier attempt: Submit · 1/3 passed, 2020-01-05.");
    const buttons = findAll(ui.attemptBanner.children, byTag("button"));
    assert.deepEqual(buttons.map(text), ["Load this code into the editor", "Back to the latest result"]);
    assert.equal(text(heading(ui)), "1/3 tests passed", "the attempt's result, not the latest");
    // The editor holds other code, but the attempt is old by choice: no stale note.
    assert.equal(ui.stale.hidden, true, "no stale note for an earlier attempt");

    buttons[0].props.onClick();
    assert.equal(editor.text, "old code\n");
    assert.deepEqual(log.scheduled, [["numpy", "old code\n"]]);
    assert.equal(state.touched, true);
    assert.equal(ui.actionStatus.textContent, "Loaded the attempt's code. Undo (Ctrl+Z) brings your draft back.");
    buttons[0].props.onClick();
    assert.equal(ui.actionStatus.textContent, "The editor already holds this attempt's code.");
    assert.equal(log.setCode.length, 1);

    buttons[1].props.onClick();
    assert.equal(state.viewing.numpy, undefined);
    assert.equal(ui.attemptBanner.hidden, true);
    assert.equal(text(heading(ui)), "3/3 tests passed");
    assert.deepEqual(log.histories, ["numpy"]);
    // Back on the latest result, for other code than the editor now holds: said.
    assert.equal(ui.stale.hidden, false, "the latest result, and the editor holds other code");
  });

  test("the latest result chosen in the history is the current one: stale when edited", () => {
    const latest = { result: result(), code: CODE };
    const { ui, panel, editor } = setUp({ latest, viewing: { ...latest, row: { ...row, id: "r1" } } });
    panel.renderResults();
    assert.equal(ui.stale.hidden, true, "the editor holds its code");
    editor.text = CODE + "# edited\n";
    panel.updateStale();
    assert.equal(ui.stale.hidden, false, "edited since the latest result");
  });

  test("an attempt whose code could not be had says so", () => {
    const { ui, panel } = setUp({ viewing: { result: older, code: null, row } });
    panel.renderResults();
    assert.equal(text(findAll(ui.attemptBanner.children, byClass("attempt-no-code"))[0]), "This attempt's code could not be loaded.");
    assert.deepEqual(findAll(ui.attemptBanner.children, byTag("button")).map(text), ["Back to the latest result"]);
    assert.equal(ui.stale.hidden, true, "nothing to compare with");
  });
});
