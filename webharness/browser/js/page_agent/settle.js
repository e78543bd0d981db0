// --- navigations and the settle ----------------------------------------------------
import { state } from "./core.js";
import { frameDocument } from "./tree.js";
import { contain } from "./containment.js";
import {
  MIN_QUIET_MS,
  animating,
  askPage,
  changeWaiters,
  motionOnChange,
  timer,
  wakeWaiters,
} from "./watch.js";

// A download link (<a download>) is fetched by Chromium's download manager, outside the
// context's request interception: it would reach the real network. Refuse it here and
// note it; a download that arrives as a routed response is refused by the browser.
const onNavigate = (event) => {
  if (typeof event.downloadRequest === "string") {
    if (event.cancelable) event.preventDefault();
    contain(event.destination.url + " [download]");
  } else if (!event.destination.sameDocument) {
    markNavigating();
  }
};
const markNavigating = () => {
  state.navigating = true;
  wakeWaiters();
};
if (window.navigation) window.navigation.addEventListener("navigate", onNavigate);
window.addEventListener("beforeunload", markNavigating);

// A form submission or a link click starts its navigation in a later task, which under
// load can come after the page already looks quiet. Keep the event: while its default
// action is still due (not prevented, not in a new window, not same-document), the page
// is not settled, for at most NAVIGATION_DUE_MS.
const NAVIGATION_DUE_MS = 2000;
const leavesDocument = (url, target) => {
  if (target && target !== "_self") return false;
  let next;
  try {
    next = new URL(url, location.href);
  } catch {
    return false;
  }
  if (!/^https?:$/.test(next.protocol)) return false; // javascript:, mailto:, refused schemes
  const sameDocument =
    next.href.includes("#") && next.href.split("#")[0] === location.href.split("#")[0];
  return !sameDocument; // "#" or "#section" on this page only scrolls
};
window.addEventListener(
  "submit",
  (event) => {
    // Attributes, not properties: a field named "action" or "target" shadows form.action.
    const form = event.target;
    const from = (name) =>
      (event.submitter && event.submitter.getAttribute("form" + name)) || form.getAttribute(name);
    if ((from("method") || "").toLowerCase() === "dialog") return;
    if (leavesDocument(from("action") || location.href, from("target"))) {
      state.dueNavigation = { event, at: performance.now() };
    }
  },
  true,
);
window.addEventListener(
  "click",
  (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (link && !link.hasAttribute("download") && leavesDocument(link.href, link.target)) {
      state.dueNavigation = { event, at: performance.now() };
    }
  },
  true,
);
const navigationDue = () => {
  const due = state.dueNavigation;
  if (!due) return false;
  if (due.event.defaultPrevented || performance.now() - due.at > NAVIGATION_DUE_MS)
    state.dueNavigation = null;
  return Boolean(state.dueNavigation);
};

// Resolves when no request is in flight and the DOM has been quiet for quietMs (or for
// MIN_QUIET_MS with no work of the page due before quietMs would end), or when a
// navigation starts, or at capMs. Polls with timeouts (rAF is throttled). Some work holds
// it, within the cap: same-origin frames and images still loading; the animation frames
// the page had asked for when the settle began (a render batched into
// requestAnimationFrame), until they have run; and a short animation on what changed
// (motionOnChange), until it has ended and one frame has passed, so that what the page
// does at its end (transitionend) has been done. A zero-length animation's finish, which
// comes with the next frame, counts as an animation frame asked for (page_hooks.js).
export const settle = ({ quietMs = 10, capMs = 3000 } = {}) =>
  new Promise((resolve) => {
    const start = performance.now();
    const framesAsked = askPage(start, start).frameSeq || 0;
    let moved = false,
      frameAfterMotion = false,
      frameAsked = false;
    const end = (result) => {
      state.changed = new WeakSet();
      resolve(result);
    };
    const check = () => {
      const now = performance.now();
      if (state.navigating) return end({ navigating: true, timedOut: false });
      const quietFor = now - state.lastMutation;
      const page = askPage(state.lastMutation, state.lastMutation + quietMs);
      const moving = motionOnChange();
      if (moving) {
        moved = true;
        frameAfterMotion = false;
      } else if (moved && !frameAfterMotion && !frameAsked) {
        frameAsked = true;
        requestAnimationFrame(() => {
          frameAsked = false;
          frameAfterMotion = true;
        });
      }
      const framesOwed = page.oldestFrame !== undefined && page.oldestFrame <= framesAsked;
      const held =
        moving || (moved && !frameAfterMotion) || framesOwed || framesLoading() || imagesLoading();
      const quiet =
        page.pending === 0 &&
        document.readyState !== "loading" &&
        !navigationDue() &&
        !held &&
        (quietFor >= quietMs || (quietFor >= MIN_QUIET_MS && !page.due && !animating()));
      if (quiet) return end({ navigating: false, timedOut: false, early: quietFor < quietMs });
      if (now - start >= capMs)
        return end({ navigating: false, timedOut: true, pending: page.pending });
      const untilQuiet = quietFor < MIN_QUIET_MS ? MIN_QUIET_MS - quietFor : quietMs - quietFor;
      timer.set.call(window, check, untilQuiet > 0 ? Math.max(1, Math.min(untilQuiet, 5)) : 5);
    };
    check();
  });

// A same-origin frame whose document has not loaded yet (the snapshot walks into it);
// one of another origin, or blocked, is not waited for.
const frameElements = document.getElementsByTagName("iframe");
const framesLoading = () => {
  for (const frame of frameElements) {
    const doc = frameDocument(frame);
    if (!doc) continue;
    if (doc.readyState === "loading") return true;
    const src = frame.getAttribute("src");
    if (
      doc.URL === "about:blank" &&
      src &&
      !/^\s*about:/i.test(src) &&
      !frame.hasAttribute("srcdoc")
    )
      return true;
  }
  return false;
};

// An image still loading: its size is not known until it arrives (an <img width=20> with
// no height is 0 pixels tall until then), and the layout around it shifts when it does.
// A lazy one may wait for a scroll that never comes; a broken one counts as complete.
const images = document.images;
const imagesLoading = () => {
  for (const image of images) if (!image.complete && image.loading !== "lazy") return true;
  return false;
};

// Resolves at the first DOM change or finished request after the call, or when a
// navigation starts (true), or at ms (false). Woken by the change itself rather than by
// polling: a long wait costs the page nothing.
export const waitForChange = (ms) =>
  new Promise((resolve) => {
    if (state.navigating) return resolve(true);
    let timeout;
    const done = (changed) => {
      changeWaiters.delete(wake);
      timer.clear.call(window, timeout);
      resolve(changed);
    };
    const wake = () => done(true);
    changeWaiters.add(wake);
    timeout = timer.set.call(window, () => done(false), ms);
  });
