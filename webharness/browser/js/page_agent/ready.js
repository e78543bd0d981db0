// --- the task's ready condition: a selector that must match a visible element, an
// expression (evaluated in the page's world) that must be truthy ----------------------------
// The selector as Playwright's wait_for_selector(state="visible") checked it, without its
// script in every document: the first match (in the document, else in an open shadow
// root) that checkVisibility() passes (display, visibility, content-visibility) and that
// has a box. Checked at once, on each DOM change, and every READY_POLL_MS (a style sheet,
// an animation or the app's own state can change with no mutation). In a document that
// goes away the call fails, and the harness checks the next one.
import { askPageWorld, changeWaiters, timer } from "./watch.js";

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
  try {
    el = firstMatch(document, selector);
  } catch (err) {
    return String((err && err.message) || err);
  }
  return Boolean(el && shownOnPage(el));
};
// The expression's value in the page's world (js/page_hooks.js answers the event at once):
// true, false, or what it threw, as text.
const expressionNow = (js) => {
  const answer = askPageWorld("ready?", "ready", { expression: js });
  return answer ? answer.value : false;
};
// The whole condition ({selector, js}) now: true, false, or the error's text of a part.
const readyValue = ({ selector, js }) => {
  const visible = selector ? visibleNow(selector) : true;
  return visible === true && js ? expressionNow(js) : visible;
};
export const readyNow = (condition) => readyValue(condition) === true;
// Resolves as readyValue once it is not false, or false at ms.
export const waitReady = (condition, ms) =>
  new Promise((resolve) => {
    const until = performance.now() + ms;
    let poll;
    const done = (value) => {
      changeWaiters.delete(check);
      timer.clear.call(window, poll);
      resolve(value);
    };
    const check = () => {
      const value = readyValue(condition);
      if (value !== false || performance.now() >= until) return done(value);
      timer.clear.call(window, poll);
      poll = timer.set.call(
        window,
        check,
        Math.min(READY_POLL_MS, Math.max(1, until - performance.now())),
      );
    };
    changeWaiters.add(check);
    check();
  });
