// Drill: the exercise page (editor, drafts, tracks, grading, results, hints).
//
// Plain JavaScript, no build step. The page works with the CodeMirror bundle
// (static/build/editor.js, window.DrillEditor) or, when that is missing, with the
// server-rendered <textarea>; both sit behind the same small editor interface.
//
// Safety: learner output, messages and tracebacks only ever reach the DOM through
// textContent / createTextNode. The only innerHTML is the server's rendered Markdown
// (statement and hints), which is trusted.
//
// Sections: storage · HTTP · editors · page state · drafts · tracks · grading ·
// results · hints · start-up.
(function () {
  "use strict";

  const TRACK_LABELS = { numpy: "NumPy", torch: "PyTorch" };
  const SAVE_DELAY_MS = 500;
  const IS_MAC = /Mac|iPhone|iPad|iPod/.test(
    (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "",
  );

  // ---- Storage: localStorage that never throws (private mode, quota, disabled) ------

  const store = {
    get(key) {
      try {
        const raw = window.localStorage.getItem(key);
        return raw == null ? null : JSON.parse(raw);
      } catch (_err) {
        return null;
      }
    },
    set(key, value) {
      try {
        window.localStorage.setItem(key, JSON.stringify(value));
        return true;
      } catch (_err) {
        return false;
      }
    },
  };

  const keys = {
    draft: (slug, track) => `drill:v1:draft:${slug}:${track}`,
    track: (slug) => `drill:v1:track:${slug}`,
    hints: (slug) => `drill:v1:hints:${slug}`,
  };

  // ---- HTTP -----------------------------------------------------------------------------

  // Retry-After is either delta-seconds or an HTTP date.
  function parseRetryAfter(value) {
    if (!value) return null;
    const seconds = Number(value);
    if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
    const when = Date.parse(value);
    return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
  }

  // A human message from an error body: ours ({error, message}) or FastAPI's ({detail}).
  function errorMessage(body, status) {
    if (body && typeof body.message === "string" && body.message) return body.message;
    if (body && typeof body.detail === "string") return body.detail;
    if (body && Array.isArray(body.detail) && body.detail.length) {
      return body.detail.map((d) => (d && d.msg) || String(d)).join("; ");
    }
    return `The server answered ${status}.`;
  }

  // Resolves to {ok, status, data, message, retryAfter}; never rejects. status 0 means the
  // request did not reach the server.
  async function request(method, url, body, options = {}) {
    const init = {
      method,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      keepalive: Boolean(options.keepalive),
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (_err) {
      return { ok: false, status: 0, data: null, message: "Could not reach the server.", retryAfter: null };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (_err) {
      data = null;
    }
    return {
      ok: response.ok,
      status: response.status,
      data,
      message: response.ok ? "" : errorMessage(data, response.status),
      retryAfter: parseRetryAfter(response.headers.get("Retry-After")),
    };
  }

  const api = {
    submit: (slug, track, code, mode) =>
      request("POST", `/api/exercises/${encodeURIComponent(slug)}/submissions`, { track, code, mode }),
    hint: (slug, n) => request("GET", `/api/exercises/${encodeURIComponent(slug)}/hints/${n}`),
    getDraft: (slug, track) =>
      request("GET", `/api/drafts/${encodeURIComponent(slug)}/${encodeURIComponent(track)}`),
    putDraft: (slug, track, code, options) =>
      request("PUT", `/api/drafts/${encodeURIComponent(slug)}/${encodeURIComponent(track)}`, { code }, options),
  };

  // ---- DOM helpers ----------------------------------------------------------------------

  // el("p", {className: "x"}, "text", childNode): text children become text nodes.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [name, value] of Object.entries(props)) {
        if (value == null || value === false) continue;
        if (name === "className") node.className = value;
        else if (name === "dataset") Object.assign(node.dataset, value);
        else if (name in node && typeof value !== "string") node[name] = value;
        else node.setAttribute(name, value === true ? "" : value);
      }
    }
    for (const child of children) {
      if (child == null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function formatDuration(ms) {
    if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
    if (ms < 1) return `${ms.toFixed(1)} ms`;
    if (ms < 1000) return `${Math.round(ms)} ms`;
    return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  }

  function timeOf(iso) {
    const t = iso ? Date.parse(iso) : NaN;
    return Number.isNaN(t) ? -Infinity : t;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  // ---- Editors: CodeMirror when bundled, else the textarea ------------------------------

  // The textarea keeps the same keyboard contract as CodeMirror: Tab indents, Shift+Tab
  // dedents, Escape then Tab leaves, Ctrl/Cmd+Enter submits, Ctrl/Cmd+Shift+Enter runs.
  function textareaEditor(textarea, { doc, onChange, onRun, onSubmit }) {
    const INDENT = "    ";
    let escaped = false;
    textarea.value = doc;

    function replaceRange(start, end, text) {
      textarea.setSelectionRange(start, end);
      // execCommand keeps the browser's undo stack; setRangeText is the fallback.
      if (!document.execCommand || !document.execCommand("insertText", false, text)) {
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
      const block = value.slice(lineStart, e);
      const lines = block.split("\n");
      const changed = lines
        .map((line) => (dedent ? line.replace(/^ {1,4}|^\t/, "") : INDENT + line))
        .join("\n");
      replaceRange(lineStart, e, changed);
      textarea.setSelectionRange(lineStart, lineStart + changed.length);
    }

    textarea.addEventListener("input", () => onChange(textarea.value));
    textarea.addEventListener("keydown", (event) => {
      const mod = event.ctrlKey || event.metaKey;
      if (event.key === "Enter" && mod) {
        event.preventDefault();
        if (event.shiftKey) onRun();
        else onSubmit();
        return;
      }
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
      setValue(text) {
        textarea.value = text;
        textarea.setSelectionRange(0, 0);
        textarea.scrollTop = 0;
      },
      focus: () => textarea.focus(),
      markLine(n) {
        const lines = textarea.value.split("\n");
        if (n == null || n < 1 || n > lines.length) return false;
        const start = lines.slice(0, n - 1).reduce((sum, line) => sum + line.length + 1, 0);
        // Select the line (visible once focused, e.g. by "Go to line N") without
        // stealing focus from whatever the learner is using.
        textarea.setSelectionRange(start, start + lines[n - 1].length);
        const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
        textarea.scrollTop = Math.max(0, (n - 1) * lineHeight - textarea.clientHeight / 2);
        return true;
      },
    };
  }

  function mountEditor(frame, fallback, callbacks) {
    if (window.DrillEditor && typeof window.DrillEditor.create === "function") {
      try {
        const nonce = document.documentElement.dataset.cspNonce || undefined;
        const editor = window.DrillEditor.create(frame, { ...callbacks, nonce });
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

  // ---- The exercise page ----------------------------------------------------------------

  function initExercisePage(data) {
    const slug = data.slug;
    const trackNames = Object.keys(data.tracks || {});
    if (!trackNames.length) return;

    const $ = (id) => document.getElementById(id);
    const ui = {
      editorFrame: $("editor"),
      fallback: $("code-fallback"),
      trackButtons: Array.from(document.querySelectorAll(".track-button[data-track]")),
      saveStatus: $("save-status"),
      run: $("run-button"),
      submit: $("submit-button"),
      reset: $("reset-button"),
      actionStatus: $("action-status-text"),
      undoReset: $("undo-reset-button"),
      results: $("results"),
      notice: $("results-notice"),
      stale: $("results-stale"),
      body: $("results-body"),
      hintList: $("hint-list"),
      hintButton: $("hint-button"),
    };

    const stored = store.get(keys.track(slug));
    const state = {
      track: trackNames.includes(stored)
        ? stored
        : trackNames.includes(data.default_track)
          ? data.default_track
          : trackNames[0],
      code: {}, // track -> code currently held for it this session
      sources: {}, // track -> where that code came from: "local" | "server" | "starter"
      results: {}, // track -> {result, code}
      busy: false,
      applying: false, // true while the page itself replaces the editor's text
      touched: false, // the learner typed since the page loaded
      undo: null, // {track, code} before the last reset
    };

    // -- Drafts: localStorage immediately (debounced), the server right after ----------

    const saver = {
      timer: null,
      pending: null, // {track, code}
      chain: Promise.resolve(),

      schedule(track, code) {
        this.pending = { track, code };
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
        setSaveStatus("Unsaved changes…");
      },

      // Write the pending draft now; keepalive lets the PUT outlive a closing page.
      flush(options = {}) {
        clearTimeout(this.timer);
        this.timer = null;
        const job = this.pending;
        this.pending = null;
        if (!job) return;
        store.set(keys.draft(slug, job.track), { code: job.code, updated_at: new Date().toISOString() });
        if (options.keepalive) {
          api.putDraft(slug, job.track, job.code, { keepalive: true });
          return;
        }
        this.chain = this.chain.then(() => this.upload(job.track, job.code));
      },

      async upload(track, code) {
        setSaveStatus("Saving…");
        const answer = await api.putDraft(slug, track, code);
        if (answer.ok && answer.data) {
          // Adopt the server's timestamp so both copies compare equal on the next load
          // (unless the learner typed again meanwhile).
          const local = store.get(keys.draft(slug, track));
          if (local && local.code === code && answer.data.updated_at) {
            store.set(keys.draft(slug, track), { code, updated_at: answer.data.updated_at });
          }
          if (!this.pending) setSaveStatus("Draft saved");
        } else if (answer.status === 413) {
          setSaveStatus("Saved in this browser only: the code is over the server's size limit", true);
        } else {
          setSaveStatus("Saved in this browser only: the server could not save the draft", true);
        }
      },
    };

    function setSaveStatus(text, warning = false) {
      ui.saveStatus.textContent = text;
      ui.saveStatus.classList.toggle("is-warning", warning);
    }

    // The newer of the localStorage and server drafts, else the starter code.
    function initialCode(track) {
      const info = data.tracks[track];
      const local = store.get(keys.draft(slug, track));
      const server = info.draft || null;
      const localOk = local && typeof local.code === "string";
      const serverOk = server && typeof server.code === "string";
      if (localOk && (!serverOk || timeOf(local.updated_at) > timeOf(server.updated_at))) {
        if (!serverOk || server.code !== local.code) {
          // This browser has the newest copy: bring the server up to date.
          saver.chain = saver.chain.then(() => saver.upload(track, local.code));
        }
        return { code: local.code, source: "local" };
      }
      if (serverOk) {
        store.set(keys.draft(slug, track), { code: server.code, updated_at: server.updated_at });
        return { code: server.code, source: "server" };
      }
      return { code: info.starter_code, source: "starter" };
    }

    // When the page came without the server's draft (the key is absent, not null), ask.
    async function fetchServerDraft(track) {
      const answer = await api.getDraft(slug, track);
      if (!answer.ok || !answer.data || typeof answer.data.code !== "string") return;
      const local = store.get(keys.draft(slug, track));
      if (local && timeOf(local.updated_at) >= timeOf(answer.data.updated_at)) return;
      store.set(keys.draft(slug, track), answer.data);
      if (state.track === track && !state.touched && editor.getValue() !== answer.data.code) {
        setCode(answer.data.code, { resetHistory: true });
        setSaveStatus("Restored your saved draft");
      } else if (state.track !== track) {
        delete state.code[track];
      }
    }

    function codeFor(track) {
      if (!(track in state.code)) {
        const { code, source } = initialCode(track);
        state.code[track] = code;
        state.sources[track] = source;
      }
      return state.code[track];
    }

    function setCode(text, options) {
      state.applying = true;
      try {
        editor.setValue(text, options);
      } finally {
        state.applying = false;
      }
      state.code[state.track] = text;
      updateStale();
    }

    function onChange(code) {
      if (state.applying) return;
      state.touched = true;
      state.code[state.track] = code;
      saver.schedule(state.track, code);
      updateStale();
      if (state.undo) clearUndo();
    }

    // -- Editor -------------------------------------------------------------------------

    const editor = mountEditor(ui.editorFrame, ui.fallback, {
      doc: codeFor(state.track),
      onChange,
      onRun: () => grade("run"),
      onSubmit: () => grade("submit"),
    });
    announceSource(state.track);
    // A handle for browser tests and the console: set code without typing through the
    // editor's auto-indent and bracket closing.
    window.DrillPage = { editor, switchTrack: (track) => switchTrack(track) };

    function announceSource(track) {
      const source = state.sources[track];
      if (source === "local" || source === "server") setSaveStatus("Restored your saved draft");
      else setSaveStatus("");
    }

    // -- Tracks -------------------------------------------------------------------------

    function showTrack(track) {
      for (const button of ui.trackButtons) {
        button.setAttribute("aria-pressed", String(button.dataset.track === track));
      }
    }

    function switchTrack(track) {
      if (track === state.track || !data.tracks[track]) return;
      saver.flush();
      state.track = track;
      store.set(keys.track(slug), track);
      showTrack(track);
      setCode(codeFor(track), { resetHistory: true });
      announceSource(track);
      clearUndo();
      renderResults();
    }

    for (const button of ui.trackButtons) {
      button.addEventListener("click", () => switchTrack(button.dataset.track));
    }
    showTrack(state.track);

    // -- Reset to starter (undoable) ----------------------------------------------------

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

    // -- Grading --------------------------------------------------------------------------

    function setBusy(busy, mode) {
      state.busy = busy;
      for (const button of [ui.run, ui.submit, ui.reset]) button.disabled = busy;
      ui.run.classList.toggle("is-running", busy && mode === "run");
      ui.submit.classList.toggle("is-running", busy && mode === "submit");
      ui.results.setAttribute("aria-busy", String(busy));
    }

    async function grade(mode) {
      if (state.busy) return;
      const track = state.track;
      const code = editor.getValue();
      const trigger = mode === "run" ? ui.run : ui.submit;
      const hadFocus = document.activeElement;
      saver.flush();
      clearUndo();
      setBusy(true, mode);
      ui.notice.replaceChildren(
        el("p", { className: "results-busy" }, mode === "run" ? "Running the examples…" : "Running the hidden tests…"),
      );

      const answer = await api.submit(slug, track, code, mode);

      setBusy(false);
      ui.notice.replaceChildren();
      // Disabling the focused button drops focus to <body>; put it back.
      if (hadFocus === trigger && (document.activeElement === document.body || !document.activeElement)) {
        trigger.focus();
      }
      if (answer.ok && answer.data) {
        state.results[track] = { result: answer.data, code };
        if (state.track === track) renderResults({ fresh: true });
        return;
      }
      if (state.track === track) renderProblem(answer);
    }

    ui.run.addEventListener("click", () => grade("run"));
    ui.submit.addEventListener("click", () => grade("submit"));

    // A request that did not produce a result: say why and when to retry; the code stays.
    function renderProblem(answer) {
      const lines = [];
      let title = "Could not grade your code.";
      if (answer.status === 0) {
        title = "Could not reach the server.";
        lines.push("Check your connection and try again. Your code is kept in this browser.");
      } else if (answer.status === 413) {
        title = "Your code is too large to grade.";
        lines.push(answer.message);
      } else if (answer.status === 429 || answer.status === 503) {
        title = answer.status === 429 ? "Too many submissions." : "The graders are busy.";
        lines.push(answer.message);
        lines.push(
          answer.retryAfter != null
            ? `You can retry in ${plural(answer.retryAfter, "second")}. Your code is kept.`
            : "You can retry in a moment. Your code is kept.",
        );
      } else {
        lines.push(answer.message);
      }
      ui.notice.replaceChildren(
        el(
          "div",
          { className: "notice", role: "alert" },
          el("p", { className: "notice-title" }, title),
          ...lines.filter(Boolean).map((line) => el("p", null, line)),
        ),
      );
    }

    // -- Results ----------------------------------------------------------------------------

    const STATUS_LABEL = { pass: "Passed", fail: "Failed", error: "Error" };
    const STATUS_ICON = { pass: "✓", fail: "✗", error: "!" };

    function updateStale() {
      const entry = state.results[state.track];
      ui.stale.hidden = !entry || entry.code === editor.getValue();
    }

    function errorLine(message) {
      const match = /\bline (\d+)\b/i.exec(message || "");
      return match ? Number(match[1]) : null;
    }

    function renderResults(options = {}) {
      const entry = state.results[state.track];
      updateStale();
      if (!entry) {
        ui.body.replaceChildren(
          el(
            "p",
            { className: "results-empty" },
            "Press ",
            el("strong", null, "Run"),
            " to try the examples, or ",
            el("strong", null, "Submit"),
            " to grade your code against the hidden tests.",
          ),
        );
        if (editor.markLine) editor.markLine(null);
        return;
      }
      const result = entry.result;
      const tests = Array.isArray(result.tests) ? result.tests : [];
      const status = ["pass", "fail", "error"].includes(result.status) ? result.status : "error";
      const parts = [];

      const total = typeof result.total === "number" ? result.total : tests.length;
      const passed =
        typeof result.passed === "number" ? result.passed : tests.filter((t) => t.status === "pass").length;
      const summaryText =
        status === "error" && !tests.length
          ? result.mode === "run"
            ? "Your code could not run"
            : "Your code could not be graded"
          : `${passed}/${total} tests passed`;
      const meta = [
        result.mode === "run" ? "Run · examples" : "Submit · hidden tests",
        TRACK_LABELS[result.track] || result.track,
        formatDuration(result.duration_ms),
      ].filter(Boolean);
      parts.push(
        el(
          "div",
          { className: "results-header" },
          el("p", { className: `results-summary status-${status}` }, summaryText),
          el("p", { className: "results-meta" }, meta.join(" · ")),
        ),
      );

      if (status === "pass" && total > 0 && passed === total) {
        parts.push(
          el(
            "p",
            { className: "results-success" },
            result.mode === "submit"
              ? "Every hidden test passes: exercise solved. "
              : "All examples pass. Submit to run the hidden tests.",
            result.mode === "submit" ? el("a", { href: "/" }, "Back to the exercises") : null,
          ),
        );
      }

      // A message on the whole result (a syntax error, an import failure, ...).
      const line = status === "error" ? errorLine(result.message) : null;
      if (result.message && (status === "error" || !tests.length)) {
        const box = el("div", { className: "results-message" }, el("pre", null, result.message));
        if (line) {
          const go = el("button", { type: "button", className: "link-button" }, `Go to line ${line}`);
          go.addEventListener("click", () => {
            editor.markLine(line);
            editor.focus();
          });
          box.append(go);
        }
        parts.push(box);
      }
      if (editor.markLine) {
        // Mark only when these results are for the code in the editor right now.
        if (line && entry.code === editor.getValue()) editor.markLine(line);
        else editor.markLine(null);
      }

      if (tests.length) {
        // Failing tests first, keeping the server's order within each group.
        const order = (t) => (t.status === "pass" ? 1 : 0);
        const sorted = tests.map((t, i) => [t, i]).sort((a, b) => order(a[0]) - order(b[0]) || a[1] - b[1]);
        const list = el("ol", { className: "test-list" });
        let firstFailure = true;
        for (const [test] of sorted) {
          const failing = test.status !== "pass";
          list.append(renderTest(test, failing && firstFailure));
          if (failing) firstFailure = false;
        }
        parts.push(list);
      }

      ui.body.replaceChildren(...parts);
      if (options.fresh && ui.body.firstChild) ui.body.firstChild.scrollIntoView({ block: "nearest" });
    }

    function renderTest(test, expanded) {
      const status = ["pass", "fail", "error"].includes(test.status) ? test.status : "error";
      const message = test.message ? String(test.message) : "";
      const output = test.output ? String(test.output) : "";
      const head = [
        el(
          "span",
          { className: "test-head" },
          el("span", { className: "test-status" }, el("span", { "aria-hidden": "true" }, STATUS_ICON[status], " "), STATUS_LABEL[status]),
          el("span", { className: "test-name" }, test.name || "(unnamed test)"),
        ),
        el("span", { className: "test-duration" }, formatDuration(test.duration_ms)),
      ];
      const item = el("li", { className: `test status-${status}` });

      const body = [];
      if (message) body.push(el("p", { className: "test-message" }, message));
      if (status !== "pass" && test.hint) {
        const n = Number(test.hint);
        if (Number.isInteger(n) && n >= 1) {
          const link = el("a", { href: `#hint-${n}` }, `Hint ${n} may help`);
          link.addEventListener("click", (event) => {
            event.preventDefault();
            revealThrough(n);
          });
          body.push(el("p", { className: "test-hint" }, link));
        }
      }
      if (output) {
        const lines = output.replace(/\n$/, "").split("\n").length;
        body.push(
          el(
            "details",
            { className: "test-output", open: expanded },
            el("summary", null, `Your output (${plural(lines, "line")})`),
            el("pre", null, el("code", null, output)),
          ),
        );
      }

      if (!body.length) {
        item.append(el("div", { className: "test-summary" }, ...head));
        return item;
      }
      // The preview is the first difference, not the "In f(...):" line naming the call.
      const firstLine = message.split("\n").find((line) => !/^In .*\):$/.test(line)) || message.split("\n")[0];
      const preview = message && status !== "pass" ? el("span", { className: "test-preview" }, firstLine) : null;
      item.append(
        el(
          "details",
          { className: "test-details", open: expanded },
          el("summary", { className: "test-summary" }, ...head, preview),
          el("div", { className: "test-body" }, ...body),
        ),
      );
      return item;
    }

    // -- Hints --------------------------------------------------------------------------------

    const hints = {
      total: Number(data.hint_count) || 0,
      shown: 0, // hints in the list (loaded or loading)
      loading: false,
      queue: Promise.resolve(),
    };

    function updateHintButton() {
      if (!ui.hintButton) return;
      if (hints.shown >= hints.total) {
        ui.hintButton.textContent =
          hints.total === 1 ? "The hint is shown" : `All ${hints.total} hints shown`;
        ui.hintButton.disabled = true;
      } else {
        ui.hintButton.textContent = `Show hint ${hints.shown + 1} of ${hints.total}`;
        ui.hintButton.disabled = hints.loading;
      }
    }

    function hintItem(n) {
      let item = document.getElementById(`hint-${n}`);
      if (!item) {
        item = el("li", { id: `hint-${n}`, className: "hint is-loading", tabindex: "-1" });
        item.append(el("h3", { className: "hint-title" }, `Hint ${n}`), el("p", null, "Loading…"));
        ui.hintList.append(item);
      }
      return item;
    }

    async function loadHint(n) {
      const item = hintItem(n);
      const answer = await api.hint(slug, n);
      if (answer.ok && answer.data && typeof answer.data.html === "string") {
        if (typeof answer.data.total === "number") hints.total = answer.data.total;
        const content = el("div", { className: "prose" });
        content.innerHTML = answer.data.html; // trusted: the server's Markdown renderer
        item.replaceChildren(el("h3", { className: "hint-title" }, `Hint ${n}`), content);
        item.classList.remove("is-loading");
        return true;
      }
      if (answer.status === 404) {
        // Past the last hint (the exercise changed): forget it.
        item.remove();
        hints.total = Math.min(hints.total, n - 1);
        return false;
      }
      const retry = el("button", { type: "button", className: "link-button" }, "Try again");
      retry.addEventListener("click", () => loadHint(n));
      item.replaceChildren(
        el("h3", { className: "hint-title" }, `Hint ${n}`),
        el("p", { className: "inline-error" }, `Could not load this hint: ${answer.message} `, retry),
      );
      return false;
    }

    // Reveal hints up to n (in order), remember how many, and move focus to hint n. Calls
    // queue behind each other, so a "Hint 2 may help" click during a restore still works.
    function revealThrough(n) {
      if (!ui.hintList) return Promise.resolve();
      hints.queue = hints.queue.then(async () => {
        const target = Math.min(n, hints.total);
        if (target < 1) return;
        await loadUpTo(target);
        store.set(keys.hints(slug), hints.shown);
        const item = document.getElementById(`hint-${Math.min(target, hints.shown)}`);
        if (item) {
          item.scrollIntoView({ block: "nearest" });
          item.focus({ preventScroll: true });
        }
      });
      return hints.queue;
    }

    async function loadUpTo(n) {
      hints.loading = true;
      updateHintButton();
      while (hints.shown < n) {
        hints.shown += 1;
        const ok = await loadHint(hints.shown);
        if (!ok && !document.getElementById(`hint-${hints.shown}`)) {
          hints.shown -= 1; // gone (404): stop here
          break;
        }
      }
      hints.loading = false;
      updateHintButton();
    }

    if (ui.hintButton && ui.hintList) {
      ui.hintButton.addEventListener("click", () => revealThrough(hints.shown + 1));
      updateHintButton();
      // Hints revealed earlier are remembered by number and fetched again.
      const remembered = Math.min(Number(store.get(keys.hints(slug))) || 0, hints.total);
      if (remembered > 0) hints.queue = hints.queue.then(() => loadUpTo(remembered));
    }

    // -- Lifecycle ------------------------------------------------------------------------------

    // Save what is pending when the tab is hidden or closed.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") saver.flush({ keepalive: true });
    });
    window.addEventListener("pagehide", () => saver.flush({ keepalive: true }));

    for (const track of trackNames) {
      if (!("draft" in data.tracks[track])) fetchServerDraft(track);
    }
  }

  // ---- Start-up -------------------------------------------------------------------------

  function showShortcutKeys() {
    if (!IS_MAC) return;
    for (const kbd of document.querySelectorAll("kbd[data-mod]")) kbd.textContent = "⌘";
  }

  function readPageData() {
    const node = document.getElementById("page-data");
    if (!node) return null;
    try {
      return JSON.parse(node.textContent);
    } catch (err) {
      console.error("Drill: unreadable page data", err);
      return null;
    }
  }

  function start() {
    showShortcutKeys();
    const data = readPageData();
    if (data && data.slug && data.tracks) initExercisePage(data);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
