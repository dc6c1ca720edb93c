// Drafts: saved in this browser at once (debounced), then on the server, and restored
// from whichever copy is newer when the page opens.

import { timeOf } from "./format.js";

export const SAVE_DELAY_MS = 500;

const isDraft = (draft) => Boolean(draft) && typeof draft.code === "string";

// The code a track opens with: the newer of this browser's draft and the server's, else
// the starter. `upload`: this browser holds the newest copy and the server should get it;
// `adopt`: the server's copy wins and this browser should keep it.
export function chooseInitialDraft(local, server, starter) {
  const localOk = isDraft(local);
  const serverOk = isDraft(server);
  if (localOk && (!serverOk || timeOf(local.updated_at) > timeOf(server.updated_at))) {
    return { code: local.code, source: "local", upload: !serverOk || server.code !== local.code };
  }
  if (serverOk) return { code: server.code, source: "server", adopt: true };
  return { code: starter, source: "starter" };
}

// Whether a draft fetched from the server should replace this browser's copy.
export function serverDraftIsNewer(local, server) {
  if (!isDraft(server)) return false;
  return !isDraft(local) || timeOf(local.updated_at) < timeOf(server.updated_at);
}

// The saver. Everything it touches comes in `deps`, so tests drive it with fakes:
//   store: {get, set}, key(track), putDraft(track, code, options) -> answer,
//   onStatus(text, warning), delay, setTimer/clearTimer, now() -> Date.
export function createDraftSaver(deps) {
  const {
    store,
    key,
    putDraft,
    onStatus = () => {},
    delay = SAVE_DELAY_MS,
    setTimer = (fn, ms) => setTimeout(fn, ms),
    clearTimer = (id) => clearTimeout(id),
    now = () => new Date(),
  } = deps;
  let timer = null;
  let pending = null; // {track, code} not yet written anywhere
  let chain = Promise.resolve(); // server writes, one after the other, in order

  async function upload(track, code) {
    onStatus("Saving…", false);
    const answer = await putDraft(track, code, {});
    if (answer.ok && answer.data) {
      // Adopt the server's timestamp so both copies compare equal on the next load
      // (unless the learner typed again meanwhile).
      const local = store.get(key(track));
      if (local && local.code === code && answer.data.updated_at) {
        store.set(key(track), { code, updated_at: answer.data.updated_at });
      }
      if (!pending) onStatus("Draft saved", false);
    } else if (answer.status === 413) {
      onStatus("Saved in this browser only: the code is over the server's size limit", true);
    } else {
      onStatus("Saved in this browser only: the server could not save the draft", true);
    }
  }

  const saver = {
    schedule(track, code) {
      pending = { track, code };
      if (timer != null) clearTimer(timer);
      timer = setTimer(() => saver.flush(), delay);
      onStatus("Unsaved changes…", false);
    },

    // Write the pending draft now; keepalive lets the PUT outlive a closing page.
    flush(options = {}) {
      if (timer != null) clearTimer(timer);
      timer = null;
      const job = pending;
      pending = null;
      if (!job) return;
      store.set(key(job.track), { code: job.code, updated_at: now().toISOString() });
      if (options.keepalive) {
        putDraft(job.track, job.code, { keepalive: true });
        return;
      }
      saver.enqueue(job.track, job.code);
    },

    // A server write after the ones already queued.
    enqueue(track, code) {
      chain = chain.then(() => upload(track, code));
      return chain;
    },

    get pending() {
      return pending;
    },

    // Resolves once every queued server write has answered.
    idle: () => chain,
  };
  return saver;
}
