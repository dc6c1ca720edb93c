// "Reset to starter": the track's starter code replaces the learner's, as one undoable
// step, with its own "Undo" button until the next change.

// state.undo holds {track, code} before the last reset. editor, setCode, saver: from
// track-code.js. Returns {clearUndo()}: forget the undo (the code changed since).
export function setUpStarterReset({ data, state, ui, editor, setCode, saver }) {
  function clearUndo() {
    state.undo = null;
    ui.undoReset.hidden = true;
    ui.actionStatus.textContent = "";
  }

  ui.reset.addEventListener("click", () => {
    const starter = data.tracks[state.track].starter_code;
    const before = editor.getValue();
    if (before === starter) {
      ui.actionStatus.textContent = "Your code is already the starter code.";
      ui.undoReset.hidden = true;
      return;
    }
    setCode(starter);
    state.touched = true;
    saver.schedule(state.track, starter);
    state.undo = { track: state.track, code: before };
    ui.actionStatus.textContent = "Code reset to the starter.";
    ui.undoReset.hidden = false;
  });

  ui.undoReset.addEventListener("click", () => {
    const undo = state.undo;
    if (!undo || undo.track !== state.track) return clearUndo();
    setCode(undo.code);
    saver.schedule(state.track, undo.code);
    clearUndo();
    ui.actionStatus.textContent = "Reset undone.";
    editor.focus();
  });

  return { clearUndo };
}
