// --- accessible names (accname 1.2, HTML-AAM), over the flat tree --------------------
// One computation for the tree, the semantic state and the actions' labels. It follows
// the spec where Chromium does (Chromium is the reference we are measured against:
// benchmarks/bench_axtree.py); where they part, Chromium's behaviour is kept and said so.
import { byIdIn, flatClosest } from "./tree.js";
import {
  NAME_FROM_CONTENT,
  ariaOf,
  isHidden,
  isHiddenDeep,
  roleOf,
  squash,
  styleOf,
  visibleChildren,
} from "./roles.js";
import { generated } from "./generated.js";

const TEXT_INPUTS = new Set(["text", "email", "tel", "url", "password", "search", "number", ""]);
const RANGE_ROLES = new Set(["slider", "spinbutton", "scrollbar", "progressbar", "meter"]);
const MAX_NAME = 200;
const NOT_BLANK = /\S/;
const NO_NAME = Symbol("no name"); // a native label that ends the computation empty

export const nameOf = (el, role) => {
  const name = squash(
    nameStep(
      el,
      { root: el, visited: new Set() },
      { recursing: false, labelledBy: false, hiddenOk: false },
      role,
    ),
  );
  return name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name;
};

// What an element gives a name from content does not depend on whose name it is (but
// inside a label, whose control it leaves out): one pass computes it once per element, so
// a row's name and then each of its cells' cost the row's text once.
let contentCache = null;
export const startNamePass = () => {
  contentCache = new Map();
};
export const endNamePass = () => {
  contentCache = null;
};
const nameStep = (node, ctx, mode, role) => {
  if (node.nodeType === Node.TEXT_NODE) return mode.recursing ? node.textContent : "";
  if (contentCache && mode.recursing && !mode.labelledBy && !mode.hiddenOk && !ctx.label) {
    const known = contentCache.get(node);
    if (known !== undefined) return known;
    const text = computeStep(node, ctx, mode, role);
    contentCache.set(node, text);
    return text;
  }
  return computeStep(node, ctx, mode, role);
};

// The text a node contributes to the name being computed (the spec's steps 2A-2I).
const computeStep = (node, ctx, mode, role) => {
  if (node.nodeType !== Node.ELEMENT_NODE || ctx.visited.has(node)) return "";
  ctx.visited.add(node);
  if (isHidden(node) && !mode.hiddenOk) return ""; // 2A
  if (!mode.labelledBy) {
    // 2B: ids in the element's own tree scope
    const ids = (node.getAttribute("aria-labelledby") || "").trim();
    if (ids) {
      const text = squash(
        ids
          .split(/\s+/)
          .map((id) => byIdIn(node, id))
          .filter(Boolean)
          .map((target) => labelledByText(target, ctx, mode))
          .join(" "),
      );
      if (text) return text;
    }
  }
  const self = node === ctx.root;
  if (mode.recursing && !mode.labelledBy && self) return ""; // a control inside its own label
  // Below the root only a control's role matters (2C): most nodes are plain elements.
  const nodeRole =
    role !== undefined ? role : !mode.recursing || mayEmbed(node) ? roleOf(node) : null;
  if (mode.recursing && !self) {
    // 2C: an embedded control gives its value
    const embedded = embeddedValue(node, nodeRole);
    if (embedded !== null) return embedded;
  }
  const aria = squash(ariaOf(node, "label")); // 2D
  if (aria) return aria;
  const native = nativeName(node, ctx); // 2E
  if (native === NO_NAME) return "";
  if (native) return native;
  if (mode.recursing || NAME_FROM_CONTENT.has(nodeRole)) {
    // 2F
    const content = contentText(node, ctx, mode);
    if (NOT_BLANK.test(content)) return content;
  }
  return nativeFallback(node); // 2I: tooltip, placeholder
};

// A node referenced by aria-labelledby names with all of its text; a hidden one too,
// with its hidden content (2A's exception), as Chromium does.
const labelledByText = (target, ctx, mode) => {
  const inner = { root: ctx.root, visited: target === ctx.root ? new Set() : ctx.visited };
  return nameStep(target, inner, {
    recursing: true,
    labelledBy: true,
    hiddenOk: mode.hiddenOk || isHiddenDeep(target),
  });
};

const mayEmbed = (node) =>
  node.hasAttribute("role") || node.isContentEditable || EMBEDDABLE_TAGS.has(node.tagName);
const EMBEDDABLE_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);

const embeddedValue = (node, role) => {
  if (node.tagName === "INPUT" && TEXT_INPUTS.has(node.type)) return node.value;
  if (node.tagName === "TEXTAREA") return node.value;
  if (node.tagName === "SELECT")
    return Array.from(node.selectedOptions)
      .map((o) => o.label || o.textContent)
      .join(" ");
  if (role === "textbox" && node.isContentEditable) return node.textContent;
  if (role === "combobox" || role === "listbox") {
    const chosen = node.querySelector("[aria-selected='true']");
    return chosen
      ? squash(chosen.textContent)
      : role === "combobox"
        ? squash(node.textContent)
        : "";
  }
  if (RANGE_ROLES.has(role))
    return ariaOf(node, "valuetext") || ariaOf(node, "valuenow") || node.value || "";
  return null;
};

// The host language's own label (HTML-AAM): <label>s, alt, legend, caption, an input
// button's value. Chromium uses only labels that are rendered.
const nativeName = (node, ctx) => {
  const tag = node.tagName;
  if (tag === "INPUT") {
    const type = node.type;
    if (type === "button" || type === "submit" || type === "reset") {
      const value = node.getAttribute("value");
      if (value) return value;
      return type === "submit" ? "Submit" : type === "reset" ? "Reset" : "";
    }
    if (type === "image") return node.getAttribute("alt") || node.getAttribute("value") || "";
  }
  if (node.labels && node.labels.length && tag !== "BUTTON") {
    // Labels that are not rendered name nothing, and, as in Chromium, the field then
    // has no name from its title or placeholder either.
    const shown = Array.from(node.labels).filter(isRendered);
    if (!shown.length) return NO_NAME;
    const text = squash(
      shown
        .map((label) =>
          nameStep(
            label,
            { ...ctx, label: true },
            { recursing: true, labelledBy: false, hiddenOk: false },
          ),
        )
        .join(" "),
    );
    if (text) return text;
  }
  if (tag === "IMG" || tag === "AREA") return node.getAttribute("alt") || "";
  const caption = { FIELDSET: "legend", TABLE: "caption", FIGURE: "figcaption" }[tag];
  if (caption) {
    const child = node.querySelector(`:scope > ${caption}`);
    if (child) return nameStep(child, ctx, { recursing: true, labelledBy: false, hiddenOk: false });
  }
  if (tag === "OPTGROUP" || (tag === "OPTION" && node.hasAttribute("label")))
    return node.getAttribute("label") || "";
  if (node instanceof SVGElement) {
    const title = node.querySelector(":scope > title");
    if (title) return title.textContent;
  }
  return "";
};

// A label Chromium names with: rendered (checked natively: no walk up its ancestors'
// styles) and not under aria-hidden.
const isRendered = (label) =>
  label.checkVisibility({ visibilityProperty: true }) &&
  !flatClosest(label, "[aria-hidden='true']");

const nativeFallback = (node) => {
  const title = squash(node.getAttribute("title"));
  if (title) return title;
  if ((node.tagName === "INPUT" && TEXT_INPUTS.has(node.type)) || node.tagName === "TEXTAREA") {
    return squash(node.getAttribute("placeholder") || node.getAttribute("aria-placeholder"));
  }
  return squash(node.getAttribute("aria-placeholder"));
};

// Name from content: the flat tree's text, blocks set apart by spaces, inline runs joined.
const contentText = (node, ctx, mode) => {
  const inner = { recursing: true, labelledBy: mode.labelledBy, hiddenOk: mode.hiddenOk };
  let out = generated(node, "::before");
  for (const child of visibleChildren(node)) {
    if (child.nodeType === Node.ELEMENT_NODE) {
      const text = nameStep(child, ctx, inner);
      out += styleOf(child).inline ? text : " " + text + " ";
    } else if (child.nodeType === Node.TEXT_NODE) {
      out += transformed(child.textContent, node);
    }
  }
  return out + generated(node, "::after");
};

// Text as it is rendered, and as Chromium names with it: CSS text-transform applied.
const transformed = (text, el) => {
  if (el.nodeType !== Node.ELEMENT_NODE) return text;
  const info = styleOf(el);
  if (info.transform === undefined) info.transform = info.style ? info.style.textTransform : "none";
  const transform = info.transform;
  if (transform === "uppercase") return text.toUpperCase();
  if (transform === "lowercase") return text.toLowerCase();
  if (transform === "capitalize")
    return text.replace(/(^|\s)(\S)/g, (m, space, first) => space + first.toUpperCase());
  return text;
};

// An element's rendered text over the flat tree (alerts, a custom combobox's value).
export const textOf = (el) =>
  squash(
    contentText(
      el,
      { root: null, visited: new Set() },
      { recursing: true, labelledBy: false, hiddenOk: false },
    ),
  );
