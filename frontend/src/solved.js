// After solving a track: its "Solved" status beside the track switch, and a panel with
// "Show solution" (the reference, read-only), "Compare with your code" (the learner's
// passing code and the reference side by side, in a dialog), the "Going further"
// questions highlighted and a link to the next exercise.

import { api } from "./api.js";
import { el } from "./dom.js";
import { relativeTime, trackLabel } from "./format.js";
import { shortcutsDialog as modalDialog } from "./shortcuts.js";

// Wrap the statement's "Going further" heading (id="going-further", set by the server)
// and what follows it up to the next heading of its level into one <section>, so it can
// be highlighted as a whole. Returns the section, or null when there is none.
export function wrapGoingFurther(statement) {
  const heading = statement && statement.querySelector("#going-further");
  if (!heading) return null;
  if (heading.parentElement.classList.contains("going-further")) return heading.parentElement;
  const level = heading.tagName;
  const section = el("section", { className: "going-further", "aria-labelledby": "going-further" });
  heading.before(section);
  let node = heading;
  while (node) {
    const next = node.nextSibling;
    section.append(node);
    node = next;
    if (node && node.nodeType === 1 && node.tagName <= level && /^H[1-6]$/.test(node.tagName)) break;
  }
  return section;
}

// Read-only code in `container`: highlighted by the editor bundle when it loaded, else a
// plain <pre>. Long lines wrap. Returns the viewer ({destroy}) or null.
export function showCode(container, code, label) {
  container.replaceChildren();
  const bundle = window.DrillEditor;
  if (bundle && typeof bundle.create === "function") {
    try {
      const nonce = document.documentElement.dataset.cspNonce || undefined;
      return bundle.create(container, { doc: code, readOnly: true, label: `${label}, read-only`, nonce });
    } catch (err) {
      console.error("Drill: could not highlight the code", err);
      container.replaceChildren();
    }
  }
  container.append(el("pre", { className: "solution-plain", tabindex: "0", "aria-label": label }, el("code", null, code)));
  return null;
}

// passingCode(track): a promise of the learner's passing code of the track, {code,
// createdAt} or {error} (page.js finds it in the results and the history).
export function setUpSolved({ slug, data, ui, onStatus, passingCode = async () => ({ error: "Not available." }) }) {
  const goingFurther = wrapGoingFurther(ui.statement);
  const solutions = {}; // track -> {code} | {error}
  const solved = {};
  let track = null;
  let viewer = null;
  let compareViewers = [];
  const compare = ui.compareDialog ? modalDialog(ui.compareDialog) : null;

  for (const [name, info] of Object.entries(data.tracks)) solved[name] = Boolean(info && info.solved);

  if (goingFurther) ui.goingFurtherLink.hidden = false;
  const next = data.next_exercise;
  if (next && typeof next.slug === "string") {
    ui.nextLink.href = `/exercises/${encodeURIComponent(next.slug)}`;
    // After a section's last exercise the link leads into the next section: say so.
    const crossing = typeof next.section === "string" && next.section !== data.section;
    ui.nextLink.textContent = crossing
      ? `Next section, ${next.section}: ${next.title || next.slug}`
      : `Next exercise: ${next.title || next.slug}`;
  } else {
    ui.nextLink.href = "/";
    ui.nextLink.textContent = "Back to the exercises";
  }
  if (data.reveal_solution === false) {
    ui.solutionButton.hidden = true;
    ui.solutionOff.hidden = false;
  }
  const canCompare = Boolean(compare && ui.compareButton) && data.reveal_solution !== false;
  if (ui.compareButton) ui.compareButton.hidden = !canCompare;

  function render() {
    const isSolved = Boolean(solved[track]);
    const label = trackLabel(track);
    ui.trackStatus.textContent = isSolved ? "Solved" : "Not solved yet";
    ui.trackStatus.classList.toggle("is-solved", isSolved);
    for (const button of ui.trackButtons) {
      const mark = button.querySelector(".track-solved");
      if (mark) mark.hidden = !solved[button.dataset.track];
    }
    ui.panel.hidden = !isSolved;
    ui.heading.textContent = `${label} track solved`;
    if (goingFurther) goingFurther.classList.toggle("is-highlighted", Object.values(solved).some(Boolean));
    showSolution(isSolved && solutions[track] && solutions[track].shown);
  }

  function showSolution(shown) {
    ui.solutionButton.setAttribute("aria-expanded", String(Boolean(shown)));
    ui.solutionButton.textContent = shown ? "Hide solution" : "Show solution";
    ui.solutionView.hidden = !shown;
    if (!shown) return;
    const entry = solutions[track];
    ui.solutionTitle.textContent = `Reference solution (${trackLabel(track)})`;
    if (viewer && viewer.destroy) viewer.destroy();
    viewer = null;
    ui.solutionCode.replaceChildren();
    if (entry.error) {
      ui.solutionCode.append(el("p", { className: "inline-error" }, entry.error));
      return;
    }
    viewer = showCode(ui.solutionCode, entry.code, `Reference solution (${trackLabel(track)})`);
  }

  // The track's reference solution, fetched once (again after a failure).
  async function loadSolution(current) {
    const entry = solutions[current];
    if (entry && !entry.error) return entry;
    const answer = await api.solution(slug, current);
    const shown = Boolean(entry && entry.shown);
    solutions[current] =
      answer.ok && answer.data && typeof answer.data.code === "string"
        ? { code: answer.data.code, shown }
        : { error: `Could not load the solution: ${answer.message}`, shown };
    return solutions[current];
  }

  async function toggleSolution() {
    const current = track;
    const entry = solutions[current];
    if (entry && entry.shown) {
      entry.shown = false;
      render();
      return;
    }
    if (!entry || entry.error) {
      ui.solutionButton.disabled = true;
      onStatus("Loading the reference solution…");
      await loadSolution(current);
      ui.solutionButton.disabled = false;
      onStatus("");
    }
    solutions[current].shown = true;
    if (track === current) render();
  }

  function clearCompare() {
    for (const one of compareViewers) if (one && one.destroy) one.destroy();
    compareViewers = [];
    ui.compareYours.replaceChildren();
    ui.compareReference.replaceChildren();
  }

  // The learner's passing code and the reference, side by side in a dialog.
  async function openCompare() {
    const current = track;
    const opener = document.activeElement;
    ui.compareButton.disabled = true;
    onStatus("Loading your code and the reference solution…");
    const [reference, yours] = await Promise.all([loadSolution(current), passingCode(current)]);
    ui.compareButton.disabled = false;
    onStatus("");
    if (track !== current || compare.open) return;
    // Focus goes back to the button on close (disabling it may have dropped focus).
    if (opener && opener.isConnected) opener.focus({ preventScroll: true });
    clearCompare();
    compare.show(); // open first: the editors measure their text in a box that shows
    const label = trackLabel(current);
    ui.compareTitle.textContent = `Your code and the reference solution (${label})`;
    if (yours && typeof yours.code === "string") {
      const when = yours.createdAt ? `, ${relativeTime(yours.createdAt)}` : "";
      ui.compareYoursNote.textContent = `Your Submit that passed every hidden test${when}.`;
      compareViewers.push(showCode(ui.compareYours, yours.code, `Your passing code (${label})`));
    } else {
      ui.compareYoursNote.textContent = "";
      ui.compareYours.append(
        el("p", { className: "inline-error" }, `Could not load your passing code: ${(yours && yours.error) || "not found"}`),
      );
    }
    if (reference.error) {
      ui.compareReference.append(el("p", { className: "inline-error" }, reference.error));
    } else {
      compareViewers.push(showCode(ui.compareReference, reference.code, `Reference solution to compare (${label})`));
    }
  }

  ui.solutionButton.addEventListener("click", toggleSolution);
  if (canCompare) {
    ui.compareButton.addEventListener("click", openCompare);
    ui.compareDialog.addEventListener("close", clearCompare);
  }
  ui.goingFurtherLink.addEventListener("click", (event) => {
    if (!goingFurther) return;
    event.preventDefault();
    ui.onShowStatement();
    goingFurther.scrollIntoView({ block: "start" });
    const heading = goingFurther.querySelector("#going-further");
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  });

  return {
    show(name) {
      track = name;
      render();
    },
    markSolved(name) {
      if (solved[name]) return;
      solved[name] = true;
      if (name === track) render();
    },
    isSolved: (name) => Boolean(solved[name]),
    // Whether the compare dialog is open (the page-wide shortcuts wait while it is).
    isComparing: () => Boolean(compare && compare.open),
  };
}
