// --- the task's ready condition: a CSS selector that must match a visible element ---------
// What Playwright's wait_for_selector(state="visible") checked, without its script in every
// document: the first match (in the document, else in an open shadow root) that
// checkVisibility() passes (display, visibility, content-visibility) and that has a box.
// Checked at once, on each DOM change, and every READY_POLL_MS (a style sheet or an
// animation can show it with no mutation). In a document that goes away the call fails,
// and the harness checks the next one.
const READY_POLL_MS = 16;
const firstMatch = (root, selector) => {
  const found = root.querySelector(selector);
  if (found) return found;
  for (const el of root.querySelectorAll("*")) {
    const inner = el.shadowRoot && firstMatch(el.shadowRoot, selector);
    if (inner) return inner;
  }
  return null;
};
const shownOnPage = (el) => {
  if (!el.checkVisibility({ visibilityProperty: true })) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
};
// true, false, or the error's text for a selector that is not CSS.
const visibleNow = (selector) => {
  let el;
  try { el = firstMatch(document, selector); } catch (err) { return String(err && err.message || err); }
  return Boolean(el && shownOnPage(el));
};
// Resolves as visibleNow once it is not false, or false at ms.
const waitVisible = (selector, ms) => new Promise((resolve) => {
  const until = performance.now() + ms;
  let poll;
  const done = (value) => { changeWaiters.delete(check); timer.clear.call(window, poll); resolve(value); };
  const check = () => {
    const value = visibleNow(selector);
    if (value !== false || performance.now() >= until) return done(value);
    timer.clear.call(window, poll);
    poll = timer.set.call(window, check, Math.min(READY_POLL_MS, Math.max(1, until - performance.now())));
  };
  changeWaiters.add(check);
  check();
});
// Whether the whole condition ({selector, js}) holds now, asked right after a settle; the
// expression is evaluated by the page's world (js/page_hooks.js), which answers at once.
const readyNow = ({ selector, js }) => {
  if (selector && visibleNow(selector) !== true) return false;
  if (!js) return true;
  let answer = null;
  const hear = (event) => { answer = event.detail; };
  window.addEventListener("webharness:ready", hear);
  window.dispatchEvent(new CustomEvent("webharness:ready?", { detail: { expression: js } }));
  window.removeEventListener("webharness:ready", hear);
  return Boolean(answer) && answer.value === true;
};
