// --- the flat tree: the page as the browser composes it ------------------------------
// Open shadow roots stand in for their host's children, a slot for the nodes assigned to
// it (or its own children when none are), and a same-origin frame's document hangs under
// its <iframe>. Light-DOM children a shadow root does not slot are not rendered: they are
// not in the flat tree either. A closed shadow root cannot be entered from script.
export const FRAME_TAGS = new Set(["IFRAME", "FRAME"]);
export const EMPTY = [];

export const flatChildren = (node) => {
  if (node.nodeType !== Node.ELEMENT_NODE) return node.childNodes || EMPTY;
  if (node.shadowRoot) return node.shadowRoot.childNodes;
  if (node.tagName === "SLOT" && node.getRootNode() instanceof ShadowRoot) {
    const assigned = node.assignedNodes();
    return assigned.length ? assigned : node.childNodes;
  }
  return node.childNodes;
};

// The flat-tree parent of a node; across a frame's border, the <iframe> that holds it.
export const flatParent = (node) => {
  if (node.assignedSlot) return node.assignedSlot;
  const parent = node.parentNode;
  if (!parent) return null;
  if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE && parent.host) return parent.host;
  if (parent.nodeType === Node.DOCUMENT_NODE) return frameOf(parent);
  return parent;
};

const frameOf = (doc) => {
  try {
    return doc.defaultView ? doc.defaultView.frameElement : null;
  } catch {
    return null;
  }
};

// Whether ``node`` is ``el`` or below it in the flat tree (frames included).
export const flatContains = (el, node) => {
  for (let n = node; n; n = flatParent(n)) if (n === el) return true;
  return false;
};

// The nearest ancestor-or-self matching ``selector`` in the element's tree scope, then in
// its host's, and so on out (shadow-including ancestors), stopping at a frame's border.
// Native closest() per scope: a JavaScript walk calling matches() on every ancestor cost
// the pass more than the rest of a control's states together.
export const flatClosest = (el, selector) => {
  for (let n = el; n && n.nodeType === Node.ELEMENT_NODE;) {
    const found = n.closest(selector);
    if (found) return found;
    n = n.getRootNode().host || null;
  }
  return null;
};

// The document of a same-origin frame, or null (cross-origin, not loaded yet, blocked).
export const frameDocument = (frame) => {
  try {
    return frame.contentDocument;
  } catch {
    return null;
  }
};

// Where a frame's viewport starts in its parent's viewport (inside its border and padding).
export const frameContentOffset = (frame) => {
  const r = frame.getBoundingClientRect();
  const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
  return [
    r.left + frame.clientLeft + parseFloat(style.paddingLeft || 0),
    r.top + frame.clientTop + parseFloat(style.paddingTop || 0),
  ];
};

// Where ``doc``'s viewport starts in the top document's viewport: the sum of the frames'.
export const documentOffset = (doc) => {
  let x = 0,
    y = 0;
  for (let frame = frameOf(doc); frame; frame = frameOf(frame.ownerDocument)) {
    const [fx, fy] = frameContentOffset(frame);
    x += fx;
    y += fy;
  }
  return [x, y];
};

// An element by id in the tree scope of ``el`` (its document or shadow root), as ARIA's
// id references resolve.
export const byIdIn = (el, id) => {
  const root = el.getRootNode();
  return root.getElementById ? root.getElementById(id) : null;
};

// The element a composed hit test finds at (x, y) of ``doc``'s viewport: through open
// shadow roots (document.elementFromPoint stops at the host) and same-origin frames.
export const deepElementFromPoint = (doc, x, y) => {
  let hit = doc.elementFromPoint(x, y);
  while (hit) {
    if (hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (inner && inner !== hit) {
        hit = inner;
        continue;
      }
      // The host itself: the point is on its own text, slotted into its shadow tree. A
      // click there reaches the element that holds the slot (a component's <button>).
      const holder = slotHolderAt(hit, x, y);
      if (holder) {
        hit = holder;
        continue;
      }
    }
    if (FRAME_TAGS.has(hit.tagName)) {
      const inner = frameDocument(hit);
      if (inner) {
        const [fx, fy] = frameContentOffset(hit);
        const deeper = inner.elementFromPoint(x - fx, y - fy);
        if (deeper) {
          x -= fx;
          y -= fy;
          hit = deeper;
          continue;
        }
      }
    }
    return hit;
  }
  return hit;
};

// The shadow-tree element that renders the host's text at (x, y), or null.
const slotHolderAt = (host, x, y) => {
  for (const child of host.childNodes) {
    if (child.nodeType !== Node.TEXT_NODE || !child.assignedSlot || !child.textContent.trim())
      continue;
    const range = host.ownerDocument.createRange();
    range.selectNodeContents(child);
    for (const r of range.getClientRects()) {
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) {
        let holder = child.assignedSlot;
        while (holder && (holder.tagName === "SLOT" || holder.nodeType !== Node.ELEMENT_NODE))
          holder = flatParent(holder);
        return holder && holder !== host ? holder : null;
      }
    }
  }
  return null;
};
