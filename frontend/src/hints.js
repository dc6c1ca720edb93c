// Hints, revealed one at a time and remembered (by number) in this browser.

import { el } from "./dom.js";
import { api } from "./api.js";
import { keys, store } from "./storage.js";

// onReveal(): a hint is about to show (open the hints); scrollTo(item): bring a revealed
// hint into view (the page scrolls the workspace alone, beside the statement).
export function setUpHints({
  slug,
  total,
  list,
  button,
  onReveal = () => {},
  scrollTo = (item) => item.scrollIntoView({ block: "nearest" }),
}) {
  const hints = {
    total: Number(total) || 0,
    shown: 0, // hints in the list (loaded or loading)
    loading: false,
    queue: Promise.resolve(),
  };
  if (!list || !button) return { revealThrough: () => Promise.resolve() };

  function updateButton() {
    if (hints.shown >= hints.total) {
      button.textContent = hints.total === 1 ? "The hint is shown" : `All ${hints.total} hints shown`;
      button.disabled = true;
    } else {
      button.textContent = `Show hint ${hints.shown + 1} of ${hints.total}`;
      button.disabled = hints.loading;
    }
  }

  function hintItem(n) {
    let item = document.getElementById(`hint-${n}`);
    if (!item) {
      item = el("li", { id: `hint-${n}`, className: "hint is-loading", tabindex: "-1" }, el("h3", { className: "hint-title" }, `Hint ${n}`), el("p", null, "Loading…"));
      list.append(item);
    }
    return item;
  }

  async function loadHint(n) {
    const item = hintItem(n);
    const answer = await api.hint(slug, n);
    if (answer.ok && answer.data && typeof answer.data.html === "string") {
      if (typeof answer.data.total === "number") hints.total = answer.data.total;
      const content = el("div", { className: "prose" });
      content.innerHTML = answer.data.html; // trusted: the server's Markdown renderer
      item.replaceChildren(el("h3", { className: "hint-title" }, `Hint ${n}`), content);
      item.classList.remove("is-loading");
      return true;
    }
    if (answer.status === 404) {
      // Past the last hint (the exercise changed): forget it.
      item.remove();
      hints.total = Math.min(hints.total, n - 1);
      return false;
    }
    const retry = el("button", { type: "button", className: "link-button", onClick: () => loadHint(n) }, "Try again");
    item.replaceChildren(
      el("h3", { className: "hint-title" }, `Hint ${n}`),
      el("p", { className: "inline-error" }, `Could not load this hint: ${answer.message} `, retry),
    );
    return false;
  }

  async function loadUpTo(n) {
    hints.loading = true;
    updateButton();
    while (hints.shown < n) {
      hints.shown += 1;
      const ok = await loadHint(hints.shown);
      if (!ok && !document.getElementById(`hint-${hints.shown}`)) {
        hints.shown -= 1; // gone (404): stop here
        break;
      }
    }
    hints.loading = false;
    updateButton();
  }

  // Reveal hints up to n (in order), remember how many, and move focus to hint n. Calls
  // queue behind each other, so a "Hint 2 may help" click during a restore still works.
  function revealThrough(n) {
    hints.queue = hints.queue.then(async () => {
      const target = Math.min(n, hints.total);
      if (target < 1) return;
      onReveal(); // open the hints beside the editor
      await loadUpTo(target);
      store.set(keys.hints(slug), hints.shown);
      const item = document.getElementById(`hint-${Math.min(target, hints.shown)}`);
      if (item) {
        scrollTo(item);
        item.focus({ preventScroll: true });
      }
    });
    return hints.queue;
  }

  button.addEventListener("click", () => revealThrough(hints.shown + 1));
  updateButton();
  // Hints revealed earlier are remembered by number and fetched again.
  const remembered = Math.min(Number(store.get(keys.hints(slug))) || 0, hints.total);
  if (remembered > 0) hints.queue = hints.queue.then(() => loadUpTo(remembered));
  return { revealThrough };
}
