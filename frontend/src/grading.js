// Run and Submit: the code goes to the grader (POST .../submissions) while the page shows
// it busy (a timer against the track's time limit, and Cancel); then the fresh result is
// shown, or the problem said (notices.js).

import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { elapsedText } from "./format.js";
import { renderProblem, renderStoppedWaiting } from "./notices.js";
import { isFullPass } from "./results-view.js";

const TIMER_INTERVAL_MS = 100;
const reducedMotion = () =>
  typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
// After a Cancel the grader may still finish: look for the result this long after the
// track's time limit.
const LATE_RESULT_MARGIN_MS = 3000;

// The seconds a track's grading may take (its wall-clock limit), or null.
export function limitOf(data, track) {
  const info = data.tracks[track] || {};
  const seconds = Number(info.wall_seconds);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

// state: the page's shared state (page.js): state.busy is {track, mode, controller,
// started, interval} while grading. editor, saver: track-code.js; layout: layout.js;
// solved: solved.js; reset: starter-reset.js; results: results-panel.js; history:
// history-panel.js; h: the node builder (dom.js's `el`; the unit tests pass their own).
// Returns {grade(mode, origin)}.
export function setUpGrading({ slug, data, state, ui, editor, saver, layout, solved, reset, results, history, h = el }) {
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
      ui.gradingTimer.textContent = elapsedText(performance.now() - busy.started, limitOf(data, busy.track));
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
    reset.clearUndo();
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
      history.addToHistory(track, result);
      const solvedNow = result.mode === "submit" && isFullPass(result);
      if (solvedNow) solved.markSolved(track);
      // On a narrow screen the results replace the editor, so focus follows them.
      if (state.track === track) showResults({ focus: !fromEditor || layout.isNarrow(), solvedNow });
      return;
    }
    if (state.track === track) {
      ui.notice.replaceChildren(renderProblem(answer, { h }));
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
    if (layout.isNarrow()) layout.selectTab("results");
    results.renderResults();
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
    ui.notice.replaceChildren(renderStoppedWaiting({ h }));
    (busy.mode === "run" ? ui.run : ui.submit).focus();
    const wait = (limitOf(data, track) || 10) * 1000 + LATE_RESULT_MARGIN_MS;
    setTimeout(() => history.loadHistory(track, { adoptNewest: true }), wait);
  });

  ui.run.addEventListener("click", () => grade("run", ui.run));
  ui.submit.addEventListener("click", () => grade("submit", ui.submit));

  return { grade };
}
