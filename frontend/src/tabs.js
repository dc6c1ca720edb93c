// Narrow screens (below 700 px): the page becomes three tabs, Statement / Code / Results,
// with the WAI-ARIA tabs pattern (arrow keys, Home/End, one tab stop), and the hints
// move into a drawer beside the editor. Wider, the tabs are hidden and the panes are
// plain regions again.

export const NARROW_QUERY = "(max-width: 699.98px)";

// The tab that arrow keys, Home and End lead to from `index` of `count`, or null.
export function nextTabIndex(key, index, count) {
  if (key === "ArrowRight") return (index + 1) % count;
  if (key === "ArrowLeft") return (index - 1 + count) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}

// tablist: the [role=tablist] element; its tabs' aria-controls name the panels.
// Returns {select(name, {focus}), isNarrow(), onChange}.
export function setUpTabs({ tablist, layout, initial = "code", onSelect = () => {}, media }) {
  const tabs = Array.from(tablist.querySelectorAll("[role=tab]"));
  const panels = tabs.map((tab) => document.getElementById(tab.getAttribute("aria-controls")));
  const names = tabs.map((tab) => tab.dataset.tab);
  const query = media || window.matchMedia(NARROW_QUERY);
  let current = names.includes(initial) ? initial : names[0];

  function apply() {
    const narrow = query.matches;
    tablist.hidden = !narrow;
    layout.classList.toggle("is-tabbed", narrow);
    tabs.forEach((tab, i) => {
      const selected = names[i] === current;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
      const panel = panels[i];
      if (!panel) return;
      if (narrow) {
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", tab.id);
        panel.hidden = !selected;
      } else {
        panel.removeAttribute("role");
        panel.removeAttribute("aria-labelledby");
        panel.hidden = false;
      }
    });
    onSelect(current, narrow);
  }

  function select(name, options = {}) {
    if (!names.includes(name)) return;
    current = name;
    apply();
    if (options.focus) tabs[names.indexOf(name)].focus();
  }

  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(names[i]));
    tab.addEventListener("keydown", (event) => {
      const next = nextTabIndex(event.key, i, tabs.length);
      if (next == null) return;
      event.preventDefault();
      select(names[next], { focus: true });
    });
  });
  if (query.addEventListener) query.addEventListener("change", apply);
  else if (query.addListener) query.addListener(apply);
  apply();

  return {
    select,
    get current() {
      return current;
    },
    isNarrow: () => query.matches,
  };
}
