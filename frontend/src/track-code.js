// The code each track holds, and the editor that shows it. A track opens with the newer
// of this browser's draft and the server's (else its starter code); what the learner
// types is saved (drafts.js); when the page came without the server's draft, a newer one
// fetched afterwards replaces untouched code. The save status beside the editor says so.

import { api } from "./api.js";
import { chooseInitialDraft, createDraftSaver, serverDraftIsNewer } from "./drafts.js";
import { keys, store } from "./storage.js";
import { mountEditor } from "./textarea-editor.js";

// state: the page's shared state (page.js); this module keeps state.code, state.sources,
// state.applying and state.touched. Callbacks:
//   onRun(), onSubmit()   the editor's own Run and Submit keys
//   onCodeChanged()       the editor's text changed, typed or set by the page
//   onTyped()             the learner changed it (called after onCodeChanged)
// Returns {editor, saver, codeFor, setCode, announceSource, fetchServerDraft}.
export function setUpTrackCode({ slug, data, state, ui, onRun, onSubmit, onCodeChanged, onTyped }) {
  // -- Drafts ------------------------------------------------------------------------

  function setSaveStatus(text, warning = false) {
    ui.saveStatus.textContent = text;
    ui.saveStatus.classList.toggle("is-warning", warning);
  }

  const saver = createDraftSaver({
    store,
    key: (track) => keys.draft(slug, track),
    putDraft: (track, code, options) => api.putDraft(slug, track, code, options),
    onStatus: setSaveStatus,
  });

  function codeFor(track) {
    if (!(track in state.code)) {
      const info = data.tracks[track];
      const local = store.get(keys.draft(slug, track));
      const chosen = chooseInitialDraft(local, info.draft || null, info.starter_code);
      if (chosen.upload) saver.enqueue(track, chosen.code);
      if (chosen.adopt) store.set(keys.draft(slug, track), info.draft);
      state.code[track] = chosen.code;
      state.sources[track] = chosen.source;
    }
    return state.code[track];
  }

  // When the page came without the server's draft (the key is absent, not null), ask.
  async function fetchServerDraft(track) {
    const answer = await api.getDraft(slug, track);
    if (!answer.ok || !serverDraftIsNewer(store.get(keys.draft(slug, track)), answer.data)) return;
    store.set(keys.draft(slug, track), answer.data);
    if (state.track === track && !state.touched && editor.getValue() !== answer.data.code) {
      setCode(answer.data.code, { resetHistory: true });
      setSaveStatus("Restored your saved draft");
    } else if (state.track !== track) {
      delete state.code[track];
    }
  }

  function setCode(text, options) {
    state.applying = true;
    try {
      editor.setValue(text, options);
    } finally {
      state.applying = false;
    }
    state.code[state.track] = text;
    onCodeChanged();
  }

  function onChange(code) {
    if (state.applying) return;
    state.touched = true;
    state.code[state.track] = code;
    saver.schedule(state.track, code);
    onCodeChanged();
    onTyped();
  }

  // -- Editor ------------------------------------------------------------------------

  const editor = mountEditor(ui.editorFrame, ui.fallback, {
    doc: codeFor(state.track),
    onChange,
    onRun,
    onSubmit,
  });
  announceSource(state.track);

  function announceSource(track) {
    const source = state.sources[track];
    setSaveStatus(source === "local" || source === "server" ? "Restored your saved draft" : "");
  }

  return { editor, saver, codeFor, setCode, announceSource, fetchServerDraft };
}
