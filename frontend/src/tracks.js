// The track switch (NumPy / PyTorch): the pressed button, the statement's parts for the
// track and its solved status. Switching saves the draft of the track left, remembers
// the one chosen, and brings its code, results and history.

import { showTrackStatement } from "./statement.js";
import { keys, store } from "./storage.js";

// The other parts of the page, as page.js sets them up: solved (solved.js), trackCode
// (track-code.js), reset (starter-reset.js), results (results-panel.js), history
// (history-panel.js). Returns {showTrack(track), switchTrack(track)}.
export function setUpTracks({ slug, data, state, ui, solved, trackCode, reset, results, history }) {
  function showTrack(track) {
    for (const button of ui.trackButtons) {
      button.setAttribute("aria-pressed", String(button.dataset.track === track));
    }
    showTrackStatement(ui.statement, track); // the shared text and this track's parts
    solved.show(track);
  }

  function switchTrack(track) {
    if (track === state.track || !data.tracks[track]) return;
    trackCode.saver.flush();
    state.track = track;
    store.set(keys.track(slug), track);
    showTrack(track);
    trackCode.setCode(trackCode.codeFor(track), { resetHistory: true });
    trackCode.announceSource(track);
    reset.clearUndo();
    ui.notice.replaceChildren();
    results.renderResults();
    history.showHistory(track);
    if (!state.history[track]) history.loadHistory(track);
    history.loadLatest(track);
  }

  for (const button of ui.trackButtons) {
    button.addEventListener("click", () => switchTrack(button.dataset.track));
  }

  return { showTrack, switchTrack };
}
