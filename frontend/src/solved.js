// After solving a track: its "Solved" status beside the track switch, and a panel with
// "Show solution" (the reference, read-only), the "Going further" questions highlighted
// and a link to the next exercise.

import { api } from "./api.js";
import { el } from "./dom.js";
import { trackLabel } from "./format.js";

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

export function setUpSolved({ slug, data, ui, onStatus }) {
  const goingFurther = wrapGoingFurther(ui.statement);
  const solutions = {}; // track -> {code} | {error}
  const solved = {};
  let track = null;
  let viewer = null;

  for (const [name, info] of Object.entries(data.tracks)) solved[name] = Boolean(info && info.solved);

  if (goingFurther) ui.goingFurtherLink.hidden = false;
  const next = data.next_exercise;
  if (next && typeof next.slug === "string") {
    ui.nextLink.href = `/exercises/${encodeURIComponent(next.slug)}`;
    ui.nextLink.textContent = `Next exercise: ${next.title || next.slug}`;
  } else {
    ui.nextLink.href = "/";
    ui.nextLink.textContent = "Back to the exercises";
  }
  if (data.reveal_solution === false) {
    ui.solutionButton.hidden = true;
    ui.solutionOff.hidden = false;
  }

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
    const bundle = window.DrillEditor;
    if (bundle && typeof bundle.create === "function") {
      try {
        const nonce = document.documentElement.dataset.cspNonce || undefined;
        viewer = bundle.create(ui.solutionCode, {
          doc: entry.code,
          readOnly: true,
          label: `Reference solution (${trackLabel(track)}), read-only`,
          nonce,
        });
        return;
      } catch (err) {
        console.error("Drill: could not highlight the solution", err);
        ui.solutionCode.replaceChildren();
      }
    }
    ui.solutionCode.append(
      el("pre", { className: "solution-plain", tabindex: "0", "aria-label": `Reference solution (${trackLabel(track)})` }, el("code", null, entry.code)),
    );
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
      const answer = await api.solution(slug, current);
      ui.solutionButton.disabled = false;
      onStatus("");
      if (answer.ok && answer.data && typeof answer.data.code === "string") {
        solutions[current] = { code: answer.data.code };
      } else {
        solutions[current] = { error: `Could not load the solution: ${answer.message}` };
      }
    }
    solutions[current].shown = true;
    if (track === current) render();
  }

  ui.solutionButton.addEventListener("click", toggleSolution);
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
  };
}
