// The narrow layout (below 700 px): the page's panes become tabs (tabs.js) and the hints
// move into a drawer beside the editor, opened by the hints toggle, closed by its close
// button or Escape. Wider, both are plain again.

import { NARROW_QUERY, setUpTabs } from "./tabs.js";

// initial: the tab a narrow screen starts on ("statement" or "code").
// Returns {isNarrow(), selectTab(name), showHints()}.
export function setUpLayout({ ui, initial }) {
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

  const tabs = ui.tablist
    ? setUpTabs({
        tablist: ui.tablist,
        layout: ui.layout,
        initial,
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

  return {
    isNarrow,
    // The tab named `name` ("statement", "code", "results"); nothing on a page without tabs.
    selectTab(name) {
      if (tabs) tabs.select(name);
    },
    // A hint was revealed: on a narrow screen it shows in the drawer, over the code.
    showHints() {
      if (isNarrow()) {
        tabs.select("code");
        showDrawer(true);
      }
    },
  };
}
