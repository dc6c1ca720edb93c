// The submission history of one track: a list of the learner's attempts, newest first
// (GET /api/exercises/{slug}/submissions), each one a button that shows its result.

import { formatDuration, relativeTime } from "./format.js";
import { STATUS_LABEL } from "./results-view.js";

export const HISTORY_LIMIT = 20;

const ICON = { pass: "✓", fail: "✗", error: "!" };

// Only well-formed rows, newest first (the server's order, but never trust a list to be
// sorted when showing "latest").
export function cleanHistory(rows) {
  if (!Array.isArray(rows)) return [];
  return rows
    .filter((row) => row && typeof row.id === "string" && row.id)
    .slice()
    .sort((a, b) => String(b.created_at || "").localeCompare(String(a.created_at || "")));
}

// Whether the attempts show the track solved: a passing Submit that no regrade replaced
// (a regrade's row names the one it replaces in `regrade_of`; the newest grading counts).
export function solvedBy(rows) {
  const replaced = new Set(rows.map((row) => row && row.regrade_of).filter(Boolean));
  return rows.some((row) => row.mode === "submit" && row.status === "pass" && !replaced.has(row.id));
}

// "Submit · 4/6 passed" or "Run · could not run".
export function entryLabel(row) {
  const mode = row.mode === "run" ? "Run" : "Submit";
  const total = Number(row.total) || 0;
  if (row.status === "error" && total === 0) return `${mode} · ${row.mode === "run" ? "could not run" : "could not be graded"}`;
  const regraded = row.regrade_of ? " · regraded" : "";
  return `${mode} · ${Number(row.passed) || 0}/${total} passed${regraded}`;
}

// The list as nodes: `selectedId` is the attempt shown in the results (aria-current).
export function renderHistory(rows, { h, selectedId = null, onSelect, now = Date.now() }) {
  if (!rows.length) {
    return [h("p", { className: "history-empty" }, "No attempts on this track yet. Your Runs and Submits will be listed here.")];
  }
  const items = rows.map((row) => {
    const status = ["pass", "fail", "error"].includes(row.status) ? row.status : "error";
    const when = relativeTime(row.created_at, now);
    return h(
      "li",
      null,
      h(
        "button",
        {
          type: "button",
          className: `history-entry status-${status}`,
          "aria-current": row.id === selectedId ? "true" : null,
          dataset: { id: row.id },
          onClick: () => onSelect(row),
        },
        h("span", { className: "history-status" }, h("span", { "aria-hidden": "true" }, `${ICON[status]} `), STATUS_LABEL[status]),
        h("span", { className: "history-label" }, entryLabel(row)),
        h(
          "span",
          { className: "history-when" },
          h("time", { dateTime: row.created_at || null, title: row.created_at || null }, when),
          row.duration_ms != null ? ` · ${formatDuration(row.duration_ms)}` : "",
        ),
      ),
    );
  });
  return [h("ol", { className: "history-list" }, items)];
}
