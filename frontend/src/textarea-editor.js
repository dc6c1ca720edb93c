// The plain <textarea> editor: the page's editor when the CodeMirror bundle is missing
// or fails to start, with the same interface as editor.js and the same keys (Tab
// indents, Shift+Tab dedents, Escape then Tab leaves; Run and Submit are page-wide
// shortcuts, shortcuts.js).

const INDENT = "    ";

export function textareaEditor(textarea, { doc, onChange }) {
  let escaped = false;
  textarea.value = doc;

  // execCommand keeps the browser's undo stack (Ctrl+Z); setRangeText is the fallback.
  // execCommand edits whatever has focus, so only ever with the textarea focused.
  function replaceRange(start, end, text) {
    textarea.setSelectionRange(start, end);
    const focused = document.activeElement === textarea;
    if (!focused || !document.execCommand || !document.execCommand("insertText", false, text)) {
      textarea.setRangeText(text, start, end, "end");
      onChange(textarea.value);
    }
  }

  function indentLines(dedent) {
    const value = textarea.value;
    const { selectionStart: s, selectionEnd: e } = textarea;
    if (!dedent && value.slice(s, e).indexOf("\n") === -1) {
      replaceRange(s, e, INDENT);
      return;
    }
    const lineStart = value.lastIndexOf("\n", s - 1) + 1;
    const lines = value.slice(lineStart, e).split("\n");
    const changed = lines.map((line) => (dedent ? line.replace(/^ {1,4}|^\t/, "") : INDENT + line)).join("\n");
    replaceRange(lineStart, e, changed);
    textarea.setSelectionRange(lineStart, lineStart + changed.length);
  }

  textarea.addEventListener("input", () => onChange(textarea.value));
  textarea.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    if (event.key === "Escape") {
      escaped = true;
      return;
    }
    if (event.key === "Tab" && !escaped && !mod && !event.altKey) {
      event.preventDefault();
      indentLines(event.shiftKey);
    }
    escaped = false;
  });

  return {
    getValue: () => textarea.value,
    // One undoable replacement (Ctrl+Z brings the previous text back), or with
    // {resetHistory: true} a plain assignment, which starts the undo history afresh.
    setValue(text, options = {}) {
      if (options.resetHistory || textarea.value === text) {
        textarea.value = text;
      } else {
        textarea.focus({ preventScroll: true });
        replaceRange(0, textarea.value.length, text);
      }
      textarea.setSelectionRange(0, 0);
      textarea.scrollTop = 0;
    },
    focus: () => textarea.focus(),
    markLine(n) {
      const lines = textarea.value.split("\n");
      if (n == null || n < 1 || n > lines.length) return false;
      const start = lines.slice(0, n - 1).reduce((sum, line) => sum + line.length + 1, 0);
      // Select the line (visible once focused, e.g. by "Go to line N") without stealing
      // focus from whatever the learner is using.
      textarea.setSelectionRange(start, start + lines[n - 1].length);
      const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
      textarea.scrollTop = Math.max(0, (n - 1) * lineHeight - textarea.clientHeight / 2);
      return true;
    },
  };
}

// CodeMirror when its bundle loaded (window.DrillEditor), else the textarea.
export function mountEditor(frame, fallback, callbacks) {
  const bundle = window.DrillEditor;
  if (bundle && typeof bundle.create === "function") {
    try {
      const nonce = document.documentElement.dataset.cspNonce || undefined;
      const editor = bundle.create(frame, { ...callbacks, nonce });
      fallback.remove();
      frame.classList.add("has-codemirror");
      return editor;
    } catch (err) {
      console.error("Drill: the code editor failed to start; using a plain text area.", err);
      for (const child of Array.from(frame.children)) if (child !== fallback) child.remove();
    }
  }
  return textareaEditor(fallback, callbacks);
}
