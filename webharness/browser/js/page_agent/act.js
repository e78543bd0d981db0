// --- acting on a ref ----------------------------------------------------------------
import {
  deepElementFromPoint,
  documentOffset,
  flatContains,
  flatParent,
  frameContentOffset,
} from "./tree.js";
import { EMIT, isHiddenDeep, roleOf, squash } from "./roles.js";
import { checkedOf, disabledOf } from "./states.js";
import { nameOf } from "./names.js";
import { lookup } from "./refs.js";
import { timer } from "./watch.js";

const EDITABLE_INPUTS = new Set([
  "text",
  "email",
  "tel",
  "url",
  "password",
  "search",
  "number",
  "date",
  "datetime-local",
  "month",
  "time",
  "week",
  "",
]);
export const describe = (el) => {
  const role = roleOf(el) || el.tagName.toLowerCase();
  const name = nameOf(el, role);
  return name ? `${role} "${name.slice(0, 60)}"` : role;
};

// Finds the element, scrolls it into view, and hit-tests its centre so that a click
// there lands on it (and not on a popup covering it). The test goes through open shadow
// roots and same-origin frames (document.elementFromPoint alone stops at a component's
// host and at an <iframe>); x and y are the page's viewport coordinates.
export const locate = (ref) => {
  const found = lookup(ref);
  if (found.status !== "ok") return { status: found.status };
  const el = found.el;
  if (isHiddenDeep(el)) return { status: "hidden" };
  let r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return { status: "hidden" };
  const view = el.ownerDocument.defaultView;
  const outside =
    r.top < 0 || r.left < 0 || r.bottom > view.innerHeight || r.right > view.innerWidth;
  // "nearest" also reveals an element clipped by a scrolling container (a long listbox),
  // and does nothing to one already in full view.
  el.scrollIntoView({
    block: outside ? "center" : "nearest",
    inline: outside ? "center" : "nearest",
    behavior: "instant",
  });
  r = el.getBoundingClientRect();
  const [ox, oy] = documentOffset(el.ownerDocument);
  const x = ox + r.left + r.width / 2,
    y = oy + r.top + r.height / 2;
  const hit = deepElementFromPoint(document, x, y);
  const label = el.labels && hit && Array.from(el.labels).some((l) => flatContains(l, hit));
  const covered = hit && !flatContains(el, hit) && !label;
  const role = roleOf(el);
  return {
    status: covered ? "covered" : "ok",
    coveredBy: covered ? describe(identify(hit)?.el || hit) : null,
    x,
    y,
    role,
    tag: el.tagName,
    type: el.type || "",
    disabled: disabledOf(el),
    editable:
      (el.tagName === "INPUT" && EDITABLE_INPUTS.has(el.type)) ||
      el.tagName === "TEXTAREA" ||
      el.isContentEditable,
    checked: checkedOf(el, role),
    label: describe(el),
    // A first paint is reported once presented: for a frame out of process, whether the
    // compositor has drawn it at all (see drawn).
    presented: performance.getEntriesByType("paint").length > 0,
  };
};

// A cross-origin frame's elements are located by the agent in that frame, to which Python
// sends their refs (browser/frame_worlds.py). This side brings the <iframe> into view
// first, then hit-tests the point that agent found: only this document can tell that a
// popup of its own covers the frame there. fx, fy are in the frame's viewport.
// "ok", or "moved" when bringing the <iframe> into view scrolled it (see drawn).
export const revealFrame = (ref) => {
  const found = lookup(ref);
  if (found.status !== "ok") return found.status;
  if (isHiddenDeep(found.el)) return "hidden";
  const before = found.el.getBoundingClientRect();
  found.el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
  const after = found.el.getBoundingClientRect();
  return before.x === after.x && before.y === after.y ? "ok" : "moved";
};

export const frameHit = (ref, fx, fy) => {
  const found = lookup(ref);
  if (found.status !== "ok") return { status: found.status };
  const frame = found.el;
  const [dx, dy] = documentOffset(frame.ownerDocument);
  const [ox, oy] = frameContentOffset(frame);
  const x = dx + ox + fx,
    y = dy + oy + fy;
  const hit = deepElementFromPoint(document, x, y);
  if (!hit) return { status: "hidden" }; // the point is outside the page's viewport
  if (hit === frame) return { status: "ok", x, y };
  return { status: "covered", coveredBy: describe(identify(hit)?.el || hit), x, y };
};

export const selectAll = (ref) => {
  const found = lookup(ref);
  if (found.status !== "ok") return false;
  const el = found.el;
  el.focus();
  if (typeof el.select === "function") el.select();
  else {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const sel = el.ownerDocument.defaultView.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  return true;
};

export const focus = (ref) => {
  const found = lookup(ref);
  if (found.status === "ok") found.el.focus();
  return found.status;
};

export const selectOption = (ref, option) => {
  const found = lookup(ref);
  if (found.status !== "ok") return { status: found.status };
  const el = found.el;
  if (el.tagName !== "SELECT") return { status: "unsupported", role: roleOf(el) };
  const wanted = squash(option).toLowerCase();
  const options = Array.from(el.options);
  const match =
    options.find((o) => squash(o.textContent).toLowerCase() === wanted) ||
    options.find((o) => o.value.toLowerCase() === wanted);
  if (!match) return { status: "no_option", options: options.map((o) => squash(o.textContent)) };
  if (match.disabled) return { status: "disabled_option" };
  el.focus();
  el.value = match.value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { status: "ok" };
};

// Scrolls the nearest scrollable container under the viewport centre, else the window.
export const scrollBy = (dx, dy) => {
  let el = deepElementFromPoint(document, window.innerWidth / 2, window.innerHeight / 2);
  while (el && el !== document.body && el !== document.documentElement) {
    const style = getComputedStyle(el);
    if (
      /(auto|scroll)/.test(style.overflowY + style.overflowX) &&
      (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth)
    ) {
      el.scrollBy({ left: dx, top: dy, behavior: "instant" });
      return;
    }
    el = flatParent(el);
  }
  window.scrollBy({ left: dx, top: dy, behavior: "instant" });
};

// The mouse wheel's event reaches the page after the protocol call that sends it returns
// (wheel listeners are passive): armWheel() before sending it, awaitWheel(ms) after, which
// resolves in the frame after the event (the scroll it made is done), or after ms.
let wheelSeen = null;
export const armWheel = () => {
  wheelSeen = new Promise((resolve) =>
    addEventListener("wheel", () => resolve(true), { capture: true, passive: true, once: true }),
  );
};
export const awaitWheel = (ms) => {
  const seen = wheelSeen || Promise.resolve(false);
  wheelSeen = null;
  const late = new Promise((resolve) => setTimeout(() => resolve(false), ms));
  return Promise.race([seen, late]).then(
    (arrived) => new Promise((resolve) => requestAnimationFrame(() => resolve(arrived))),
  );
};

// Resolves true once the document has begun two animation frames since the call (the
// frame it showed then has been drawn), false after ms (a hidden document draws none).
// Chromium routes a mouse event into a frame rendered out of process only by what the
// compositor last drew: before the frame's first drawing, or where it was before a
// scroll, it goes to the page's <iframe> element, lost.
export const drawn = (ms) =>
  new Promise((resolve) => {
    const late = timer.set.call(window, () => resolve(false), ms);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        timer.clear.call(window, late);
        resolve(true);
      }),
    );
  });

// The nearest element (itself or an ancestor) with a role: what a person clicked on.
export const identify = (node) => {
  for (let el = node; el && el.nodeType === Node.ELEMENT_NODE; el = flatParent(el)) {
    const role = roleOf(el);
    if (role && EMIT.has(role) && role !== "paragraph" && role !== "group")
      return { role, name: nameOf(el, role), el };
  }
  return null;
};
