// The exercise page: wires the editor, drafts, tracks, grading, results, history, the
// after-solving panel, hints, the narrow layout and the shortcuts together.
//
// Safety: learner output, messages and tracebacks only ever reach the DOM as text
// (dom.js). The only innerHTML is the server's rendered Markdown (statement, hints).

import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { chooseInitialDraft, createDraftSaver, serverDraftIsNewer } from "./drafts.js";
import { elapsedText, plural, relativeTime } from "./format.js";
import { HISTORY_LIMIT, cleanHistory, entryLabel, renderHistory, solvedBy } from "./history.js";
import { setUpHints } from "./hints.js";
import { isFullPass, renderResult, resultLine } from "./results-view.js";
import { installShortcuts, shortcutsDialog } from "./shortcuts.js";
import { setUpSolved } from "./solved.js";
import { showTrackStatement } from "./statement.js";
import { keys, store } from "./storage.js";
import { NARROW_QUERY, setUpTabs } from "./tabs.js";
import { mountEditor } from "./textarea-editor.js";

const TIMER_INTERVAL_MS = 100;
const reducedMotion = () =>
  typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
// After a Cancel the grader may still finish: look for the result this long after the
// track's time limit.
const LATE_RESULT_MARGIN_MS = 3000;

export function initExercisePage(data) {
  const slug = data.slug;
  const trackNames = Object.keys(data.tracks || {});
  if (!trackNames.length) return null;

  const ui = {
    layout: document.querySelector(".exercise-layout"),
    statement: document.querySelector(".statement"),
    statementPane: byId("statement-pane"),
    editorFrame: byId("editor"),
    fallback: byId("code-fallback"),
    trackButtons: Array.from(document.querySelectorAll(".track-button[data-track]")),
    trackStatus: byId("track-status"),
    saveStatus: byId("save-status"),
    run: byId("run-button"),
    submit: byId("submit-button"),
    cancel: byId("cancel-button"),
    reset: byId("reset-button"),
    grading: byId("grading-status"),
    gradingText: byId("grading-text"),
    gradingTimer: byId("grading-timer"),
    actionStatus: byId("action-status-text"),
    undoReset: byId("undo-reset-button"),
    results: byId("results"),
    notice: byId("results-notice"),
    attemptBanner: byId("attempt-banner"),
    stale: byId("results-stale"),
    body: byId("results-body"),
    announcer: byId("results-announcer"),
    historyBody: byId("history-body"),
    hints: byId("hints"),
    hintList: byId("hint-list"),
    hintButton: byId("hint-button"),
    hintsToggle: byId("hints-toggle"),
    hintsClose: byId("hints-close"),
    hintsSlot: byId("hints-drawer-slot"),
    tablist: byId("pane-tabs"),
    shortcutsButton: byId("shortcuts-button"),
    shortcutsDialog: byId("shortcuts-dialog"),
  };

  // A ?track= in the address (a dashboard link, drill preview) beats the remembered track.
  const stored = trackNames.includes(data.requested_track)
    ? data.requested_track
    : store.get(keys.track(slug));
  const state = {
    track: trackNames.includes(stored)
      ? stored
      : trackNames.includes(data.default_track)
        ? data.default_track
        : trackNames[0],
    code: {}, // track -> code currently held for it this session
    sources: {}, // track -> where that code came from: "local" | "server" | "starter"
    latest: {}, // track -> {result, code}: the newest result of the track
    viewing: {}, // track -> {result, code, row}: an attempt chosen in the history
    history: {}, // track -> rows (newest first), once loaded
    busy: null, // {track, mode, controller, started, interval} while grading
    loadingLatest: null, // "track:id" of the latest result being fetched
    applying: false, // true while the page itself replaces the editor's text
    touched: false, // the learner typed since the page loaded
    undo: null, // {track, code} before the last reset
  };

  // -- Drafts ------------------------------------------------------------------------

  function setSaveStatus(text, warning = false) {
    ui.saveStatus.textContent = text;
    ui.saveStatus.classList.toggle("is-warning", warning);
  }

  const saver = createDraftSaver({
    store,
    key: (track) => keys.draft(slug, track),
    putDraft: (track, code, options) => api.putDraft(slug, track, code, options),
    onStatus: setSaveStatus,
  });

  function codeFor(track) {
    if (!(track in state.code)) {
      const info = data.tracks[track];
      const local = store.get(keys.draft(slug, track));
      const chosen = chooseInitialDraft(local, info.draft || null, info.starter_code);
      if (chosen.upload) saver.enqueue(track, chosen.code);
      if (chosen.adopt) store.set(keys.draft(slug, track), info.draft);
      state.code[track] = chosen.code;
      state.sources[track] = chosen.source;
    }
    return state.code[track];
  }

  // When the page came without the server's draft (the key is absent, not null), ask.
  async function fetchServerDraft(track) {
    const answer = await api.getDraft(slug, track);
    if (!answer.ok || !serverDraftIsNewer(store.get(keys.draft(slug, track)), answer.data)) return;
    store.set(keys.draft(slug, track), answer.data);
    if (state.track === track && !state.touched && editor.getValue() !== answer.data.code) {
      setCode(answer.data.code, { resetHistory: true });
      setSaveStatus("Restored your saved draft");
    } else if (state.track !== track) {
      delete state.code[track];
    }
  }

  function setCode(text, options) {
    state.applying = true;
    try {
      editor.setValue(text, options);
    } finally {
      state.applying = false;
    }
    state.code[state.track] = text;
    updateStale();
  }

  function onChange(code) {
    if (state.applying) return;
    state.touched = true;
    state.code[state.track] = code;
    saver.schedule(state.track, code);
    updateStale();
    if (state.undo) clearUndo();
  }

  // -- Editor ------------------------------------------------------------------------

  const editor = mountEditor(ui.editorFrame, ui.fallback, {
    doc: codeFor(state.track),
    onChange,
    onRun: () => grade("run"),
    onSubmit: () => grade("submit"),
  });
  announceSource(state.track);

  function announceSource(track) {
    const source = state.sources[track];
    setSaveStatus(source === "local" || source === "server" ? "Restored your saved draft" : "");
  }

  // -- Layout: tabs below 700 px, the hints drawer -----------------------------------

  const narrowQuery = window.matchMedia(NARROW_QUERY);
  const isNarrow = () => Boolean(ui.tablist) && narrowQuery.matches;
  const hintsHome = ui.hints ? { parent: ui.hints.parentElement, next: ui.hints.nextSibling } : null;
  let drawerOpen = false;

  function placeHints(narrow) {
    if (!ui.hints || !ui.hintsSlot) return;
    if (narrow && ui.hints.parentElement !== ui.hintsSlot) ui.hintsSlot.append(ui.hints);
    if (!narrow && ui.hints.parentElement !== hintsHome.parent) hintsHome.parent.insertBefore(ui.hints, hintsHome.next);
    ui.hints.classList.toggle("is-drawer", narrow);
    if (!narrow) drawerOpen = false;
    showDrawer(drawerOpen && narrow);
  }

  function showDrawer(open) {
    if (!ui.hints) return;
    const narrow = isNarrow();
    drawerOpen = open;
    ui.hints.hidden = narrow && !open;
    if (ui.hintsToggle) ui.hintsToggle.setAttribute("aria-expanded", String(narrow && open));
  }

  // A first visit starts on the statement; a learner with a draft or an attempt, on the code.
  const returning =
    state.sources[state.track] !== "starter" || Boolean(data.tracks[state.track].last_submission);
  const tabs = ui.tablist
    ? setUpTabs({
        tablist: ui.tablist,
        layout: ui.layout,
        initial: returning ? "code" : "statement",
        media: narrowQuery,
        onSelect: (_name, narrow) => placeHints(narrow),
      })
    : null;

  if (ui.hintsToggle) {
    ui.hintsToggle.addEventListener("click", () => {
      showDrawer(!drawerOpen);
      if (drawerOpen && ui.hintButton) ui.hintButton.focus();
    });
  }
  if (ui.hintsClose) {
    ui.hintsClose.addEventListener("click", () => {
      showDrawer(false);
      ui.hintsToggle.focus();
    });
  }
  if (ui.hints) {
    ui.hints.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && drawerOpen && isNarrow()) {
        event.preventDefault();
        showDrawer(false);
        ui.hintsToggle.focus();
      }
    });
  }

  // -- After solving -----------------------------------------------------------------

  const solved = setUpSolved({
    slug,
    data,
    ui: {
      statement: ui.statement,
      panel: byId("solved-panel"),
      heading: byId("solved-heading"),
      trackStatus: ui.trackStatus,
      trackButtons: ui.trackButtons,
      solutionButton: byId("solution-button"),
      solutionOff: byId("solution-off"),
      solutionView: byId("solution-view"),
      solutionTitle: byId("solution-title"),
      solutionCode: byId("solution-code"),
      goingFurtherLink: byId("going-further-link"),
      nextLink: byId("next-link"),
      onShowStatement: () => tabs && tabs.select("statement"),
    },
    onStatus: (text) => {
      ui.actionStatus.textContent = text;
    },
  });

  // -- Tracks ------------------------------------------------------------------------

  function showTrack(track) {
    for (const button of ui.trackButtons) {
      button.setAttribute("aria-pressed", String(button.dataset.track === track));
    }
    showTrackStatement(ui.statement, track); // the shared text and this track's parts
    solved.show(track);
  }

  function switchTrack(track) {
    if (track === state.track || !data.tracks[track]) return;
    saver.flush();
    state.track = track;
    store.set(keys.track(slug), track);
    showTrack(track);
    setCode(codeFor(track), { resetHistory: true });
    announceSource(track);
    clearUndo();
    ui.notice.replaceChildren();
    renderResults();
    showHistory(track);
    if (!state.history[track]) loadHistory(track);
    loadLatest(track);
  }

  for (const button of ui.trackButtons) {
    button.addEventListener("click", () => switchTrack(button.dataset.track));
  }

  // -- Reset to starter (undoable) ---------------------------------------------------

  function clearUndo() {
    state.undo = null;
    ui.undoReset.hidden = true;
    ui.actionStatus.textContent = "";
  }

  ui.reset.addEventListener("click", () => {
    const starter = data.tracks[state.track].starter_code;
    const before = editor.getValue();
    if (before === starter) {
      ui.actionStatus.textContent = "Your code is already the starter code.";
      ui.undoReset.hidden = true;
      return;
    }
    setCode(starter);
    state.touched = true;
    saver.schedule(state.track, starter);
    state.undo = { track: state.track, code: before };
    ui.actionStatus.textContent = "Code reset to the starter.";
    ui.undoReset.hidden = false;
  });

  ui.undoReset.addEventListener("click", () => {
    const undo = state.undo;
    if (!undo || undo.track !== state.track) return clearUndo();
    setCode(undo.code);
    saver.schedule(state.track, undo.code);
    clearUndo();
    ui.actionStatus.textContent = "Reset undone.";
    editor.focus();
  });

  // -- Grading -----------------------------------------------------------------------

  function limitOf(track) {
    const info = data.tracks[track] || {};
    const seconds = Number(info.wall_seconds);
    return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  }

  function setBusy(busy) {
    state.busy = busy;
    for (const button of [ui.run, ui.submit, ui.reset]) button.disabled = Boolean(busy);
    ui.run.classList.toggle("is-running", Boolean(busy) && busy.mode === "run");
    ui.submit.classList.toggle("is-running", Boolean(busy) && busy.mode === "submit");
    ui.results.setAttribute("aria-busy", String(Boolean(busy)));
    ui.cancel.hidden = !busy;
    ui.grading.hidden = !busy;
    if (!busy) return;
    ui.gradingText.textContent = busy.mode === "run" ? "Running the examples…" : "Running the hidden tests…";
    const tick = () => {
      ui.gradingTimer.textContent = elapsedText(performance.now() - busy.started, limitOf(busy.track));
    };
    tick();
    busy.interval = setInterval(tick, TIMER_INTERVAL_MS);
  }

  function endBusy() {
    if (state.busy && state.busy.interval) clearInterval(state.busy.interval);
    setBusy(null);
  }

  // `origin`: the element the learner acted from. Focus then moves to the results'
  // heading, unless they pressed the shortcut while typing in the editor: their cursor
  // stays there and the live region reads the summary out instead.
  async function grade(mode, origin = document.activeElement) {
    if (state.busy) return;
    const track = state.track;
    const code = editor.getValue();
    const fromEditor = Boolean(origin && ui.editorFrame.contains(origin));
    saver.flush();
    clearUndo();
    ui.notice.replaceChildren();
    const busy = { track, mode, controller: new AbortController(), started: performance.now() };
    setBusy(busy);
    // Keep focus on something that is still enabled while the buttons are disabled.
    if (origin === ui.run || origin === ui.submit) ui.cancel.focus();

    const answer = await api.submit(slug, track, code, mode, { signal: busy.controller.signal });
    if (state.busy !== busy) return; // cancelled: the page stopped waiting
    const hadFocus = document.activeElement;
    endBusy();

    if (answer.ok && answer.data) {
      const result = answer.data;
      state.latest[track] = { result, code };
      delete state.viewing[track];
      addToHistory(track, result);
      const solvedNow = result.mode === "submit" && isFullPass(result);
      if (solvedNow) solved.markSolved(track);
      // On a narrow screen the results replace the editor, so focus follows them.
      if (state.track === track) showResults({ focus: !fromEditor || isNarrow(), solvedNow });
      return;
    }
    if (state.track === track) {
      renderProblem(answer);
      // The disabled buttons and the hidden Cancel dropped focus: back to the trigger.
      if (!fromEditor && (hadFocus === ui.cancel || hadFocus === document.body || !hadFocus)) {
        (mode === "run" ? ui.run : ui.submit).focus();
      }
    }
  }

  // Show the fresh result: the Results tab on a narrow screen, the heading scrolled into
  // view, focus on it (or, from the editor, only announced).
  // After a passing Submit the after-solving panel (just above) comes into view with it.
  function showResults({ focus, solvedNow = false }) {
    if (isNarrow()) tabs.select("results");
    renderResults();
    const heading = byId("results-summary");
    if (!heading) return;
    const panel = byId("solved-panel");
    const top = solvedNow && panel && !panel.hidden ? panel : heading;
    top.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
    if (focus) {
      heading.focus({ preventScroll: true });
    } else {
      announce(heading.textContent);
    }
  }

  // The live region holds one sentence: the summary, never the list of tests.
  function announce(text) {
    ui.announcer.textContent = "";
    // A fresh text node after a tick, so the same summary twice is read twice.
    setTimeout(() => {
      ui.announcer.textContent = text;
    }, 50);
  }

  ui.cancel.addEventListener("click", () => {
    const busy = state.busy;
    if (!busy) return;
    busy.controller.abort();
    endBusy();
    const track = busy.track;
    ui.notice.replaceChildren(
      el(
        "div",
        { className: "notice notice-info", role: "status" },
        el("p", { className: "notice-title" }, "Stopped waiting for the result."),
        el("p", null, "The grader may still finish: the result will appear in your submission history."),
      ),
    );
    (busy.mode === "run" ? ui.run : ui.submit).focus();
    const wait = (limitOf(track) || 10) * 1000 + LATE_RESULT_MARGIN_MS;
    setTimeout(() => loadHistory(track, { adoptNewest: true }), wait);
  });

  ui.run.addEventListener("click", () => grade("run", ui.run));
  ui.submit.addEventListener("click", () => grade("submit", ui.submit));

  // A request that did not produce a result: say why and when to retry; the code stays.
  function renderProblem(answer) {
    const lines = [];
    let title = "Could not grade your code.";
    if (answer.status === 0) {
      title = "Could not reach the server.";
      lines.push("Check your connection and try again. Your code is kept in this browser.");
    } else if (answer.status === 413) {
      title = "Your code is too large to grade.";
      lines.push(answer.message);
    } else if (answer.status === 429 || answer.status === 503) {
      title = answer.status === 429 ? "Too many submissions." : "The graders are busy.";
      lines.push(answer.message);
      lines.push(
        answer.retryAfter != null
          ? `You can retry in ${plural(answer.retryAfter, "second")}. Your code is kept.`
          : "You can retry in a moment. Your code is kept.",
      );
    } else {
      lines.push(answer.message);
    }
    ui.notice.replaceChildren(
      el(
        "div",
        { className: "notice", role: "alert" },
        el("p", { className: "notice-title" }, title),
        ...lines.filter(Boolean).map((line) => el("p", null, line)),
      ),
    );
  }

  // -- Results -----------------------------------------------------------------------

  // What the results show for a track: an attempt chosen in the history, else the latest.
  const shownEntry = (track) => state.viewing[track] || state.latest[track] || null;

  function updateStale() {
    const entry = shownEntry(state.track);
    ui.stale.hidden = !entry || entry.code == null || entry.code === editor.getValue();
  }

  function goToLine(line) {
    if (isNarrow()) tabs.select("code");
    editor.markLine(line);
    editor.focus();
  }

  function renderResults() {
    const entry = shownEntry(state.track);
    updateStale();
    renderAttemptBanner(entry);
    if (!entry) {
      ui.body.replaceChildren(
        el(
          "p",
          { className: "results-empty" },
          "Press ",
          el("strong", null, "Run"),
          " to try the examples, or ",
          el("strong", null, "Submit"),
          " to grade your code against the hidden tests.",
        ),
      );
      editor.markLine(null);
      return;
    }
    ui.body.replaceChildren(
      ...renderResult(entry.result, {
        h: el,
        onGoToLine: goToLine,
        onHint: (n) => hints.revealThrough(n),
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
        el("button", { type: "button", className: "button button-small", onClick: () => loadAttempt(viewing) }, "Load this code into the editor"),
      );
    } else {
      actions.push(el("span", { className: "attempt-no-code" }, "This attempt's code could not be loaded."));
    }
    const latest = state.latest[state.track];
    if (!latest || latest.result.id !== viewing.result.id) {
      actions.push(el("button", { type: "button", className: "link-button", onClick: () => backToLatest() }, "Back to the latest result"));
    }
    ui.attemptBanner.replaceChildren(
      el("p", { className: "attempt-title" }, `Showing an earlier attempt: ${entryLabel(row)}, ${when}.`),
      el("div", { className: "attempt-actions" }, ...actions),
    );
    ui.attemptBanner.hidden = false;
  }

  function loadAttempt(viewing) {
    if (isNarrow()) tabs.select("code");
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

  // -- History -----------------------------------------------------------------------

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
        renderResults();
        showHistory(track);
      }
    }
  }

  // An attempt's result and its code (the server keeps each learner's own; null if the
  // code could not be had: the result is still worth showing).
  async function fetchAttempt(row) {
    const [answer, code] = await Promise.all([api.submission(row.id), api.submissionCode(row.id)]);
    if (!answer.ok || !answer.data) return { error: answer.message };
    const text = code.ok && code.data && typeof code.data.code === "string" ? code.data.code : null;
    return { result: answer.data, code: text };
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
        ui.notice.replaceChildren(el("div", { className: "notice", role: "alert" }, el("p", { className: "notice-title" }, "Could not load that attempt."), el("p", null, fetched.error)));
        return;
      }
      entry = { result: fetched.result, code: fetched.code };
    }
    if (state.track !== track) return;
    state.viewing[track] = { ...entry, row };
    ui.notice.replaceChildren();
    renderResults();
    showHistory(track);
    if (isNarrow()) tabs.select("results");
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
      renderResults();
      showHistory(track);
    }
  }

  // -- Hints -------------------------------------------------------------------------

  const hints = setUpHints({
    slug,
    total: data.hint_count,
    list: ui.hintList,
    button: ui.hintButton,
    onReveal: () => {
      if (isNarrow()) {
        tabs.select("code");
        showDrawer(true);
      }
    },
  });

  // -- Shortcuts ---------------------------------------------------------------------

  const dialog = ui.shortcutsDialog ? shortcutsDialog(ui.shortcutsDialog) : null;
  installShortcuts(
    window,
    {
      run: (event) => grade("run", event.target),
      submit: (event) => grade("submit", event.target),
      help: () => dialog && dialog.show(),
    },
    () => !(dialog && dialog.open),
  );
  if (ui.shortcutsButton && dialog) ui.shortcutsButton.addEventListener("click", () => dialog.show());

  // -- Start -------------------------------------------------------------------------

  showTrack(state.track);
  renderResults();
  showHistory(state.track);
  loadHistory(state.track);
  loadLatest(state.track);

  // Save what is pending when the tab is hidden or closed.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") saver.flush({ keepalive: true });
  });
  window.addEventListener("pagehide", () => saver.flush({ keepalive: true }));

  for (const track of trackNames) {
    if (!("draft" in data.tracks[track])) fetchServerDraft(track);
  }

  // A handle for browser tests and the console: set code without typing through the
  // editor's auto-indent and bracket closing.
  return { editor, switchTrack };
}
