// The history panel of the current track: the learner's attempts (history.js renders
// them), loaded from the server and updated after each grading; choosing one shows its
// result. And the track's latest result, fetched when the page opens on the track.

import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { HISTORY_LIMIT, cleanHistory, renderHistory, solvedBy } from "./history.js";
import { renderAttemptError } from "./notices.js";
import { isFullPass } from "./results-view.js";

// An attempt's result and its code (the server keeps each learner's own; null if the
// code could not be had: the result is still worth showing).
export async function fetchAttempt(row) {
  const [answer, code] = await Promise.all([api.submission(row.id), api.submissionCode(row.id)]);
  if (!answer.ok || !answer.data) return { error: answer.message };
  const text = code.ok && code.data && typeof code.data.code === "string" ? code.data.code : null;
  return { result: answer.data, code: text };
}

// state: the page's shared state (page.js): state.history holds each track's rows;
// choosing an attempt sets state.viewing, a result found here state.latest.
// layout: layout.js; solved: solved.js; results: results-panel.js.
// Returns {addToHistory(track, result), showHistory(track), loadHistory(track, options),
// loadLatest(track), passingCode(track)}.
export function setUpHistoryPanel({ slug, data, state, ui, layout, solved, results }) {
  function addToHistory(track, result) {
    const row = {
      id: result.id,
      track: result.track,
      mode: result.mode,
      status: result.status,
      passed: result.passed,
      total: result.total,
      duration_ms: result.duration_ms,
      created_at: result.created_at,
    };
    const rows = (state.history[track] || []).filter((r) => r.id !== row.id);
    state.history[track] = [row, ...rows].slice(0, HISTORY_LIMIT);
    if (state.track === track) showHistory(track);
  }

  function showHistory(track) {
    if (state.track !== track) return;
    const rows = state.history[track];
    if (!rows) {
      ui.historyBody.replaceChildren(el("p", { className: "history-empty" }, "Loading your attempts…"));
      return;
    }
    const viewing = state.viewing[track];
    const latest = state.latest[track];
    const selectedId = viewing ? viewing.result.id : latest ? latest.result.id : null;
    ui.historyBody.replaceChildren(...renderHistory(rows, { h: el, selectedId, onSelect: chooseAttempt }));
  }

  // `adoptNewest`: an attempt newer than the latest result shown (one whose answer the
  // page stopped waiting for) becomes the latest result.
  async function loadHistory(track, { adoptNewest = false } = {}) {
    const answer = await api.history(slug, track, HISTORY_LIMIT);
    if (!answer.ok) {
      if (!state.history[track] && state.track === track) {
        const retry = el("button", { type: "button", className: "link-button", onClick: () => loadHistory(track) }, "Try again");
        ui.historyBody.replaceChildren(el("p", { className: "inline-error" }, `Could not load your attempts: ${answer.message} `, retry));
      }
      return;
    }
    const rows = cleanHistory(answer.data);
    state.history[track] = rows;
    if (solvedBy(rows)) solved.markSolved(track);
    showHistory(track);
    const latest = state.latest[track];
    if (adoptNewest && rows.length && (!latest || latest.result.id !== rows[0].id) && !state.busy) {
      const fetched = await fetchAttempt(rows[0]);
      if (fetched.error || state.busy) return;
      state.latest[track] = { result: fetched.result, code: fetched.code };
      if (state.track === track) {
        results.renderResults();
        showHistory(track);
      }
    }
  }

  async function chooseAttempt(row) {
    const track = state.track;
    const latest = state.latest[track];
    let entry;
    if (latest && latest.result.id === row.id && latest.code != null) {
      entry = latest;
    } else {
      ui.actionStatus.textContent = "Loading the attempt…";
      const fetched = await fetchAttempt(row);
      ui.actionStatus.textContent = "";
      if (fetched.error) {
        ui.notice.replaceChildren(renderAttemptError(fetched.error, { h: el }));
        return;
      }
      entry = { result: fetched.result, code: fetched.code };
    }
    if (state.track !== track) return;
    state.viewing[track] = { ...entry, row };
    ui.notice.replaceChildren();
    results.renderResults();
    showHistory(track);
    if (layout.isNarrow()) layout.selectTab("results");
    const heading = byId("results-summary");
    if (heading) {
      heading.scrollIntoView({ block: "nearest" });
      heading.focus({ preventScroll: true });
    }
  }

  // The newest result of a track, shown on load as after a Submit (no focus move).
  async function loadLatest(track) {
    const id = data.tracks[track] && data.tracks[track].last_submission;
    if (!id || state.latest[track] || state.loadingLatest === `${track}:${id}`) return;
    state.loadingLatest = `${track}:${id}`;
    const fetched = await fetchAttempt({ id, track });
    state.loadingLatest = null;
    if (fetched.error || state.latest[track]) return;
    state.latest[track] = { result: fetched.result, code: fetched.code };
    if (state.track === track) {
      results.renderResults();
      showHistory(track);
    }
  }

  // The learner's passing code of a track ("Compare with your code"): {code, createdAt}
  // of the latest result or the attempt chosen when it is a passing Submit, else of the
  // newest passing Submit in the history (one no regrade replaced); or {error}.
  async function passingCode(track) {
    for (const entry of [state.latest[track], state.viewing[track]]) {
      if (entry && entry.code != null && entry.result.mode === "submit" && isFullPass(entry.result)) {
        return { code: entry.code, createdAt: entry.result.created_at };
      }
    }
    let rows = state.history[track];
    if (!rows) {
      const answer = await api.history(slug, track, HISTORY_LIMIT);
      if (!answer.ok) return { error: answer.message };
      rows = cleanHistory(answer.data);
    }
    const replaced = new Set(rows.map((row) => row.regrade_of).filter(Boolean));
    const row = rows.find((r) => r.mode === "submit" && r.status === "pass" && !replaced.has(r.id));
    if (!row) return { error: "it is not among your latest attempts" };
    const answer = await api.submissionCode(row.id);
    if (answer.ok && answer.data && typeof answer.data.code === "string") {
      return { code: answer.data.code, createdAt: row.created_at };
    }
    return { error: answer.message };
  }

  return { addToHistory, showHistory, loadHistory, loadLatest, passingCode };
}
