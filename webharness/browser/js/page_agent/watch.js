// --- settling: mutations, requests, navigation -------------------------------------
import { state } from "./core.js";
import { flatParent } from "./tree.js";
import { contain } from "./containment.js";

export const changeWaiters = new Set(); // resolvers of waitForChange calls
export const wakeWaiters = () => {
  for (const wake of changeWaiters) wake();
};
const noteChange = () => {
  state.lastMutation = performance.now();
  wakeWaiters();
};
// What changed since the last settle: the settle waits for short animations on it.
const noteMutations = (records) => {
  for (const record of records) state.changed.add(record.target);
  noteChange();
};
// One observer for the document, the open shadow roots (a document's observer does not
// see into them) and same-origin frames' documents the snapshot walks into.
const observer = new MutationObserver(noteMutations);
const watched = new WeakSet();
export const watch = (root) => {
  if (!root || watched.has(root)) return;
  watched.add(root);
  observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
};
if (document.documentElement) watch(document);
else document.addEventListener("readystatechange", () => watch(document), { once: true });
// The page's world tells of each shadow root attached (js/page_hooks.js), on its host; a
// root the walk meets (a declarative one) is watched from then on.
window.addEventListener(
  "webharness:shadow",
  (event) => {
    const host = event.composedPath()[0];
    if (host && host.shadowRoot) {
      watch(host.shadowRoot);
      state.changed.add(host);
      noteChange();
    }
  },
  true,
);

// --- what only the page's world sees: its requests and the work it has scheduled ------
// js/page_hooks.js counts them there and answers over DOM events, which both worlds see.
// A timeout about to fire, an animation frame asked for, a message posted (how
// schedulers such as React's queue their work) or a running CSS animation can change
// the DOM in the next few milliseconds. While none of that is due, a DOM quiet for
// MIN_QUIET_MS is settled; otherwise settle waits the full quiet window. The agent's own
// waits use this world's timers, which the page's hooks never see.
export const MIN_QUIET_MS = 2;
export const timer = { set: window.setTimeout, clear: window.clearTimeout };
window.addEventListener("webharness:change", noteChange);
// {pending, due, contained}: requests in flight, work due between ``since`` (the last DOM
// change) and ``until``, and what the page's world refused since the last question. A
// page that broke the hooks leaves the DOM to go by.
export const askPage = (since, until) => {
  const answer = askPageWorld("ask", "answer", { since, until });
  if (answer && answer.contained) for (const entry of answer.contained) contain(entry);
  return answer || { pending: 0, due: false };
};
// One question to the page's world (js/page_hooks.js), which answers at once, within the
// dispatch: the answer's detail, or null when the page kept it from us. The hooks listen
// from before the page's scripts ran, so theirs is the first answer; a later one is not.
export const askPageWorld = (question, answer, detail) => {
  let heard = null;
  const hear = (event) => {
    if (heard === null) heard = event.detail;
  };
  window.addEventListener("webharness:" + answer, hear);
  window.dispatchEvent(new CustomEvent("webharness:" + question, { detail }));
  window.removeEventListener("webharness:" + answer, hear);
  return heard;
};
export const animating = () => document.getAnimations().some((a) => a.playState === "running");
// A running animation or transition, at most MAX_WAITED_ANIMATION_MS long in all, on an
// element that changed (or below one): a UI's motion, such as a dialog fading out, whose
// end the page may wait for to change the DOM again. A longer one (a progress bar, a
// carousel) is the page's content, and an endless one never ends: neither is waited for.
const MAX_WAITED_ANIMATION_MS = 1000;
export const motionOnChange = () => {
  for (const animation of document.getAnimations()) {
    if (animation.playState !== "running" && !animation.pending) continue;
    const effect = animation.effect;
    const target = effect && effect.target;
    if (!target || !(effect.getComputedTiming().endTime <= MAX_WAITED_ANIMATION_MS)) continue;
    for (let n = target; n; n = flatParent(n)) if (state.changed.has(n)) return true;
  }
  return false;
};
