// --- settling: mutations, requests, navigation -------------------------------------
const changeWaiters = new Set(); // resolvers of waitForChange calls
const wakeWaiters = () => { for (const wake of changeWaiters) wake(); };
const noteChange = () => { state.lastMutation = performance.now(); wakeWaiters(); };
const watchMutations = () => {
  new MutationObserver(noteChange)
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
};
if (document.documentElement) watchMutations(); else document.addEventListener("readystatechange", watchMutations, { once: true });

const origFetch = window.fetch;
if (origFetch) {
  window.fetch = function (...args) {
    state.pending++;
    return origFetch.apply(this, args).finally(() => { state.pending--; noteChange(); });
  };
}
// A response's body is read after fetch() resolves; count the read as in flight too, so a
// page that fetches, reads the JSON, then renders is not seen as quiet in between.
for (const reader of ["json", "text", "arrayBuffer", "blob", "formData"]) {
  const original = Response.prototype[reader];
  if (!original) continue;
  Response.prototype[reader] = function (...args) {
    state.pending++;
    return original.apply(this, args).finally(() => { state.pending--; noteChange(); });
  };
}
const origSend = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function (...args) {
  state.pending++;
  this.addEventListener("loadend", () => { state.pending--; noteChange(); }, { once: true });
  return origSend.apply(this, args);
};
// --- work the page has scheduled -------------------------------------------------------
// A timeout about to fire, an animation frame asked for, a message posted (how
// schedulers such as React's queue their work) or a running CSS animation can change
// the DOM in the next few milliseconds. While none of that is due, a DOM quiet for
// MIN_QUIET_MS is settled; otherwise settle waits the full quiet window. The agent's
// own waits use the native timer, so they never count.
const MIN_QUIET_MS = 2;
const timer = { set: window.setTimeout, clear: window.clearTimeout };
const timeouts = new Map(); // id -> when it is due (performance.now() ms)
window.setTimeout = function (handler, delay, ...args) {
  let id;
  const run = typeof handler === "function" ? function (...a) { timeouts.delete(id); return handler.apply(this, a); } : handler;
  id = timer.set.call(window, run, delay, ...args);
  timeouts.set(id, performance.now() + (Number(delay) || 0));
  return id;
};
window.clearTimeout = function (id) { timeouts.delete(id); return timer.clear.call(window, id); };
const frames = new Set(); // animation frame requests not yet run
const nativeFrame = window.requestAnimationFrame, nativeCancelFrame = window.cancelAnimationFrame;
window.requestAnimationFrame = function (callback) {
  if (typeof callback !== "function") return nativeFrame.call(window, callback); // throws as it would
  let id;
  id = nativeFrame.call(window, (t) => { frames.delete(id); return callback(t); });
  frames.add(id);
  return id;
};
window.cancelAnimationFrame = function (id) { frames.delete(id); return nativeCancelFrame.call(window, id); };
let lastPost = -Infinity;
const notePost = (owner) => {
  const orig = owner.postMessage;
  owner.postMessage = function (...args) { lastPost = performance.now(); return orig.apply(this, args); };
};
notePost(MessagePort.prototype);
notePost(window);
// Is any of it due? A frame or a message pending since ``since`` (the last DOM change),
// a timeout due by ``until``, or an animation running.
const workDue = (since, until) => {
  const now = performance.now();
  if (frames.size || lastPost >= since) return true;
  for (const [id, due] of timeouts) {
    if (due <= until) return true;
    if (due < now - 1000) timeouts.delete(id); // a string handler, run long ago
  }
  return document.getAnimations().some((a) => a.playState === "running");
};
