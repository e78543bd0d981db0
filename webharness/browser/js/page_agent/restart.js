// --- an in-place reset: the next episode in the same document -----------------------
// A page that restarts its own task in its document (MiniWoB++'s, or a site with its own
// restart) can serve the next episode without loading again. Its document qualifies while
// it is still the start page with no history of its own, no service worker and no request
// in flight (its answer would land in the next episode); then what the episode left in it
// goes (window.name, selection, focus, scroll; its storage is cleared from outside,
// page_reuse.py) and so do the agent's refs, so the next episode's start at e1 as on a
// page just loaded. Returns why the document does not qualify, or "" once it is ready.
import { state } from "./core.js";
import { askPage } from "./watch.js";

export const restartInPlace = async (startUrl) => {
  if (location.href !== startUrl) return `the page is at ${location.href}, not its start page`;
  if (history.length !== state.loadedHistory) return "the page has a history of its own";
  const workers = navigator.serviceWorker ? await navigator.serviceWorker.getRegistrations() : [];
  if (workers.length) return "the page registered a service worker";
  const now = performance.now();
  if (askPage(now, now).pending) return "the page has requests in flight";
  window.name = ""; // it outlives documents: a world's write is the page's too
  document.getSelection()?.removeAllRanges();
  if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  window.scrollTo(0, 0);
  state.nextRef = 1;
  state.refs = new Map();
  state.refOf = new WeakMap();
  state.changed = new WeakSet();
  state.navigating = false;
  state.dueNavigation = null;
  return "";
};
