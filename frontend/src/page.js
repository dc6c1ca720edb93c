// The exercise page: sets up its parts and wires them together. Each part is a module
// that takes what it shares explicitly: the page data, the page's elements (ui), the
// shared `state` below, and the other parts it calls.
//
//   track-code.js      the code of each track (drafts) and the editor showing it
//   layout.js          narrow screens: the tabs; the hints beside the editor
//   solved.js          after solving: the solved status, the solution (alone or beside
//                      the learner's passing code), what next
//   starter-reset.js   "Reset to starter", undoable
//   results-panel.js   the result shown, the stale note, an earlier attempt's banner
//   history-panel.js   the attempts of the track, and its latest result
//   grading.js         Run, Submit and Cancel; a problem said (notices.js)
//   tracks.js          the track switch
//   hints.js, shortcuts.js
//
// Safety: learner output, messages and tracebacks only ever reach the DOM as text
// (dom.js). The only innerHTML is the server's rendered Markdown (statement, hints).

import { byId } from "./dom.js";
import { setUpGrading } from "./grading.js";
import { setUpHints } from "./hints.js";
import { setUpHistoryPanel } from "./history-panel.js";
import { setUpLayout } from "./layout.js";
import { exercisePageElements } from "./page-elements.js";
import { setUpResultsPanel } from "./results-panel.js";
import { installShortcuts, shortcutsDialog } from "./shortcuts.js";
import { setUpSolved } from "./solved.js";
import { setUpStarterReset } from "./starter-reset.js";
import { keys, store } from "./storage.js";
import { setUpTrackCode } from "./track-code.js";
import { setUpTracks } from "./tracks.js";

export function initExercisePage(data) {
  const slug = data.slug;
  const trackNames = Object.keys(data.tracks || {});
  if (!trackNames.length) return null;

  const ui = exercisePageElements();

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

  // The parts below call each other only once the page runs (events, answers), by which
  // time every one is set up; setting them up in this order keeps the page's first
  // requests and DOM changes in their order.

  // -- Drafts and the editor ---------------------------------------------------------

  const trackCode = setUpTrackCode({
    slug,
    data,
    state,
    ui,
    onRun: () => grading.grade("run"),
    onSubmit: () => grading.grade("submit"),
    onCodeChanged: () => results.updateStale(),
    onTyped: () => {
      if (state.undo) reset.clearUndo();
    },
  });
  const { editor, saver, setCode } = trackCode;

  // -- Layout: tabs below 700 px, the hints drawer -----------------------------------

  // A first visit starts on the statement; a learner with a draft or an attempt, on the code.
  const returning =
    state.sources[state.track] !== "starter" || Boolean(data.tracks[state.track].last_submission);
  const layout = setUpLayout({
    ui,
    initial: returning ? "code" : "statement",
    hintsOpen: store.get(keys.hintsOpen(slug)) === true,
    onHintsOpen: (open) => (open ? store.set(keys.hintsOpen(slug), true) : store.remove(keys.hintsOpen(slug))),
  });

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
      compareButton: byId("compare-button"),
      compareDialog: byId("compare-dialog"),
      compareTitle: byId("compare-title"),
      compareYours: byId("compare-yours"),
      compareYoursNote: byId("compare-yours-note"),
      compareReference: byId("compare-reference"),
      onShowStatement: () => layout.selectTab("statement"),
    },
    onStatus: (text) => {
      ui.actionStatus.textContent = text;
    },
    passingCode: (track) => history.passingCode(track),
  });

  // -- Reset, results, history, grading, tracks ----------------------------------------

  const reset = setUpStarterReset({ data, state, ui, editor, setCode, saver });
  const results = setUpResultsPanel({
    state,
    ui,
    editor,
    setCode,
    saver,
    layout,
    onHint: (n) => hints.revealThrough(n),
    showHistory: (track) => history.showHistory(track),
  });
  const history = setUpHistoryPanel({ slug, data, state, ui, layout, solved, results });
  const grading = setUpGrading({ slug, data, state, ui, editor, saver, layout, solved, reset, results, history });
  const tracks = setUpTracks({ slug, data, state, ui, solved, trackCode, reset, results, history });

  // -- Hints -------------------------------------------------------------------------

  const hints = setUpHints({
    slug,
    total: data.hint_count,
    list: ui.hintList,
    button: ui.hintButton,
    onReveal: () => layout.showHints(),
    scrollTo: (item) => layout.showHint(item),
  });

  // -- Shortcuts ---------------------------------------------------------------------

  const dialog = ui.shortcutsDialog ? shortcutsDialog(ui.shortcutsDialog) : null;
  installShortcuts(
    window,
    {
      run: (event) => grading.grade("run", event.target),
      submit: (event) => grading.grade("submit", event.target),
      help: () => dialog && dialog.show(),
    },
    () => !(dialog && dialog.open) && !solved.isComparing(),
  );
  if (ui.shortcutsButton && dialog) ui.shortcutsButton.addEventListener("click", () => dialog.show());

  // -- Start -------------------------------------------------------------------------

  tracks.showTrack(state.track);
  results.renderResults();
  history.showHistory(state.track);
  history.loadHistory(state.track);
  history.loadLatest(state.track);

  // Save what is pending when the tab is hidden or closed.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") saver.flush({ keepalive: true });
  });
  window.addEventListener("pagehide", () => saver.flush({ keepalive: true }));

  for (const track of trackNames) {
    if (!("draft" in data.tracks[track])) trackCode.fetchServerDraft(track);
  }

  // A handle for browser tests and the console: set code without typing through the
  // editor's auto-indent and bracket closing.
  return { editor, switchTrack: tracks.switchTrack };
}
