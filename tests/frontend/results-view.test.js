// The results view (frontend/src/results-view.js): headings, ordering, not-run tests,
// truncated output, and the error-line parser.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  TRUNCATION_MARKER,
  errorLine,
  orderTests,
  outputView,
  renderResult,
  resultLine,
  summaryText,
} from "../../frontend/src/results-view.js";
import { byClass, byTag, findAll, h, text } from "./helpers.js";

const passing = (name) => ({ name, status: "pass", message: "", output: "", duration_ms: 0.4, hint: null });

function result(overrides = {}) {
  return {
    id: "abc",
    exercise: "gradient-checkpointing",
    track: "numpy",
    mode: "submit",
    version: 1,
    status: "fail",
    message: "",
    passed: 1,
    total: 2,
    duration_ms: 23,
    created_at: "2026-12-03T10:00:00+00:00",
    tests: [passing("first"), { name: "second", status: "fail", message: "In f(x):\nvalues differ", output: "", duration_ms: 1, hint: 2 }],
    ...overrides,
  };
}

const render = (r, options = {}) => renderResult(r, { h, ...options });

describe("errorLine", () => {
  const cases = [
    ["SyntaxError at line 2, column 5: '(' was never closed", 2],
    ["your code raised KeyError: 3 (line 14: x[k])", 14],
    ["your code raised ValueError: bad (line 9)", 9],
    // The grader's mark is the last "(line N": text of the exception before it loses.
    ["your code raised ValueError: see (line 3) of the data (line 21: f(x))", 21],
    ["maximum recursion depth exceeded (line 7: return f(n))", 7],
    ["Traceback: something on line 12", 12],
    ["values differ — expected [1, 2], got [1, 3]", null],
    ["", null],
    [null, null],
    ["SyntaxError at line 0, column 0: unknown", null],
  ];
  for (const [message, line] of cases) {
    test(`${JSON.stringify(message)} -> ${line}`, () => assert.equal(errorLine(message), line));
  }
});

describe("summary", () => {
  test("reads N/M tests passed", () => {
    assert.equal(summaryText(result()), "1/2 tests passed");
  });

  test("counts the tests when the numbers are missing", () => {
    assert.equal(summaryText(result({ passed: undefined, total: undefined })), "1/2 tests passed");
  });

  test("says why there are no tests", () => {
    const broken = result({ status: "error", tests: [], passed: 0, total: 0, message: "SyntaxError at line 2, column 1: x" });
    assert.equal(summaryText(broken), "Your code could not be graded");
    assert.equal(summaryText({ ...broken, mode: "run" }), "Your code could not run");
  });

  test("is a focusable heading", () => {
    const [header] = render(result(), { summaryId: "results-summary" });
    const [heading] = findAll(header, byTag("h2"));
    assert.equal(heading.props.id, "results-summary");
    assert.equal(heading.props.tabindex, "-1");
    assert.equal(text(heading), "1/2 tests passed");
    assert.match(heading.props.className, /status-fail/);
  });
});

describe("tests list", () => {
  test("failures first, passes next, tests that did not run last", () => {
    const tests = [passing("a"), { name: "b", status: "not_run" }, { name: "c", status: "error" }, passing("d"), { name: "e", status: "fail" }];
    assert.deepEqual(orderTests(tests).map((t) => t.name), ["c", "e", "a", "d", "b"]);
  });

  test("a test that did not run says so, not 'error'", () => {
    const timedOut = result({
      status: "error",
      passed: 1,
      total: 3,
      tests: [
        passing("first"),
        { name: "slow", status: "error", message: "timed out after 5 s", output: "", duration_ms: 5000 },
        { name: "third", status: "not_run", message: "test 'slow' ended the run (timed out after 5 s) before this test started", output: "", duration_ms: 0 },
      ],
    });
    const nodes = render(timedOut);
    const items = findAll(nodes, byTag("li"));
    const third = items.find((li) => text(li).includes("third"));
    assert.match(third.props.className, /status-not_run/);
    assert.match(text(third), /Not run/);
    assert.doesNotMatch(text(third), /Error/);
    assert.equal(findAll(nodes, byClass("results-not-run")).length, 1);
    assert.match(text(nodes), /1 test did not run/);
  });

  test("the first failure is open, with a hint link that calls back", () => {
    const asked = [];
    const nodes = render(result(), { onHint: (n) => asked.push(n) });
    const details = findAll(nodes, byClass("test-details"));
    assert.equal(details.length, 1);
    assert.equal(details[0].props.open, true);
    const [link] = findAll(nodes, byTag("a"));
    assert.equal(text(link), "Hint 2 may help");
    link.props.onClick({ preventDefault() {} });
    assert.deepEqual(asked, [2]);
  });

  test("the preview skips the line naming the call", () => {
    const [preview] = findAll(render(result()), byClass("test-preview"));
    assert.equal(text(preview), "values differ");
  });

  test("a syntax error offers to go to its line", () => {
    const lines = [];
    const broken = result({ status: "error", tests: [], passed: 0, total: 0, message: "SyntaxError at line 4, column 2: invalid syntax" });
    const nodes = render(broken, { onGoToLine: (n) => lines.push(n) });
    const [button] = findAll(nodes, byTag("button"));
    assert.equal(text(button), "Go to line 4");
    button.props.onClick();
    assert.deepEqual(lines, [4]);
    assert.equal(resultLine(broken), 4);
  });

  test("a full pass of Submit says the track is solved", () => {
    const solved = result({ status: "pass", passed: 2, total: 2, tests: [passing("a"), passing("b")] });
    assert.match(text(render(solved)), /this track is solved/);
    assert.match(text(render({ ...solved, mode: "run" })), /All examples pass/);
  });

  test("learner text stays text", () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const nodes = render(result({ tests: [{ name: hostile, status: "fail", message: hostile, output: hostile }] }));
    assert.ok(text(nodes).includes(hostile));
    assert.equal(findAll(nodes, byTag("img")).length, 0);
  });
});

describe("truncated output", () => {
  test("what was kept stops at the marker, even when a traceback follows it", () => {
    const view = outputView({ output: `abc${TRUNCATION_MARKER}\nTraceback (most recent call last):\n`, output_truncated: true, output_bytes: 2_000_000 });
    assert.equal(view.note, "Output truncated: showing the first 3 bytes of 2.0 MB; the rest was not kept.");
    assert.match(view.text, /Traceback/);
  });

  const big = "x".repeat(16 * 1024);

  test("the note comes first and says what was kept of how much", () => {
    const test_ = { name: "t", status: "fail", message: "m", output: big + TRUNCATION_MARKER, output_truncated: true, output_bytes: 12_300_000 };
    const nodes = render(result({ tests: [test_] }));
    const [details] = findAll(nodes, byClass("test-output"));
    assert.match(text(details.children[0]), /^Your output \(truncated: first 16 KiB of 12\.3 MB\)$/);
    assert.equal(details.children[1].props.className, "output-note");
    assert.equal(text(details.children[1]), "Output truncated: showing the first 16 KiB of 12.3 MB; the rest was not kept.");
    // The marker is gone from the shown text: the note says it, at the top.
    assert.equal(text(details.children[2]), big);
  });

  test("'at least' when the grader stopped counting", () => {
    const view = outputView({ output: "abc", output_truncated: true, output_bytes: 2_000_000, output_bytes_at_least: true });
    assert.equal(view.note, "Output truncated: showing the first 3 bytes of at least 2.0 MB; the rest was not kept.");
  });

  test("an unknown total, and results stored before the fields existed", () => {
    const legacy = outputView({ output: `hello${TRUNCATION_MARKER}` });
    assert.equal(legacy.truncated, true);
    assert.equal(legacy.text, "hello");
    assert.equal(legacy.note, "Output truncated: showing the first 5 bytes; the rest was not kept.");
  });

  test("kept size counts UTF-8 bytes", () => {
    assert.match(outputView({ output: "é".repeat(600), output_truncated: true, output_bytes: 5000 }).note, /first 1\.2 KiB of 4\.9 KiB/);
  });

  test("a whole output shows its line count and no note", () => {
    const nodes = render(result({ tests: [{ name: "t", status: "fail", message: "m", output: "a\nb\n" }] }));
    const [details] = findAll(nodes, byClass("test-output"));
    assert.equal(text(details.children[0]), "Your output (2 lines)");
    assert.equal(findAll(nodes, byClass("output-note")).length, 0);
  });
});

describe("a regraded result", () => {
  const regraded = result({
    status: "pass",
    passed: 2,
    total: 2,
    tests: [passing("first"), passing("second")],
    regrade: {
      of: "old",
      run: "r1",
      submitted_at: "2026-12-01T09:30:00+00:00",
      previous_status: "fail",
      previous_passed: 1,
      previous_total: 2,
      previous_version: "abc",
      changed: [
        { id: "second", name: "second", was: "fail", now: "pass" },
        { id: "third", name: "third", was: "absent", now: "pass" },
      ],
    },
  });

  test("says it was regraded, what it was and what it is now", () => {
    const [note] = findAll(render(regraded), byClass("results-regrade"));
    assert.ok(note, "a regrade note");
    const said = text(note);
    assert.match(said, /Regraded after the exercise changed/);
    assert.match(said, /Submit of 2026-12-01 09:30 UTC/);
    assert.match(said, /it failed \(1\/2\) and now passed \(2\/2\)/);
    assert.deepEqual(
      findAll(note, byTag("li")).map(text),
      ["second: Failed → Passed", "third: new test → Passed"],
    );
  });

  test("a result graded once has no note", () => {
    assert.deepEqual(findAll(render(result()), byClass("results-regrade")), []);
    assert.deepEqual(findAll(render(result({ regrade: null })), byClass("results-regrade")), []);
  });
});

describe("who is to blame", () => {
  const NOT_YOURS = "not a verdict on your code";
  const failed = (name, blame, message = "values differ") => {
    const t = { name, status: blame === "learner" ? "fail" : "error", message, output: "", duration_ms: 1, hint: 1 };
    if (blame !== undefined) t.blame = blame;
    return t;
  };
  const oneFailure = (blame, overrides = {}) =>
    result({ status: "error", passed: 1, total: 2, tests: [{ ...passing("first"), blame: null }, failed("second", blame)], ...overrides });
  const notes = (nodes) => findAll(nodes, byClass("blame-note"));
  const item = (nodes, name) => findAll(nodes, byTag("li")).find((li) => text(findAll(li, byClass("test-name"))[0]) === name);

  test("a failure of the learner's: no note, the heading as before", () => {
    const nodes = render(oneFailure("learner"), { onHint: () => {} });
    assert.deepEqual(notes(nodes), []);
    assert.doesNotMatch(text(nodes), /not in your code|not a verdict/);
    assert.equal(text(findAll(nodes, byTag("h2"))[0]), "1/2 tests passed");
    assert.equal(text(findAll(nodes, byTag("a"))[0]), "Hint 1 may help");
  });

  const cases = [
    [
      "test",
      "This is a problem in the exercise's test, not in your code. It is counted separately for the instructors; your other results stand.",
    ],
    ["grader", `Drill's grader failed here, so this is ${NOT_YOURS}. Please press Submit again.`],
    [
      "infrastructure",
      `The grading machine was lost before this test finished, so this is ${NOT_YOURS}. Please press Submit again.`,
    ],
  ];
  for (const [blame, said] of cases) {
    test(`a test blamed on the ${blame}: the note beside its message, in its text`, () => {
      const nodes = render(oneFailure(blame), { onHint: () => {}, onGoToLine: () => {} });
      const [note] = notes(nodes);
      assert.ok(note, "a blame note");
      assert.equal(notes(nodes).length, 1);
      assert.equal(note.tag, "p");
      assert.equal(note.props.className, `blame-note blame-${blame}`);
      assert.equal(text(note), said);
      const li = item(nodes, "second");
      // Part of the test's own text, right after its message, in an open details.
      assert.ok(text(li).includes(`values differ${said}`), text(li));
      assert.equal(findAll(li, byClass("test-details"))[0].props.open, true);
      // Not a verdict: no hint offered for it; the heading says one could not be judged.
      assert.equal(findAll(li, byTag("a")).length, 0);
      assert.equal(text(findAll(nodes, byTag("h2"))[0]), "1/2 tests passed, 1 could not be judged");
    });
  }

  test("a Run says to press Run again", () => {
    const [note] = notes(render(oneFailure("grader", { mode: "run" })));
    assert.equal(text(note), `Drill's grader failed here, so this is ${NOT_YOURS}. Please press Run again.`);
  });

  test("a test that could not be judged leaves the learner's first failure open", () => {
    const mixed = result({
      status: "error",
      passed: 0,
      total: 3,
      tests: [failed("broken", "test", "the test failed before calling your code: KeyError"), failed("mine", "learner"), failed("other", "learner")],
    });
    const nodes = render(mixed);
    assert.deepEqual(
      ["broken", "mine", "other"].map((name) => findAll(item(nodes, name), byClass("test-details"))[0].props.open),
      [true, true, false],
    );
    assert.deepEqual(notes(nodes).map((n) => n.props.className), ["blame-note blame-test"]);
    assert.equal(text(findAll(nodes, byTag("h2"))[0]), "0/3 tests passed, 1 could not be judged");
  });

  test("a whole run lost with the grading machine: the note with the run's message, no line offered", () => {
    const message = "the grading machine was lost while grading (line 3 of the job)";
    const lost = result({ status: "error", tests: [], passed: 0, total: 0, message, blame: "infrastructure" });
    const nodes = render(lost, { onGoToLine: () => {} });
    assert.equal(text(findAll(nodes, byTag("h2"))[0]), "Your code could not be graded");
    const [box] = findAll(nodes, byClass("results-message"));
    assert.equal(text(findAll(box, byTag("pre"))[0]), message);
    const [note] = notes(box);
    assert.equal(note.props.className, "blame-note blame-infrastructure");
    assert.equal(
      text(note),
      `The grading machine was lost before grading finished, so this is ${NOT_YOURS}. Please press Submit again.`,
    );
    assert.equal(text(box), message + text(note));
    assert.equal(findAll(box, byTag("button")).length, 0, "no line of the learner's to go to");
    assert.equal(resultLine(lost), null);
  });

  test("a whole run blamed on the exercise's tests or the grader", () => {
    const base = { status: "error", tests: [], passed: 0, total: 0, message: "internal grading error" };
    assert.equal(
      text(notes(render(result({ ...base, blame: "test" })))[0]),
      "This is a problem in the exercise's tests, not in your code. It is counted separately for the instructors.",
    );
    assert.equal(
      text(notes(render(result({ ...base, blame: "grader", mode: "run" })))[0]),
      `Drill's grader failed here, so this is ${NOT_YOURS}. Please press Run again.`,
    );
  });

  test("a syntax error is the learner's: no note, its line still offered", () => {
    const broken = result({ status: "error", tests: [], passed: 0, total: 0, message: "SyntaxError at line 4, column 2: invalid syntax", blame: "learner" });
    const nodes = render(broken, { onGoToLine: () => {} });
    assert.deepEqual(notes(nodes), []);
    assert.equal(text(findAll(nodes, byTag("button"))[0]), "Go to line 4");
    assert.equal(resultLine(broken), 4);
  });

  test("a result stored before blame existed: no note", () => {
    const old = result({ status: "error", passed: 1, total: 2, tests: [passing("first"), failed("second", undefined, "internal grading error")] });
    assert.ok(!("blame" in old) && !("blame" in old.tests[1]));
    const nodes = render(old, { onHint: () => {} });
    assert.deepEqual(notes(nodes), []);
    assert.doesNotMatch(text(nodes), /not in your code|not a verdict|could not be judged/);
    assert.equal(text(findAll(nodes, byTag("a"))[0]), "Hint 1 may help");
    const oldRun = result({ status: "error", tests: [], passed: 0, total: 0, message: "the grading machine was lost" });
    assert.deepEqual(notes(render(oldRun)), []);
  });

  test("a blame this page does not know, or on a pass, shows nothing", () => {
    assert.deepEqual(notes(render(oneFailure("gremlins"))), []);
    const odd = result({ status: "pass", passed: 2, total: 2, tests: [{ ...passing("a"), blame: "grader" }, passing("b")] });
    assert.deepEqual(notes(render(odd)), []);
    assert.equal(summaryText(odd), "2/2 tests passed");
  });
});

describe("what the module printed while loading", () => {
  test("its own block, above the tests, apart from the first test's output", () => {
    const loud = result({
      load_output: "loading\ndone\n",
      load_output_truncated: false,
      load_output_bytes: 13,
      tests: [{ ...passing("first"), output: "in first\n" }, passing("second")],
    });
    const nodes = render(loud);
    const [block] = findAll(nodes, byClass("load-output"));
    assert.equal(block.props["aria-label"], "Printed while your module was loading");
    assert.equal(text(findAll(block, byTag("summary"))[0]), "Printed while your module was loading (2 lines)");
    assert.equal(text(findAll(block, byTag("pre"))[0]), "loading\ndone\n");
    assert.equal(findAll(block, byTag("details"))[0].props.open, true);
    // Above the list of tests, and not in the first test's output.
    const order = nodes.map((n) => String(n.props.className || n.tag));
    assert.ok(order.indexOf("load-output") < order.indexOf("test-list"), order.join(", "));
    const [list] = findAll(nodes, byClass("test-list"));
    assert.doesNotMatch(text(list), /loading/);
    assert.match(text(list), /in first/);
  });

  test("none when the module printed nothing, or in a result stored before it was kept", () => {
    assert.equal(findAll(render(result({ load_output: "" })), byClass("load-output")).length, 0);
    assert.equal(findAll(render(result()), byClass("load-output")).length, 0);
  });

  test("a cut one says how much was kept, as a test's does", () => {
    const cut = result({
      load_output: "x".repeat(10) + TRUNCATION_MARKER,
      load_output_truncated: true,
      load_output_bytes: 12_300_000,
      load_output_bytes_at_least: false,
    });
    const [block] = findAll(render(cut), byClass("load-output"));
    assert.equal(
      text(findAll(block, byTag("summary"))[0]),
      "Printed while your module was loading (truncated: first 10 bytes of 12.3 MB)",
    );
    assert.match(text(findAll(block, byClass("output-note"))[0]), /^Output truncated: showing the first 10 bytes of 12\.3 MB/);
    assert.equal(text(findAll(block, byTag("pre"))[0]), "x".repeat(10));
  });

  test("shown with a run that failed while loading, after its message", () => {
    const failed = result({
      status: "error",
      tests: [],
      passed: 0,
      message: "your code raised, while loading, ValueError: no (line 3)",
      load_output: "before the error\n",
    });
    const nodes = render(failed);
    const order = nodes.map((n) => String(n.props.className || n.tag));
    assert.ok(order.indexOf("results-message") < order.indexOf("load-output"), order.join(", "));
  });
});
