// Keyboard shortcuts that work anywhere on the page, and the "?" overlay listing them.
//
//   Ctrl/⌘+Enter          Submit
//   Ctrl/⌘+Shift+Enter    Run
//   ?                     this list (not while typing in the editor or a text field)
//
// One listener on the window in the capture phase sees the keys before the editor does,
// so the editor's own Ctrl+Enter (insert a blank line) never runs as well.

const TEXT_INPUTS = new Set(["text", "search", "url", "tel", "email", "password", "number", ""]);

// Whether the key press is typing: in a text field, a text area, the code editor or any
// contenteditable. "?" must type a question mark there.
export function isTyping(target) {
  if (!target || typeof target !== "object") return false;
  if (target.isContentEditable) return true;
  const tag = String(target.tagName || "").toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return TEXT_INPUTS.has(String(target.type || "").toLowerCase());
  return typeof target.closest === "function" && Boolean(target.closest(".cm-editor"));
}

// "submit", "run", "help" or null for a keydown event.
export function shortcutFor(event) {
  if (!event || event.isComposing || event.repeat) return null;
  const mod = event.ctrlKey || event.metaKey;
  if (event.key === "Enter" && mod && !event.altKey) return event.shiftKey ? "run" : "submit";
  if (event.key === "?" && !mod && !event.altKey && !isTyping(event.target)) return "help";
  return null;
}

// Listen on `target` (the window). `handlers`: {run, submit, help}; `enabled()` can turn
// them all off (a modal dialog is open). Returns a function that removes the listener.
export function installShortcuts(target, handlers, enabled = () => true) {
  const listener = (event) => {
    const action = shortcutFor(event);
    if (!action || !handlers[action] || !enabled(action)) return;
    event.preventDefault();
    event.stopPropagation();
    handlers[action](event);
  };
  target.addEventListener("keydown", listener, true);
  return () => target.removeEventListener("keydown", listener, true);
}

// The overlay: a modal <dialog> (Esc closes it natively); focus goes back where it was.
export function shortcutsDialog(dialog) {
  let returnTo = null;
  dialog.addEventListener("close", () => {
    const target = returnTo;
    returnTo = null;
    if (target && target.isConnected && typeof target.focus === "function") target.focus();
  });
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  for (const button of dialog.querySelectorAll("[data-close]")) {
    button.addEventListener("click", () => dialog.close());
  }
  return {
    get open() {
      return dialog.open;
    },
    show() {
      if (dialog.open) return;
      returnTo = document.activeElement;
      dialog.showModal();
    },
    close: () => dialog.close(),
  };
}
