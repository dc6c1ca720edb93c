// The fallback when static/build/app.js is missing (npm was not there to build it) or
// failed to load: the browser loads the page's modules unbundled from /static/src/.
// base.html loads this after the bundle; module scripts run in document order, so the
// bundle, when it loaded, has already set window.DrillStarted.

if (!window.DrillStarted) {
  import("./main.js").catch((err) => console.error("Drill: the page script failed to load", err));
}
