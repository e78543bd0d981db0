// --- the element under the pointer ----------------------------------------------------
// What a pointer action hits, hit-tested before its input is sent: the element a ref agent
// would have named, with the role, name and ref the observations gave it. A point on a
// <label> hits the label's control (a click there acts on it), as locate() counts it.
import { deepElementFromPoint, flatContains, flatParent } from "./tree.js";
import { INTERACTIVE, roleOf } from "./roles.js";
import { nameOf } from "./names.js";
import { describe, identify } from "./act.js";
import { state } from "./core.js";

const NAME_CHARS = 200;

const labelledControl = (hit) => {
  for (let el = hit; el && el.nodeType === Node.ELEMENT_NODE; el = flatParent(el))
    if (el.tagName === "LABEL") return el.control || null;
  return null;
};

// The element with a role that a point on ``hit`` acts on, or null.
const targetOf = (hit) => {
  const control = labelledControl(hit);
  if (control) {
    const role = roleOf(control);
    if (role) return { role, name: nameOf(control, role), el: control };
  }
  return identify(hit);
};

const control = (found) => Boolean(found && INTERACTIVE.has(found.role));

// A control under the point that the topmost element, which is no control and does not
// hold it, covers: what an agent aiming at the screen presumably aimed at.
const coveredControl = (x, y, hit) => {
  for (const el of document.elementsFromPoint(x, y)) {
    if (flatContains(el, hit)) continue; // the hit itself or one of its ancestors
    const found = targetOf(el);
    if (control(found) && !flatContains(found.el, hit)) return found;
  }
  return null;
};

const record = (found) => ({
  role: found ? found.role : null,
  name: found ? (found.name || "").slice(0, NAME_CHARS) : null,
  ref: found ? state.refOf.get(found.el) || null : null,
});

const hitAt = ([x, y]) => {
  const hit = deepElementFromPoint(document, x, y);
  if (!hit) return { ...record(null), coveredBy: null };
  const found = targetOf(hit);
  const aimed = control(found) ? null : coveredControl(x, y, hit);
  if (aimed) return { ...record(aimed), coveredBy: describe(found?.el || hit) };
  return { ...record(found), coveredBy: null };
};

// One hit test per point, in the page's viewport coordinates.
export const pointerAt = (points) => points.map(hitAt);
