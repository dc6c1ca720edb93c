// The statement's track-only parts: the chosen track's are shown, unlabelled; the other
// tracks' are hidden.

import assert from "node:assert/strict";
import { test } from "node:test";

import { showTrackStatement } from "../../frontend/src/statement.js";

// Just enough of an element for the function: querySelectorAll over a flat list.
function fakeStatement() {
  const parts = [
    { className: "track-only", dataset: { track: "numpy" }, hidden: false },
    { className: "track-only", dataset: { track: "torch" }, hidden: false },
  ];
  const labels = [
    { className: "track-only-label", hidden: false },
    { className: "track-only-label", hidden: false },
  ];
  const queries = {
    ".track-only[data-track]": parts,
    ".track-only-label": labels,
  };
  return {
    parts,
    labels,
    querySelectorAll(selector) {
      assert.ok(selector in queries, `unexpected selector ${selector}`);
      return queries[selector];
    },
  };
}

test("shows the chosen track's parts and hides the others", () => {
  const statement = fakeStatement();
  showTrackStatement(statement, "numpy");
  assert.deepEqual(
    statement.parts.map((p) => p.hidden),
    [false, true],
  );
  showTrackStatement(statement, "torch");
  assert.deepEqual(
    statement.parts.map((p) => p.hidden),
    [true, false],
  );
});

test("hides the labels that name each part's track", () => {
  const statement = fakeStatement();
  showTrackStatement(statement, "torch");
  assert.ok(statement.labels.every((label) => label.hidden));
});

test("a page without a statement is left alone", () => {
  assert.doesNotThrow(() => showTrackStatement(null, "numpy"));
});
