// --- settling: mutations, requests, navigation -------------------------------------
const changeWaiters = new Set(); // resolvers of waitForChange calls
const wakeWaiters = () => { for (const wake of changeWaiters) wake(); };
const noteChange = () => { state.lastMutation = performance.now(); wakeWaiters(); };
const watchMutations = () => {
  new MutationObserver(noteChange)
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
};
if (document.documentElement) watchMutations(); else document.addEventListener("readystatechange", watchMutations, { once: true });

// --- what only the page's world sees: its requests and the work it has scheduled ------
// js/page_hooks.js counts them there and answers over DOM events, which both worlds see.
// A timeout about to fire, an animation frame asked for, a message posted (how
// schedulers such as React's queue their work) or a running CSS animation can change
// the DOM in the next few milliseconds. While none of that is due, a DOM quiet for
// MIN_QUIET_MS is settled; otherwise settle waits the full quiet window. The agent's own
// waits use this world's timers, which the page's hooks never see.
const MIN_QUIET_MS = 2;
const timer = { set: window.setTimeout, clear: window.clearTimeout };
window.addEventListener("webharness:change", noteChange);
// {pending, due, contained}: requests in flight, work due between ``since`` (the last DOM
// change) and ``until``, and what the page's world refused since the last question. A
// page that broke the hooks leaves the DOM to go by.
const askPage = (since, until) => {
  let answer = null;
  const hear = (event) => { answer = event.detail; };
  window.addEventListener("webharness:answer", hear);
  window.dispatchEvent(new CustomEvent("webharness:ask", { detail: { since, until } }));
  window.removeEventListener("webharness:answer", hear);
  if (answer && answer.contained) for (const entry of answer.contained) contain(entry);
  return answer || { pending: 0, due: false };
};
const animating = () => document.getAnimations().some((a) => a.playState === "running");
