// The notices above the results: why a request produced no result (a problem: the
// server refused it, was busy or out of reach), that the page stopped waiting for one,
// that an attempt could not be loaded.
//
// Pure apart from the node builder `h` (dom.js's `el` in the page, a plain-object builder
// in the unit tests). Server messages only ever become text nodes.

import { plural } from "./format.js";

// A grading request that did not produce a result: say why and when to retry; the code
// stays. `answer`: what api.js resolves to ({status, message, retryAfter}).
export function renderProblem(answer, { h }) {
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
  return h(
    "div",
    { className: "notice", role: "alert" },
    h("p", { className: "notice-title" }, title),
    ...lines.filter(Boolean).map((line) => h("p", null, line)),
  );
}

// After Cancel: the grader may still finish, and its result will turn up in the history.
export function renderStoppedWaiting({ h }) {
  return h(
    "div",
    { className: "notice notice-info", role: "status" },
    h("p", { className: "notice-title" }, "Stopped waiting for the result."),
    h("p", null, "The grader may still finish: the result will appear in your submission history."),
  );
}

// An attempt chosen in the history whose result could not be fetched.
export function renderAttemptError(message, { h }) {
  return h("div", { className: "notice", role: "alert" }, h("p", { className: "notice-title" }, "Could not load that attempt."), h("p", null, message));
}
