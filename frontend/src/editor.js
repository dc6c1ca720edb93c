// The Drill code editor: CodeMirror 6 behind a small, stable interface.
//
// Bundled by esbuild on its own into static/build/editor.js and exposed as
// window.DrillEditor: the page's modules (static/build/app.js) never import CodeMirror,
// so the page works, with a plain <textarea> behind the same interface
// (textarea-editor.js), when this bundle is missing or fails.
//
//   const editor = DrillEditor.create(parent, {doc, onChange, onRun, onSubmit, nonce});
//   editor.getValue(); editor.setValue(text, {resetHistory}); editor.focus();
//   editor.markLine(n | null);
//   DrillEditor.create(parent, {doc, readOnly: true, label: "Reference solution"})

import { basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState, Prec, RangeSet, RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, GutterMarker, ViewPlugin, gutterLineClass, keymap } from "@codemirror/view";
import { indentWithTab, isolateHistory } from "@codemirror/commands";
import { oneDarkTheme } from "@codemirror/theme-one-dark";
import { tags as t } from "@lezer/highlight";

// Colours come from app.css custom properties, so the light editor matches the page.
const lightTheme = EditorView.theme(
  {
    "&": { backgroundColor: "var(--surface)", color: "var(--text)" },
    ".cm-gutters": {
      backgroundColor: "var(--surface-2)",
      color: "var(--text-muted)",
      borderRight: "1px solid var(--border)",
    },
    ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
    ".cm-activeLine": { backgroundColor: "var(--active-line)" },
    "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  },
  { dark: false },
);

// Layout shared by both themes; the editor's height is set in app.css.
const baseLayout = EditorView.theme({
  "&": { fontSize: "0.9375rem", height: "100%" },
  ".cm-scroller": {
    fontFamily: "var(--font-mono)",
    lineHeight: "1.55",
    overflow: "auto",
  },
  ".cm-content": { padding: "0.5rem 0" },
  "&.cm-focused": { outline: "none" },
});

// Long lines wrap (nothing scrolls sideways, on a phone least of all), and the rest of a
// wrapped line starts under its code, not at the margin: each indented line is marked
// with its indentation, and the theme below pads the whole line by it but pulls its first
// row back (a negative text-indent). Classes, not style attributes: the page's
// Content-Security-Policy refuses those.
const MAX_HANG = 40; // columns; deeper lines hang by this much
const hangMarks = Array.from({ length: MAX_HANG + 1 }, (_, n) => Decoration.line({ class: `cm-hang-${n}` }));

// The columns of a line's leading spaces and tabs.
function indentColumns(text, tabSize = 4) {
  let column = 0;
  for (const ch of text) {
    if (ch === " ") column += 1;
    else if (ch === "\t") column += tabSize - (column % tabSize);
    else break;
  }
  return column;
}

function hangDecorations(view) {
  const builder = new RangeSetBuilder();
  let last = -1;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      const n = Math.min(indentColumns(line.text, view.state.tabSize), MAX_HANG);
      if (n > 0 && line.from > last) builder.add(line.from, line.from, hangMarks[n]);
      last = line.from;
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

const hangingIndent = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = hangDecorations(view);
    }
    update(update) {
      if (update.docChanged || update.viewportChanged) this.decorations = hangDecorations(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

const hangTheme = EditorView.baseTheme(
  Object.fromEntries(
    Array.from({ length: MAX_HANG }, (_, i) => i + 1).map((n) => [
      `.cm-line.cm-hang-${n}`,
      { paddingLeft: `calc(${n}ch + 6px)`, textIndent: `-${n}ch` },
    ]),
  ),
);
const wrapping = [EditorView.lineWrapping, hangingIndent, hangTheme];

// .cm-line.x outranks the themes' .cm-activeLine, so the mark shows under the cursor too.
const errorLineTheme = EditorView.baseTheme({
  "&light .cm-line.cm-drill-error-line": {
    backgroundColor: "#fde2e1",
    boxShadow: "inset 3px 0 0 #c62828",
  },
  "&dark .cm-line.cm-drill-error-line": {
    backgroundColor: "#5a1d1d",
    boxShadow: "inset 3px 0 0 #ff6b6b",
  },
  "&light .cm-gutterElement.cm-drill-error-gutter": { color: "#c62828", fontWeight: "700" },
  "&dark .cm-gutterElement.cm-drill-error-gutter": { color: "#ff6b6b", fontWeight: "700" },
});

// The line a compile error points at. Mapped through edits so it stays on the same code
// until the next result replaces (or clears) it.
const setErrorLine = StateEffect.define();
const errorLineMark = Decoration.line({ class: "cm-drill-error-line" });
const errorGutterMarker = new (class extends GutterMarker {
  elementClass = "cm-drill-error-gutter";
})();

const errorLineField = StateField.define({
  create: () => Decoration.none,
  update(decorations, tr) {
    decorations = decorations.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setErrorLine)) {
        decorations =
          effect.value == null
            ? Decoration.none
            : Decoration.set([errorLineMark.range(effect.value)]);
      }
    }
    return decorations;
  },
  provide: (field) => [
    EditorView.decorations.from(field),
    // The same line's number in the gutter.
    gutterLineClass.compute([field], (state) => {
      const marks = [];
      state.field(field).between(0, state.doc.length, (from) => {
        marks.push(errorGutterMarker.range(from));
      });
      return RangeSet.of(marks);
    }),
  ],
});

const darkQuery =
  typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
// Syntax colours from app.css (--syn-*, light and dark), each at least 4.5:1 on the
// editor, its active line and the error line; One Dark's own are not (names 4.4:1,
// comments and line numbers 3.9:1). The rules follow One Dark's highlight style.
const syntaxColours = HighlightStyle.define([
  { tag: t.keyword, color: "var(--syn-keyword)" },
  { tag: [t.name, t.deleted, t.character, t.propertyName, t.macroName], color: "var(--syn-name)" },
  { tag: [t.function(t.variableName), t.labelName], color: "var(--syn-function)" },
  { tag: [t.color, t.constant(t.name), t.standard(t.name)], color: "var(--syn-constant)" },
  { tag: [t.definition(t.name), t.separator], color: "var(--syn-definition)" },
  {
    tag: [t.typeName, t.className, t.number, t.changed, t.annotation, t.modifier, t.self, t.namespace],
    color: "var(--syn-type)",
  },
  {
    tag: [t.operator, t.operatorKeyword, t.url, t.escape, t.regexp, t.link, t.special(t.string)],
    color: "var(--syn-operator)",
  },
  { tag: [t.meta, t.comment], color: "var(--syn-comment)" },
  { tag: t.strong, fontWeight: "bold" },
  { tag: t.emphasis, fontStyle: "italic" },
  { tag: t.strikethrough, textDecoration: "line-through" },
  { tag: t.link, color: "var(--syn-comment)", textDecoration: "underline" },
  { tag: t.heading, fontWeight: "bold", color: "var(--syn-name)" },
  { tag: [t.atom, t.bool, t.special(t.variableName)], color: "var(--syn-constant)" },
  { tag: [t.processingInstruction, t.string, t.inserted], color: "var(--syn-string)" },
  { tag: t.invalid, color: "var(--syn-invalid)" },
]);
// One Dark's frame, with line numbers in the page's muted text (5.9:1, not 3.9:1). First
// in the list: the earlier of two themes wins.
const darkTheme = [
  EditorView.theme({ ".cm-gutters": { color: "var(--text-muted)" } }, { dark: true }),
  oneDarkTheme,
];
const themeFor = (dark) => [dark ? darkTheme : lightTheme, syntaxHighlighting(syntaxColours)];

function create(parent, options = {}) {
  const { doc = "", onChange, onRun, onSubmit, nonce, readOnly = false, label = "Code editor" } = options;
  const theme = new Compartment();

  // Highest precedence: basicSetup's default keymap binds Mod-Enter to insertBlankLine.
  // (On the exercise page these keys never get here: shortcuts.js takes them page-wide.)
  const shortcuts = Prec.highest(
    keymap.of([
      { key: "Mod-Shift-Enter", preventDefault: true, run: () => (onRun && onRun(), true) },
      { key: "Mod-Enter", preventDefault: true, run: () => (onSubmit && onSubmit(), true) },
    ]),
  );

  // Read-only: the reference solution, highlighted like the learner's code.
  const readOnlyExtensions = () => [
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
    python(),
    EditorState.tabSize.of(4),
    theme.of(themeFor(darkQuery ? darkQuery.matches : false)),
    baseLayout,
    wrapping,
    EditorView.contentAttributes.of({ "aria-label": label, "aria-readonly": "true", tabindex: "0" }),
  ];

  const editableExtensions = () => [
    basicSetup,
    python(),
    indentUnit.of("    "),
    EditorState.tabSize.of(4),
    // Tab indents; Escape then Tab moves focus out of the editor (CodeMirror's documented
    // escape hatch for indentWithTab), and Ctrl-M / Shift-Alt-M toggles tab focus mode.
    keymap.of([indentWithTab]),
    shortcuts,
    theme.of(themeFor(darkQuery ? darkQuery.matches : false)),
    baseLayout,
    wrapping,
    errorLineTheme,
    errorLineField,
    EditorView.contentAttributes.of({
      "aria-label": label,
      "aria-describedby": "editor-help",
      autocapitalize: "off",
      autocorrect: "off",
      spellcheck: "false",
      // Focusable already (contenteditable); said outright so that checkers such as axe-core
      // see that the scrolling box around it can be reached by keyboard.
      tabindex: "0",
    }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged && onChange) onChange(update.state.doc.toString());
    }),
  ];
  const extensions = readOnly ? readOnlyExtensions : editableExtensions;
  const newState = (text) =>
    EditorState.create({
      doc: text,
      extensions: nonce ? [...extensions(), EditorView.cspNonce.of(nonce)] : extensions(),
    });

  const view = new EditorView({ state: newState(doc), parent });

  if (darkQuery) {
    const follow = (event) => view.dispatch({ effects: theme.reconfigure(themeFor(event.matches)) });
    if (darkQuery.addEventListener) darkQuery.addEventListener("change", follow);
    else darkQuery.addListener(follow);
  }

  return {
    view,
    getValue: () => view.state.doc.toString(),
    // Replaces the whole document as one undoable change of its own (Ctrl/Cmd+Z brings
    // back exactly what was there, even right after typing), or, with
    // {resetHistory: true}, starts afresh (switching tracks must not undo across them).
    setValue(text, options = {}) {
      if (options.resetHistory) {
        view.setState(newState(text));
        return;
      }
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        effects: setErrorLine.of(null),
        selection: { anchor: 0 },
        scrollIntoView: true,
        annotations: isolateHistory.of("full"),
      });
    },
    destroy: () => view.destroy(),
    focus: () => view.focus(),
    // Highlight line n (1-based) and scroll it into view; null or an out-of-range n clears.
    markLine(n) {
      const lines = view.state.doc.lines;
      if (n == null || !Number.isInteger(n) || n < 1 || n > lines) {
        view.dispatch({ effects: setErrorLine.of(null) });
        return false;
      }
      const line = view.state.doc.line(n);
      view.dispatch({
        effects: [setErrorLine.of(line.from), EditorView.scrollIntoView(line.from, { y: "center" })],
        selection: { anchor: line.from },
      });
      return true;
    },
  };
}

window.DrillEditor = { create };
