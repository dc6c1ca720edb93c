// The draft saver (frontend/src/drafts.js), driven with a fake clock, store and server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { chooseInitialDraft, createDraftSaver, serverDraftIsNewer } from "../../frontend/src/drafts.js";

function memoryStore() {
  const data = new Map();
  return {
    data,
    get: (key) => (data.has(key) ? structuredClone(data.get(key)) : null),
    set: (key, value) => (data.set(key, structuredClone(value)), true),
  };
}

// Timers that run only when the test says so.
function fakeTimers() {
  let next = 1;
  const pending = new Map();
  return {
    setTimer: (fn, ms) => (pending.set(next, { fn, ms }), next++),
    clearTimer: (id) => pending.delete(id),
    runAll() {
      const jobs = [...pending.values()];
      pending.clear();
      jobs.forEach((job) => job.fn());
    },
    get count() {
      return pending.size;
    },
  };
}

function setUp(answer = (track, code) => ({ ok: true, status: 200, data: { code, updated_at: "2026-12-03T10:00:05+00:00" } })) {
  const store = memoryStore();
  const timers = fakeTimers();
  const puts = [];
  const statuses = [];
  const saver = createDraftSaver({
    store,
    key: (track) => `draft:${track}`,
    putDraft: async (track, code, options) => {
      puts.push({ track, code, options });
      return answer(track, code);
    },
    onStatus: (text, warning) => statuses.push([text, warning]),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
    now: () => new Date("2026-12-03T10:00:00Z"),
  });
  return { store, timers, puts, statuses, saver };
}

describe("createDraftSaver", () => {
  test("typing bursts become one save, in this browser then on the server", async () => {
    const { store, timers, puts, statuses, saver } = setUp();
    saver.schedule("numpy", "a");
    saver.schedule("numpy", "ab");
    saver.schedule("numpy", "abc");
    assert.equal(timers.count, 1, "one pending timer, restarted by each change");
    assert.equal(store.get("draft:numpy"), null, "nothing written before the delay");
    assert.deepEqual(statuses.at(-1), ["Unsaved changes…", false]);
    timers.runAll();
    assert.equal(store.get("draft:numpy").code, "abc");
    await saver.idle();
    assert.deepEqual(puts.map((p) => p.code), ["abc"]);
    // The server's timestamp is adopted, so both copies compare equal on the next load.
    assert.equal(store.get("draft:numpy").updated_at, "2026-12-03T10:00:05+00:00");
    assert.deepEqual(statuses.at(-1), ["Draft saved", false]);
  });

  test("flush writes at once; keepalive for a closing page", async () => {
    const { store, puts, saver } = setUp();
    saver.schedule("torch", "x = 1");
    saver.flush({ keepalive: true });
    assert.equal(store.get("draft:torch").code, "x = 1");
    assert.deepEqual(puts, [{ track: "torch", code: "x = 1", options: { keepalive: true } }]);
    saver.flush(); // nothing pending: no second write
    await saver.idle();
    assert.equal(puts.length, 1);
  });

  test("server writes stay in order", async () => {
    const order = [];
    const { saver } = setUp((track, code) => {
      order.push(code);
      return { ok: true, status: 200, data: { code, updated_at: "t" } };
    });
    saver.schedule("numpy", "one");
    saver.flush();
    saver.schedule("numpy", "two");
    saver.flush();
    await saver.idle();
    assert.deepEqual(order, ["one", "two"]);
  });

  test("a refused draft stays in this browser and says why", async () => {
    const { store, statuses, saver } = setUp(() => ({ ok: false, status: 413, data: null }));
    saver.schedule("numpy", "big");
    saver.flush();
    await saver.idle();
    assert.equal(store.get("draft:numpy").code, "big");
    assert.deepEqual(statuses.at(-1), ["Saved in this browser only: the code is over the server's size limit", true]);
  });

  test("a newer local edit keeps its own timestamp when an older upload answers", async () => {
    const { store, saver } = setUp();
    saver.schedule("numpy", "old");
    saver.flush();
    store.set("draft:numpy", { code: "newer", updated_at: "2026-12-03T10:00:09Z" });
    await saver.idle();
    assert.deepEqual(store.get("draft:numpy"), { code: "newer", updated_at: "2026-12-03T10:00:09Z" });
  });
});

describe("chooseInitialDraft", () => {
  const local = { code: "local", updated_at: "2026-12-03T10:00:02Z" };
  const server = { code: "server", updated_at: "2026-12-03T10:00:01Z" };

  test("the newer copy wins", () => {
    assert.deepEqual(chooseInitialDraft(local, server, "starter"), { code: "local", source: "local", upload: true });
    const newerServer = { ...server, updated_at: "2026-12-03T10:00:03Z" };
    assert.deepEqual(chooseInitialDraft(local, newerServer, "starter"), { code: "server", source: "server", adopt: true });
  });

  test("the same code in both needs no upload", () => {
    assert.equal(chooseInitialDraft(local, { ...server, code: "local" }, "s").upload, false);
  });

  test("the starter when there is no draft; broken drafts are ignored", () => {
    assert.deepEqual(chooseInitialDraft(null, null, "starter"), { code: "starter", source: "starter" });
    assert.deepEqual(chooseInitialDraft({ code: 3 }, { updated_at: "x" }, "starter"), { code: "starter", source: "starter" });
  });

  test("serverDraftIsNewer", () => {
    assert.equal(serverDraftIsNewer(local, server), false);
    assert.equal(serverDraftIsNewer(server, local), true);
    assert.equal(serverDraftIsNewer(null, server), true);
    assert.equal(serverDraftIsNewer(local, null), false);
  });
});
