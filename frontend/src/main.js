// The page script's entry point, for every page (it only acts where there is an
// exercise). Bundled by esbuild into static/build/app.js; without that bundle the browser
// loads these same modules unbundled (loader.js).

import { setSessionToken } from "./api.js";
import { initExercisePage } from "./page.js";

const IS_MAC = /Mac|iPhone|iPad|iPod/.test(
  (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "",
);

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
  if (data && data.session) setSessionToken(data.session);
  if (data && data.slug && data.tracks) {
    const page = initExercisePage(data);
    if (page) window.DrillPage = page;
  }
}

// Tells loader.js that the page script runs (from the bundle or not).
window.DrillStarted = true;
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
