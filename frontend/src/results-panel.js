// The results panel of the current track: the result it shows (an attempt chosen in the
// history, else the track's latest; results-view.js renders it), the note that the code
// changed since, the error's line marked in the editor, and the banner of an earlier
// attempt with the way to load its code.

import { byId, el } from "./dom.js";
import { relativeTime } from "./format.js";
import { entryLabel } from "./history.js";
import { renderResult, resultLine } from "./results-view.js";

// state: the page's shared state (page.js): state.latest and state.viewing are what this
// panel shows. editor, setCode, saver: from track-code.js; layout: layout.js.
//   onHint(n)            "Hint n may help" was followed
//   showHistory(track)   the history's selection changed (back to the latest result)
//   h                    the node builder (dom.js's `el`; the unit tests pass their own)
// Returns {renderResults(), updateStale()}.
export function setUpResultsPanel({ state, ui, editor, setCode, saver, layout, onHint, showHistory, h = el }) {
  // What the results show for a track: an attempt chosen in the history, else the latest.
  const shownEntry = (track) => state.viewing[track] || state.latest[track] || null;

  // Whether the results shown are the track's current ones: its latest result, not an
  // earlier attempt chosen in the history (choosing the latest one is viewing it too).
  function showsCurrent() {
    const viewing = state.viewing[state.track];
    const latest = state.latest[state.track];
    return !viewing || Boolean(latest && latest.result.id === viewing.result.id);
  }

  // "Your code has changed since these results": said of the current results only. An
  // earlier attempt is old by choice, and its banner offers to load its code.
  function updateStale() {
    const entry = shownEntry(state.track);
    ui.stale.hidden =
      !entry || !showsCurrent() || entry.code == null || entry.code === editor.getValue();
  }

  function goToLine(line) {
    if (layout.isNarrow()) layout.selectTab("code");
    editor.markLine(line);
    editor.focus();
  }

  function renderResults() {
    const entry = shownEntry(state.track);
    updateStale();
    renderAttemptBanner(entry);
    if (!entry) {
      ui.body.replaceChildren(
        h(
          "p",
          { className: "results-empty" },
          "Press ",
          h("strong", null, "Run"),
          " to try the examples, or ",
          h("strong", null, "Submit"),
          " to grade your code against the hidden tests.",
        ),
      );
      editor.markLine(null);
      return;
    }
    ui.body.replaceChildren(
      ...renderResult(entry.result, {
        h,
        onGoToLine: goToLine,
        onHint,
      }),
    );
    // Mark the error's line only when these results are for the code in the editor now.
    const line = resultLine(entry.result);
    if (line && entry.code === editor.getValue()) editor.markLine(line);
    else editor.markLine(null);
  }

  // An attempt chosen in the history: when it was, and the way to load its code.
  function renderAttemptBanner(entry) {
    const viewing = state.viewing[state.track];
    if (!viewing || entry !== viewing) {
      ui.attemptBanner.hidden = true;
      ui.attemptBanner.replaceChildren();
      return;
    }
    const row = viewing.row;
    const when = relativeTime(row.created_at);
    const actions = [];
    if (viewing.code != null) {
      actions.push(
        h("button", { type: "button", className: "button button-small", onClick: () => loadAttempt(viewing) }, "Load this code into the editor"),
      );
    } else {
      actions.push(h("span", { className: "attempt-no-code" }, "This attempt's code could not be loaded."));
    }
    const latest = state.latest[state.track];
    if (!latest || latest.result.id !== viewing.result.id) {
      actions.push(h("button", { type: "button", className: "link-button", onClick: () => backToLatest() }, "Back to the latest result"));
    }
    ui.attemptBanner.replaceChildren(
      h("p", { className: "attempt-title" }, `Showing an earlier attempt: ${entryLabel(row)}, ${when}.`),
      h("div", { className: "attempt-actions" }, ...actions),
    );
    ui.attemptBanner.hidden = false;
  }

  function loadAttempt(viewing) {
    if (layout.isNarrow()) layout.selectTab("code");
    const before = editor.getValue();
    if (before === viewing.code) {
      ui.actionStatus.textContent = "The editor already holds this attempt's code.";
      return;
    }
    // One editor change: Ctrl/⌘+Z brings the draft back in one step.
    setCode(viewing.code);
    state.touched = true;
    saver.schedule(state.track, viewing.code);
    ui.actionStatus.textContent = "Loaded the attempt's code. Undo (Ctrl+Z) brings your draft back.";
    editor.focus();
  }

  function backToLatest() {
    delete state.viewing[state.track];
    renderResults();
    showHistory(state.track);
    const heading = byId("results-summary");
    if (heading) heading.focus();
  }

  return { renderResults, updateStale };
}
