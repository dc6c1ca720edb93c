// The results view: a graded result (its JSON shape: app/schemas.py) as DOM nodes.
//
// Pure apart from the node builder `h` (dom.js's `el` in the page, a plain-object builder
// in the unit tests). Learner output and messages only ever become text nodes.

import { formatBytes, formatDuration, plural, trackLabel } from "./format.js";

export const TEST_STATUSES = ["pass", "fail", "error", "not_run"];
export const STATUS_LABEL = { pass: "Passed", fail: "Failed", error: "Error", not_run: "Not run" };
const STATUS_ICON = { pass: "✓", fail: "✗", error: "!", not_run: "–" };

// What the grader appends where it cut an output (graders/grading/results.py TRUNCATION_MARKER).
export const TRUNCATION_MARKER = "\n… [output truncated]";

const wholeStatus = (status) => (["pass", "fail", "error"].includes(status) ? status : "error");
const testStatus = (status) => (TEST_STATUSES.includes(status) ? status : "error");

// The line of the learner's code a message points at, or null:
//   "SyntaxError at line 2, column 5: ..."          -> 2
//   "your code raised KeyError: 3 (line 14: x[k])"  -> 14 (the last such mark)
//   "... line 7 ..."                                -> 7 (else the first bare mention)
export function errorLine(message) {
  const text = typeof message === "string" ? message : "";
  const syntax = /\bSyntaxError at line (\d+)\b/.exec(text);
  if (syntax) return positive(syntax[1]);
  let last = null;
  for (const match of text.matchAll(/\(line (\d+)(?:\)|:)/g)) last = match[1];
  if (last) return positive(last);
  const bare = /\bline (\d+)\b/i.exec(text);
  return bare ? positive(bare[1]) : null;
}

function positive(digits) {
  const n = Number(digits);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

// Who is to blame when something went wrong: "learner" (the message speaks to them), or
// "test" / "grader" / "infrastructure" (not a verdict on their code). Set on a failed test,
// and on a whole result only when the run failed with no tests; null otherwise, and absent
// from results stored before it existed.
export const BLAME_KINDS = ["test", "grader", "infrastructure"];

// What the learner reads beside the message when the fault is not theirs, or null.
// `scope` is "test" (one test's verdict) or "run" (the whole run, no tests); the way to try
// again names the button of the mode ("run" or "submit").
export function blameText(blame, { scope = "test", mode = "submit" } = {}) {
  const again = mode === "run" ? "Please press Run again." : "Please press Submit again.";
  switch (blame) {
    case "test":
      return scope === "run"
        ? "This is a problem in the exercise's tests, not in your code. It is counted separately for the instructors."
        : "This is a problem in the exercise's test, not in your code. It is counted separately for the instructors; your other results stand.";
    case "grader":
      return `Drill's grader failed here, so this is not a verdict on your code. ${again}`;
    case "infrastructure":
      return scope === "run"
        ? `The grading machine was lost before grading finished, so this is not a verdict on your code. ${again}`
        : `The grading machine was lost before this test finished, so this is not a verdict on your code. ${again}`;
    default:
      return null; // "learner", null, absent, or a kind this page does not know
  }
}

// A test whose failure is not a verdict on the learner's code.
export const isUnjudged = (test) =>
  Boolean(test) && (test.status === "fail" || test.status === "error") && BLAME_KINDS.includes(test.blame);

function blameNote(h, blame, options) {
  const note = blameText(blame, options);
  return note ? h("p", { className: `blame-note blame-${blame}` }, note) : null;
}

// Counts that agree with the tests even when the numbers are missing.
export function counts(result) {
  const tests = Array.isArray(result && result.tests) ? result.tests : [];
  const total = typeof result.total === "number" ? result.total : tests.length;
  const passed =
    typeof result.passed === "number" ? result.passed : tests.filter((t) => t.status === "pass").length;
  const notRun = tests.filter((t) => t.status === "not_run").length;
  const unjudged = tests.filter(isUnjudged).length;
  return { tests, total, passed, notRun, unjudged };
}

// The heading of a result: "N/M tests passed" (", K could not be judged" when some failures
// are not verdicts on the code), or why there are no tests.
export function summaryText(result) {
  const { tests, total, passed, unjudged } = counts(result);
  if (wholeStatus(result.status) === "error" && !tests.length) {
    return result.mode === "run" ? "Your code could not run" : "Your code could not be graded";
  }
  return `${passed}/${total} tests passed${unjudged ? `, ${unjudged} could not be judged` : ""}`;
}

export function isFullPass(result) {
  const { total, passed } = counts(result);
  return result.status === "pass" && total > 0 && passed === total;
}

// What was kept of a truncated output: {text, note} where note says how much, e.g.
// "Showing the first 16 KiB of 12.3 MB." (null when nothing was cut).
export function outputView(test) {
  let text = typeof test.output === "string" ? test.output : "";
  // The server cuts the output and puts the marker at the cut; a traceback may follow it.
  const cut = text.indexOf(TRUNCATION_MARKER);
  const marked = cut >= 0;
  const truncated = Boolean(test.output_truncated) || marked;
  const keptText = marked ? text.slice(0, cut) : text;
  if (marked && cut + TRUNCATION_MARKER.length === text.length) text = keptText;
  if (!truncated) return { text, truncated, note: null, kept: null };
  const kept = formatBytes(utf8Length(keptText));
  const written = typeof test.output_bytes === "number" ? formatBytes(test.output_bytes) : "";
  const of = written ? ` of ${test.output_bytes_at_least ? "at least " : ""}${written}` : "";
  return {
    text,
    truncated,
    kept,
    written,
    note: `Output truncated: showing the first ${kept}${of}; the rest was not kept.`,
  };
}

function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

function lineCount(text) {
  return text.replace(/\n$/, "").split("\n").length;
}

// Failures and errors first, then passes, then the tests that never ran; the server's
// order within each group.
export function orderTests(tests) {
  const rank = (t) => (t.status === "pass" ? 1 : t.status === "not_run" ? 2 : 0);
  return tests
    .map((test, index) => [test, index])
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
    .map(([test]) => test);
}

// The result as nodes. Options:
//   h            node builder (required)
//   summaryId    id of the heading (focus moves there after a run)
//   onGoToLine   (n) => void, offered for a message that names a line
//   onHint       (n) => void, for "Hint n may help"
export function renderResult(result, options) {
  const { h, summaryId = "results-summary", onGoToLine, onHint } = options;
  const status = wholeStatus(result.status);
  const { tests, total, passed, notRun } = counts(result);
  const parts = [];

  const meta = [
    result.mode === "run" ? "Run · examples" : "Submit · hidden tests",
    result.track ? trackLabel(result.track) : "",
    formatDuration(result.duration_ms),
  ].filter(Boolean);
  parts.push(
    h(
      "div",
      { className: "results-header" },
      h(
        "h2",
        { id: summaryId, className: `results-summary status-${status}`, tabindex: "-1" },
        summaryText(result),
      ),
      h("p", { className: "results-meta" }, meta.join(" · ")),
    ),
  );

  const regrade = regradeNote(result, h);
  if (regrade) parts.push(regrade);

  if (isFullPass(result)) {
    parts.push(
      h(
        "p",
        { className: "results-success" },
        result.mode === "submit"
          ? "Every hidden test passes: this track is solved."
          : "All examples pass. Submit to run the hidden tests.",
      ),
    );
  }
  if (notRun) {
    parts.push(
      h(
        "p",
        { className: "results-not-run" },
        `${plural(notRun, "test")} did not run: an earlier test ended the run.`,
      ),
    );
  }

  // A message on the whole result (a syntax error, an import failure, a lost machine, ...),
  // and whose fault it was when not the learner's.
  const runBlame =
    status === "error" && !tests.length ? blameNote(h, result.blame, { scope: "run", mode: result.mode }) : null;
  if ((result.message && (status === "error" || !tests.length)) || runBlame) {
    const line = status === "error" && !runBlame ? errorLine(result.message) : null;
    parts.push(
      h(
        "div",
        { className: "results-message" },
        result.message ? h("pre", null, String(result.message)) : null,
        runBlame,
        line && onGoToLine ? goToLine(h, line, onGoToLine) : null,
      ),
    );
  }

  // What the module printed while it loaded, before any test: apart, above the tests.
  const loaded = renderLoadOutput(result, h);
  if (loaded) parts.push(loaded);

  if (tests.length) {
    // The first failure of the learner's is open, and every test that could not be judged,
    // so that its note is in sight.
    let first = true;
    const items = orderTests(tests).map((test) => {
      const unjudged = isUnjudged(test);
      const failing = (test.status === "fail" || test.status === "error") && !unjudged;
      const expanded = (failing && first) || unjudged;
      const item = renderTest(test, { h, expanded, onGoToLine, onHint, mode: result.mode });
      if (failing) first = false;
      return item;
    });
    parts.push(h("ol", { className: "test-list", "aria-label": `${plural(total, "test")}, ${passed} passed` }, items));
  }
  return parts;
}

// The result's output fields of what the learner's module printed while loading, as a
// test's (for outputView); absent from results stored before they existed.
export function loadOutputOf(result) {
  return {
    output: result && typeof result.load_output === "string" ? result.load_output : "",
    output_truncated: Boolean(result && result.load_output_truncated),
    output_bytes: result ? result.load_output_bytes : null,
    output_bytes_at_least: Boolean(result && result.load_output_bytes_at_least),
  };
}

export const LOAD_OUTPUT_TITLE = "Printed while your module was loading";

// Its own block above the tests, open: "Printed while your module was loading (2 lines)".
// null when the module printed nothing.
export function renderLoadOutput(result, h) {
  const output = outputView(loadOutputOf(result));
  if (!output.text && !output.truncated) return null;
  return h(
    "section",
    { className: "load-output", "aria-label": LOAD_OUTPUT_TITLE },
    h(
      "details",
      { className: "test-output load-output-details", open: true },
      h("summary", null, outputLabel(output, LOAD_OUTPUT_TITLE)),
      output.note ? h("p", { className: "output-note" }, output.note) : null,
      h("pre", { tabindex: "0" }, h("code", null, output.text)),
    ),
  );
}

// "Your output (3 lines)", or "Your output (truncated: first 16 KiB of 12.3 MB)".
function outputLabel(output, title) {
  return output.truncated
    ? `${title} (truncated: first ${output.kept}${output.written ? ` of ${output.written}` : ""})`
    : `${title} (${plural(lineCount(output.text), "line")})`;
}

const VERDICT_WORD = { pass: "passed", fail: "failed", error: "could not be graded" };

// "Regraded after the exercise changed": what the earlier grading of the same code said,
// and the tests whose verdict changed (a result of `drill regrade`), or null.
export function regradeNote(result, h) {
  const regrade = result && result.regrade;
  if (!regrade || typeof regrade !== "object") return null;
  const before = VERDICT_WORD[regrade.previous_status] || "could not be graded";
  const now = VERDICT_WORD[wholeStatus(result.status)];
  const sent = String(regrade.submitted_at || "").slice(0, 16).replace("T", " ");
  const score = (passed, total) => (Number(total) ? ` (${Number(passed) || 0}/${Number(total)})` : "");
  const changed = Array.isArray(regrade.changed) ? regrade.changed : [];
  return h(
    "div",
    { className: "results-regrade", role: "note" },
    h("p", { className: "results-regrade-title" }, h("strong", null, "Regraded after the exercise changed.")),
    h(
      "p",
      null,
      `Your Submit${sent ? ` of ${sent} UTC` : ""} was graded again against the current tests: ` +
        `it ${before}${score(regrade.previous_passed, regrade.previous_total)} and now ` +
        `${now}${score(result.passed, result.total)}.`,
    ),
    changed.length
      ? h(
          "ul",
          { className: "results-regrade-tests", "aria-label": "Tests whose verdict changed" },
          changed.map((test) =>
            h(
              "li",
              null,
              `${String(test.name)}: ${
                test.was === "absent" ? "new test" : STATUS_LABEL[testStatus(test.was)]
              } → ${STATUS_LABEL[testStatus(test.now)]}`,
            ),
          ),
        )
      : null,
  );
}

// The line a whole result's message points at, when the editor should mark it (not when
// the run failed through no fault of the code: a line there is not the learner's).
export function resultLine(result) {
  if (wholeStatus(result.status) !== "error") return null;
  if (!(Array.isArray(result.tests) && result.tests.length) && blameText(result.blame)) return null;
  return errorLine(result.message);
}

function goToLine(h, line, onGoToLine) {
  return h("button", { type: "button", className: "link-button", onClick: () => onGoToLine(line) }, `Go to line ${line}`);
}

// mode: the result's ("run" or "submit"), for the way to try again in a blame note.
export function renderTest(test, { h, expanded = false, onGoToLine, onHint, mode }) {
  const status = testStatus(test.status);
  // Not a verdict on the code: say so, and point at neither a line of it nor a hint.
  const unjudged = isUnjudged(test);
  const message = test.message ? String(test.message) : "";
  const output = outputView(test);
  const head = [
    h(
      "span",
      { className: "test-head" },
      h("span", { className: "test-status" }, h("span", { "aria-hidden": "true" }, `${STATUS_ICON[status]} `), STATUS_LABEL[status]),
      h("span", { className: "test-name" }, test.name || "(unnamed test)"),
    ),
    h("span", { className: "test-duration" }, status === "not_run" ? "" : formatDuration(test.duration_ms)),
  ];
  const body = [];
  if (message) body.push(h("p", { className: "test-message" }, message));
  if (unjudged) body.push(blameNote(h, test.blame, { scope: "test", mode }));
  const line = status === "error" && !unjudged ? errorLine(message) : null;
  if (line && onGoToLine) body.push(h("p", { className: "test-goto" }, goToLine(h, line, onGoToLine)));
  if ((status === "fail" || status === "error") && !unjudged && test.hint != null && onHint) {
    const n = Number(test.hint);
    if (Number.isInteger(n) && n >= 1) {
      body.push(
        h(
          "p",
          { className: "test-hint" },
          h(
            "a",
            {
              href: `#hint-${n}`,
              onClick: (event) => {
                if (event && event.preventDefault) event.preventDefault();
                onHint(n);
              },
            },
            `Hint ${n} may help`,
          ),
        ),
      );
    }
  }
  if (output.text || output.truncated) {
    const label = outputLabel(output, "Your output");
    body.push(
      h(
        "details",
        { className: "test-output", open: expanded },
        h("summary", null, label),
        output.note ? h("p", { className: "output-note" }, output.note) : null,
        h("pre", { tabindex: "0" }, h("code", null, output.text)),
      ),
    );
  }

  const className = `test status-${status}`;
  if (!body.length) return h("li", { className }, h("div", { className: "test-summary" }, ...head));
  // The preview is the first difference, not the "In f(...):" line naming the call.
  const lines = message.split("\n");
  const firstLine = lines.find((l) => !/^In .*\):$/.test(l)) || lines[0];
  const preview = message && status !== "pass" ? h("span", { className: "test-preview" }, firstLine) : null;
  return h(
    "li",
    { className },
    h(
      "details",
      { className: "test-details", open: expanded },
      h("summary", { className: "test-summary" }, ...head, preview),
      h("div", { className: "test-body" }, ...body),
    ),
  );
}
