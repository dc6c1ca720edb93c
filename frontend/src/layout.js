// The page's layout: below 700 px its panes become tabs (tabs.js); at every width the
// hints sit beside the editor, behind the Hints button of the bar above it. Wide, they
// open as a panel below Run and Submit (the editor stays where it is, and the learner's
// choice is remembered); narrow, as a drawer over the code. The Close button and Escape
// close them.

import { NARROW_QUERY, setUpTabs } from "./tabs.js";

// initial: the tab a narrow screen starts on ("statement" or "code"). hintsOpen: whether
// the hints panel starts open on a wide screen (narrow, the drawer always starts closed);
// onHintsOpen(open): the learner opened or closed it there.
// Returns {isNarrow(), selectTab(name), showHints(), showHint(item)}.
export function setUpLayout({ ui, initial, hintsOpen = false, onHintsOpen = () => {} }) {
  const narrowQuery = window.matchMedia(NARROW_QUERY);
  const isNarrow = () => Boolean(ui.tablist) && narrowQuery.matches;
  let wideOpen = Boolean(hintsOpen); // the learner's choice on a wide screen
  let open = wideOpen && !isNarrow();
  let wasNarrow = isNarrow();

  function render() {
    if (!ui.hints) return;
    const narrow = isNarrow();
    ui.hints.classList.toggle("is-drawer", narrow);
    ui.hints.hidden = !open;
    if (ui.hintsToggle) ui.hintsToggle.setAttribute("aria-expanded", String(open));
  }

  function setOpen(value) {
    open = value;
    render();
    if (isNarrow()) return;
    wideOpen = open;
    onHintsOpen(open);
  }

  // Bring `target` (the panel, or a hint in it) into view. Beside the statement the
  // workspace scrolls on its own: scroll it alone, so that the statement stays where the
  // learner is reading; elsewhere (one column, or the drawer) the nearest scroll will do.
  function bringIntoView(target = ui.hints) {
    if (!target || target.hidden) return;
    const box = target.closest(".workspace");
    const scrolls = box && !isNarrow() && /(auto|scroll)/.test(getComputedStyle(box).overflowY);
    if (!scrolls) {
      target.scrollIntoView({ block: "nearest" });
      return;
    }
    const rect = target.getBoundingClientRect();
    const view = box.getBoundingClientRect();
    const top = Math.max(view.top, 0);
    const bottom = Math.min(view.bottom, window.innerHeight);
    const wanted = Math.min(rect.height, bottom - top - 16); // all of it, or its start
    if (rect.top >= top && rect.top + wanted <= bottom) return;
    box.scrollTop += rect.top < top ? rect.top - top - 8 : rect.top + wanted - bottom + 8;
  }

  // Narrowing closes the hints (a drawer would cover the code); widening shows them as
  // the learner last left them on a wide screen.
  function onLayoutChange(narrow) {
    if (narrow !== wasNarrow) {
      wasNarrow = narrow;
      open = narrow ? false : wideOpen;
    }
    render();
  }

  const tabs = ui.tablist
    ? setUpTabs({
        tablist: ui.tablist,
        layout: ui.layout,
        initial,
        media: narrowQuery,
        onSelect: (_name, narrow) => onLayoutChange(narrow),
      })
    : null;
  if (!tabs) render();

  if (ui.hintsToggle) {
    ui.hintsToggle.addEventListener("click", () => {
      setOpen(!open);
      if (!open) return;
      bringIntoView();
      if (ui.hintButton && !ui.hintButton.disabled) ui.hintButton.focus({ preventScroll: true });
      else ui.hints.focus({ preventScroll: true });
    });
  }
  function close() {
    setOpen(false);
    if (ui.hintsToggle) ui.hintsToggle.focus();
  }
  if (ui.hintsClose) ui.hintsClose.addEventListener("click", close);
  if (ui.hints) {
    ui.hints.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && open) {
        event.preventDefault();
        close();
      }
    });
  }

  return {
    isNarrow,
    // The tab named `name` ("statement", "code", "results"); nothing on a page without tabs.
    selectTab(name) {
      if (tabs) tabs.select(name);
    },
    // A hint is being revealed: open the hints beside the editor (narrow, on the Code tab).
    showHints() {
      if (isNarrow()) tabs.select("code");
      if (!open) setOpen(true);
      bringIntoView();
    },
    // Scroll a revealed hint into view: in the list (which scrolls on its own once it
    // fills the panel), then the panel the way bringIntoView does.
    showHint(item) {
      const list = item.parentElement;
      if (list && list.scrollHeight > list.clientHeight) {
        const top = item.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top + Math.min(item.offsetHeight, list.clientHeight) > list.scrollTop + list.clientHeight) {
          list.scrollTop = top;
        }
      }
      bringIntoView(isNarrow() ? item : ui.hints);
    },
  };
}
