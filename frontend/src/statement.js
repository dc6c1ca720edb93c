// The statement's track-only parts. The server renders every track's parts, each a
// `<div class="track-only" data-track="...">` opening with a label that names its track
// (for a reader without this script); the page shows the shared text and the chosen
// track's parts only, unlabelled. Only attributes change: the statement keeps its nodes,
// so what other code holds in it (the "Going further" section) stays valid.

export function showTrackStatement(statement, track) {
  if (!statement) return;
  for (const part of statement.querySelectorAll(".track-only[data-track]")) {
    part.hidden = part.dataset.track !== track;
  }
  for (const label of statement.querySelectorAll(".track-only-label")) label.hidden = true;
}
