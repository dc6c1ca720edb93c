// The exercise page's elements (templates/exercise.html), looked up once when the page
// starts. The optional ones (the tabs, the hints, the shortcuts dialog) are null on a
// page without them.

import { byId } from "./dom.js";

export function exercisePageElements() {
  return {
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
    tablist: byId("pane-tabs"),
    shortcutsButton: byId("shortcuts-button"),
    shortcutsDialog: byId("shortcuts-dialog"),
  };
}
