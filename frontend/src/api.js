// The JSON API (the README's "The JSON API"). Every call resolves to
// {ok, status, data, message, retryAfter, aborted} and never rejects: status 0 means the
// request did not reach the server, or was cancelled (aborted: true).

// Retry-After is either delta-seconds or an HTTP date.
export function parseRetryAfter(value, now = Date.now()) {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - now) / 1000));
}

// A human message from an error body: ours ({error, message}) or FastAPI's ({detail}).
export function errorMessage(body, status) {
  if (body && typeof body.message === "string" && body.message) return body.message;
  if (body && typeof body.detail === "string") return body.detail;
  if (body && Array.isArray(body.detail) && body.detail.length) {
    return body.detail.map((d) => (d && d.msg) || String(d)).join("; ");
  }
  return `The server answered ${status}.`;
}

// A page launched from an LMS inside an iframe may get no cookies (third-party cookies
// blocked): it carries its session in page data and sends it with every call instead.
let sessionToken = null;

export function setSessionToken(token) {
  sessionToken = typeof token === "string" && token ? token : null;
}

export async function request(method, url, body, options = {}) {
  const init = {
    method,
    headers: { Accept: "application/json" },
    credentials: "same-origin",
    keepalive: Boolean(options.keepalive),
    signal: options.signal,
  };
  if (sessionToken) init.headers["X-Drill-Session"] = sessionToken;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const fetcher = options.fetch || globalThis.fetch;
  let response;
  try {
    response = await fetcher(url, init);
  } catch (err) {
    const aborted = Boolean(err && err.name === "AbortError");
    return {
      ok: false,
      status: 0,
      data: null,
      message: aborted ? "Cancelled." : "Could not reach the server.",
      retryAfter: null,
      aborted,
    };
  }
  let data;
  try {
    data = await response.json();
  } catch {
    data = null; // an empty or non-JSON body
  }
  return {
    ok: response.ok,
    status: response.status,
    data,
    message: response.ok ? "" : errorMessage(data, response.status),
    retryAfter: parseRetryAfter(response.headers.get("Retry-After")),
    aborted: false,
  };
}

const part = encodeURIComponent;

export const api = {
  submit: (slug, track, code, mode, options) =>
    request("POST", `/api/exercises/${part(slug)}/submissions`, { track, code, mode }, options),
  submission: (id) => request("GET", `/api/submissions/${part(id)}`),
  submissionCode: (id) => request("GET", `/api/submissions/${part(id)}/code`),
  history: (slug, track, limit = 20) =>
    request("GET", `/api/exercises/${part(slug)}/submissions?track=${part(track)}&limit=${limit}`),
  solution: (slug, track) =>
    request("GET", `/api/exercises/${part(slug)}/solution?track=${part(track)}`),
  hint: (slug, n) => request("GET", `/api/exercises/${part(slug)}/hints/${n}`),
  getDraft: (slug, track) => request("GET", `/api/drafts/${part(slug)}/${part(track)}`),
  putDraft: (slug, track, code, options) =>
    request("PUT", `/api/drafts/${part(slug)}/${part(track)}`, { code }, options),
};
