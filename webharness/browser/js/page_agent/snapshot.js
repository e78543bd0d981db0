// --- the one-pass snapshot ----------------------------------------------------------
import { state, toJSON } from "./core.js";
import { FRAME_TAGS, frameContentOffset, frameDocument } from "./tree.js";
import { contained } from "./containment.js";
import { askPage, watch } from "./watch.js";
import {
  EMIT,
  INTERACTIVE,
  LEAF,
  ariaOf,
  endStylePass,
  isHidden,
  roleOf,
  squash,
  startStylePass,
  visibleChildren,
} from "./roles.js";
import { boolAttr, checkedOf, disabledOf, errorTextOf, valueOf } from "./states.js";
import { endNamePass, nameOf, startNamePass, textOf } from "./names.js";
import { startRulesPass } from "./generated.js";
import { refFor } from "./refs.js";

const quote = (s) => toJSON(s);
const MAX_TEXT = 20000;

export const snapshot = (options) => {
  startStylePass();
  startNamePass();
  startRulesPass();
  try {
    return snapshotPass(options);
  } finally {
    endStylePass();
    endNamePass();
  }
};

// The observation's budget, in tree lines: past half of it the walk keeps to what the
// viewport shows (scrolling brings the rest in); at the budget it stops, and the tree says
// how much it left out. Bounds a huge page's pass (50,000 buttons) and its result alike.
const DEFAULT_MAX_LINES = 5000;
const onScreen = (el, view) => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return true; // no box of its own: its children may have
  return r.bottom > 0 && r.right > 0 && r.top < view.vh && r.left < view.vw;
};

// A document the walk enters (the page's, or a same-origin frame's): where its viewport
// sits in the page's (bboxes are the page's coordinates), its size, and its open modal
// dialog, which makes the rest of that document inert (left out, as Chromium does).
const viewOf = (doc, offset) => ({
  doc,
  offset,
  vw: doc.defaultView.innerWidth,
  vh: doc.defaultView.innerHeight,
  modal: doc.querySelector("dialog:modal"),
});
const inertByModal = (el, view) =>
  view.modal !== null && !el.contains(view.modal) && !view.modal.contains(el);
const originOf = (frame) => {
  try {
    return new URL(frame.src || "about:blank", frame.baseURI).origin;
  } catch {
    return "null";
  }
};

// The focused element, inside shadow roots and same-origin frames.
const deepActiveElement = () => {
  let el = document.activeElement;
  for (;;) {
    const inner =
      el &&
      (el.shadowRoot
        ? el.shadowRoot.activeElement
        : FRAME_TAGS.has(el.tagName)
          ? frameDocument(el)?.activeElement
          : null);
    if (!inner || inner === el) return el;
    el = inner;
  }
};

// With ``scopes`` (a task that looks ``within`` an ancestor, or counts by role), each
// element says which node it is in, and the nodes that are not elements (lists, items,
// rows, regions, headings...) are listed with theirs: ``state.nodes``.
const snapshotPass = ({ minRef = 1, maxLines = DEFAULT_MAX_LINES, scopes = false } = {}) => {
  state.nextRef = Math.max(state.nextRef, minRef);
  let walked = 0; // elements looked at (shown, hidden or skipped off screen)
  const lines = [];
  const elements = [];
  const headings = [];
  const alerts = [];
  const dialogs = [];
  const nodes = [];
  const frames = []; // the frames this world cannot enter (browser/frame_worlds.py)
  const frameTexts = [];
  const top = viewOf(document, [0, 0]);
  const vw = top.vw,
    vh = top.vh;

  const visit = (node, depth, scope, view) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = squash(node.textContent);
      if (text) lines.push({ depth, text: "- text: " + text, isText: true });
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || lines.length >= maxLines) return;
    if (lines.length >= maxLines / 2 && !onScreen(node, view)) return;
    walked += 1;
    if (isHidden(node) || inertByModal(node, view)) return;
    const el = node;
    if (el.shadowRoot) watch(el.shadowRoot);
    const role = roleOf(el);
    if (!role || !EMIT.has(role)) {
      for (const child of visibleChildren(el)) visit(child, depth, scope, view);
      return;
    }
    const ref = refFor(el);
    const name = nameOf(el, role);
    const value = valueOf(el, role);
    const checked = checkedOf(el, role);
    const disabled = disabledOf(el);
    const expanded = boolAttr(el, "aria-expanded") ?? (el.tagName === "DETAILS" ? el.open : null);
    const selected = el.tagName === "OPTION" ? el.selected : boolAttr(el, "aria-selected");
    const required = Boolean(el.required || ariaOf(el, "required") === "true");
    const invalid =
      el.getAttribute("aria-invalid") === "true" ||
      (el.willValidate && el.dataset.touched === "true" && !el.checkValidity());
    const level =
      role === "heading" ? Number(ariaOf(el, "level") || el.tagName.slice(1)) || 2 : null;

    let line = "- " + role + (name ? " " + quote(name) : "");
    if (checked === true) line += " [checked]";
    if (disabled) line += " [disabled]";
    if (expanded !== null) line += expanded ? " [expanded]" : "";
    if (level) line += ` [level=${level}]`;
    if (selected) line += " [selected]";
    if (required && INTERACTIVE.has(role)) line += " [required]";
    if (invalid) line += " [invalid]";
    line += ` [ref=${ref}]`;
    const leaf = LEAF.has(role);
    if (value !== null && value !== undefined && value !== "")
      line += ": " + (leaf || role === "combobox" ? quote(value) : value);
    const start = lines.length;
    lines.push({ depth, text: line });

    if (role === "heading") headings.push({ level, text: name });
    if (
      (role === "alert" || role === "status" || el.getAttribute("aria-live") === "assertive") &&
      squash(textOf(el))
    )
      alerts.push(squash(textOf(el)).slice(0, 300));
    if ((role === "dialog" || role === "alertdialog") && (el.tagName !== "DIALOG" || el.open))
      dialogs.push(name);
    const tabbable = el.tabIndex >= 0 && el.hasAttribute("tabindex");
    if (INTERACTIVE.has(role) || tabbable) {
      const local = el.getBoundingClientRect();
      const r = {
        x: local.x + view.offset[0],
        y: local.y + view.offset[1],
        width: local.width,
        height: local.height,
      };
      r.right = r.x + r.width;
      r.bottom = r.y + r.height;
      r.top = r.y;
      r.left = r.x;
      const element = {
        ref,
        role,
        name,
        value: value ?? null,
        checked,
        selected: selected ?? null,
        disabled,
        expanded,
        required,
        invalid: Boolean(invalid),
        validation_message: errorTextOf(el, el.getAttribute("aria-invalid") === "true"),
        bbox: [r.x, r.y, r.width, r.height],
        in_viewport:
          r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw,
      };
      const current = el.getAttribute("aria-current"),
        pressed = boolAttr(el, "aria-pressed");
      if (current !== null) element.current = current;
      if (pressed !== null) element.pressed = pressed;
      if (scopes) element.scope = scope;
      elements.push(element);
    } else if (scopes) {
      nodes.push({ ref, role, name, scope });
    }
    if (role === "link" && el.getAttribute("href"))
      lines.push({ depth: depth + 1, text: "- /url: " + el.getAttribute("href") });
    // A heading usually stands for its text, but a link inside it (<h3><a>) must stay reachable.
    const holdsControls =
      role === "heading" && el.querySelector("a[href],button,input,select,textarea");
    if (role === "iframe") {
      visitFrame(el, start, depth + 1, ref, view);
    } else if (!leaf || el.tagName === "SELECT" || holdsControls) {
      for (const child of visibleChildren(el)) visit(child, depth + 1, ref, view);
    }
    if (
      lines.length > start + 1 &&
      !lines[start].text.endsWith(":") &&
      !lines[start].text.includes("]: ")
    )
      lines[start].text += ":";
    // A container whose only child is its own text reads better on one line.
    if (
      lines.length === start + 2 &&
      lines[start + 1].isText &&
      !lines[start].text.includes("]: ")
    ) {
      const text = lines.pop().text.slice("- text: ".length);
      lines[start].text = lines[start].text.replace(/:$/, "") + (text === name ? "" : ": " + text);
    }
  };
  // A same-origin frame's document is walked from here, under its <iframe>, its refs
  // acting in it. One this world cannot enter says whose it is, and where its viewport
  // sits in the page's, for its own agent to observe it (scope: the <iframe>'s ref).
  const visitFrame = (frame, line, depth, scope, view) => {
    const doc = frameDocument(frame);
    const [fx, fy] = frameContentOffset(frame);
    if (!doc) {
      const origin = originOf(frame);
      const offset = [view.offset[0] + fx, view.offset[1] + fy];
      frames.push({ origin, ref: scope, depth, offset, focused: deepActiveElement() === frame });
      lines[line].text += ` [cross-origin: ${origin}]`;
      return;
    }
    watch(doc);
    if (!doc.body) return;
    frameTexts.push(doc.body.innerText);
    visit(doc.body, depth, scope, viewOf(doc, [view.offset[0] + fx, view.offset[1] + fy]));
  };
  if (document.body) visit(document.body, 0, null, top);
  if (lines.length >= maxLines / 2 && document.body) {
    const left = document.body.getElementsByTagName("*").length + 1 - walked;
    if (left > 0) {
      lines.push({
        depth: 0,
        text:
          `- note: this page is larger than the observation's budget of ${maxLines} lines: ` +
          `${left} elements are left out (most of them outside the viewport); ` +
          "scroll to bring them in",
      });
    }
  }

  const axtree = lines.map((l) => "  ".repeat(l.depth) + l.text).join("\n");
  const active = deepActiveElement();
  const focusedEl =
    active && active !== document.body && !FRAME_TAGS.has(active.tagName) ? active : null;
  return {
    axtree,
    frames,
    contained: (askPage(0, 0), contained.splice(0)), // the page's world's notes too
    maxRef: state.nextRef - 1,
    state: {
      url: location.href,
      title: document.title,
      focused: focusedEl ? state.refOf.get(focusedEl) || null : null,
      elements,
      headings,
      alerts,
      dialogs,
      text: squash([document.body ? document.body.innerText : "", ...frameTexts].join(" ")).slice(
        0,
        MAX_TEXT,
      ),
      scroll: [window.scrollX, window.scrollY],
      ...(scopes ? { nodes } : {}),
    },
  };
};
