// --- roles and visibility (ARIA 1.2, HTML-AAM) --------------------------------------
import { EMPTY, flatChildren, flatClosest, flatParent } from "./tree.js";

const INPUT_ROLES = {
  button: "button",
  submit: "button",
  reset: "button",
  image: "button",
  file: "button",
  checkbox: "checkbox",
  radio: "radio",
  range: "slider",
  number: "spinbutton",
  search: "searchbox",
  email: "textbox",
  tel: "textbox",
  text: "textbox",
  url: "textbox",
  password: "textbox",
  date: "textbox",
  "datetime-local": "textbox",
  month: "textbox",
  time: "textbox",
  week: "textbox",
  color: "textbox",
  "": "textbox",
};
// The sectioning elements that make <header>/<footer> plain (HTML-AAM).
// A <th>'s role, as Chromium computes it: its scope first (row, rowgroup: a row header;
// col, colgroup: a column header); then a row with no <td> is a row of column headers;
// in a row with data cells, a header beside a <td>, or at the row's start or end, heads
// its row, and one between two headers heads its column.
const headerRole = (el) => {
  const scope = (el.getAttribute("scope") || "").toLowerCase();
  if (scope === "row" || scope === "rowgroup") return "rowheader";
  if (scope === "col" || scope === "colgroup") return "columnheader";
  const row = el.parentElement;
  const cells = row
    ? Array.from(row.children).filter((c) => c.tagName === "TD" || c.tagName === "TH")
    : [];
  if (!cells.some((c) => c.tagName === "TD")) return "columnheader";
  const at = cells.indexOf(el);
  const before = cells[at - 1],
    after = cells[at + 1];
  if (!before || !after || before.tagName === "TD" || after.tagName === "TD") return "rowheader";
  return "columnheader";
};
const SECTIONING = "article,aside,main,nav,section";
const TAG_ROLES = {
  A: (el) => (el.hasAttribute("href") ? "link" : null),
  AREA: (el) => (el.hasAttribute("href") ? "link" : null),
  BUTTON: () => "button",
  SUMMARY: (el) =>
    el.parentElement &&
    el.parentElement.tagName === "DETAILS" &&
    el.parentElement.querySelector(":scope > summary") === el
      ? "button"
      : null,
  H1: () => "heading",
  H2: () => "heading",
  H3: () => "heading",
  H4: () => "heading",
  H5: () => "heading",
  H6: () => "heading",
  TEXTAREA: () => "textbox",
  SELECT: (el) => (el.multiple || el.size > 1 ? "listbox" : "combobox"),
  OPTION: () => "option",
  IMG: (el) => (el.getAttribute("alt") === "" ? null : "img"),
  NAV: () => "navigation",
  MAIN: () => "main",
  HEADER: (el) => (flatClosest(flatParent(el), SECTIONING) ? null : "banner"),
  FOOTER: (el) => (flatClosest(flatParent(el), SECTIONING) ? null : "contentinfo"),
  ASIDE: () => "complementary",
  FORM: () => "form",
  DIALOG: () => "dialog",
  UL: () => "list",
  OL: () => "list",
  MENU: () => "list",
  LI: () => "listitem",
  TABLE: () => "table",
  TR: () => "row",
  TD: (el) => (flatClosest(el, "[role=grid],[role=treegrid]") ? "gridcell" : "cell"),
  TH: (el) => headerRole(el),
  OPTGROUP: () => "group",
  DETAILS: () => "group",
  P: () => "paragraph",
  FIELDSET: () => "group",
  SECTION: (el) =>
    el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null,
  PROGRESS: () => "progressbar",
  METER: () => "meter",
  LABEL: () => null,
  OUTPUT: () => "status",
  HR: () => "separator",
  IFRAME: () => "iframe",
  FRAME: () => "iframe",
  ARTICLE: () => "article",
};
// A set of roles, written as words.
const roleSet = (words) => new Set(words.trim().split(/\s+/));
// ARIA 1.2's concrete roles: a role attribute's first token among them wins (ARIA's
// fallback list); an attribute with none of them leaves the element its native role.
const ARIA_ROLES = roleSet(`
  alert alertdialog application article banner blockquote button caption cell checkbox
  code columnheader combobox complementary contentinfo definition deletion dialog
  directory document emphasis feed figure form generic grid gridcell group heading img
  image insertion link list listbox listitem log main marquee math menu menubar menuitem
  menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation
  progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox
  separator slider spinbutton status strong subscript superscript switch tab table tablist
  tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem
`);
export const INTERACTIVE = roleSet(`
  button link textbox searchbox checkbox radio combobox listbox option menuitem
  menuitemcheckbox menuitemradio tab switch slider spinbutton treeitem
`);
// Roles whose children are summarised by the node's own name and value.
export const LEAF = roleSet(`
  button link textbox searchbox checkbox radio option img menuitem menuitemcheckbox
  menuitemradio tab switch slider spinbutton heading separator progressbar meter
`);
// ARIA's roles named from their content, and a few containers the tree reads better with.
export const NAME_FROM_CONTENT = roleSet(`
  button link heading cell gridcell columnheader rowheader option menuitem
  menuitemcheckbox menuitemradio tab checkbox radio switch treeitem tooltip listitem row
  status alert
`);
export const EMIT = new Set([
  ...INTERACTIVE,
  ...LEAF,
  ...roleSet(`
    navigation main banner contentinfo complementary form dialog alertdialog list listitem
    table row cell columnheader rowheader paragraph group region alert status menu menubar
    tablist tabpanel toolbar tree grid gridcell log article radiogroup iframe
  `),
]);
const NATIVELY_FOCUSABLE =
  "a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable]";

const implicitRole = (el) => {
  if (el.tagName === "INPUT") {
    if (el.type === "hidden") return null;
    const role = INPUT_ROLES[el.type] || "textbox";
    return el.hasAttribute("list") && (role === "textbox" || role === "searchbox")
      ? "combobox"
      : role;
  }
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable))
    return "textbox";
  const byTag = TAG_ROLES[el.tagName];
  return byTag ? byTag(el) : null;
};

// A role attribute's role: its first token that is a concrete role, "image" read as
// "img", undefined when it has none, null when the element is to have none.
const roleToken = (el, value) => {
  const explicit = value
    .trim()
    .split(/\s+/)
    .find((token) => ARIA_ROLES.has(token));
  if (explicit === "none" || explicit === "presentation") {
    // A focusable element keeps its role: presentation cannot take it away (ARIA 1.2).
    return el.matches(NATIVELY_FOCUSABLE) ? implicitRole(el) : null;
  }
  if (explicit === "generic") return null;
  return explicit === "image" ? "img" : explicit;
};

export const roleOf = (el) => {
  const attr = el.getAttribute("role");
  const explicit = attr ? roleToken(el, attr) : undefined;
  if (explicit !== undefined) return explicit;
  const implicit = implicitRole(el);
  if (implicit !== null) return implicit;
  const internal = internalsOf(el).role; // a custom element's default semantics
  return internal ? (roleToken(el, internal) ?? null) : null;
};

// --- a custom element's semantics from ElementInternals ----------------------------
// A component may set its host's role, label and states there (Fluent UI 3 does), as
// default semantics that the host's ARIA attributes override. Only the page's world can
// read them (js/page_hooks.js): a pass asks once for every host of its document; a
// single element (a frame's, or outside a pass) is asked about on its own.
let internalsCache = null; // host -> semantics, for one pass
const NO_INTERNALS = Object.freeze({});
const askInternals = (view, target) => {
  const found = new Map();
  const hear = (event) => {
    found.set(event.composedPath()[0], event.detail || NO_INTERNALS);
  };
  view.addEventListener("webharness:internals", hear, true);
  target.dispatchEvent(new CustomEvent("webharness:internals?", { bubbles: true, composed: true }));
  view.removeEventListener("webharness:internals", hear, true);
  return found;
};
export const internalsOf = (el) => {
  if (!el.localName.includes("-")) return NO_INTERNALS; // only custom elements have them
  if (internalsCache && el.ownerDocument === document)
    return internalsCache.get(el) || NO_INTERNALS;
  return askInternals(el.ownerDocument.defaultView, el).get(el) || NO_INTERNALS;
};
// An ARIA property (``name`` without "aria-"): the attribute, else the internals' value.
export const ariaOf = (el, name) => {
  const value = el.getAttribute("aria-" + name);
  return value !== null ? value : (internalsOf(el)[name] ?? null);
};

export const squash = (text) => (text || "").replace(/\s+/g, " ").trim();

// What one pass asks of an element's style, remembered for that pass only: whether it is
// hidden from the accessibility tree by its own style or attributes (an ancestor's are
// the walk's business) and whether it flows inline (names join inline text unspaced).
let styleCache = null;
const SKIPPED_TAGS = new Set([
  "TEMPLATE",
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "HEAD",
  "TITLE",
  "META",
  "LINK",
]);
export const styleOf = (el) => {
  const known = styleCache && styleCache.get(el);
  if (known) return known;
  const info = computeStyleInfo(el);
  if (styleCache) styleCache.set(el, info);
  return info;
};
// A snapshot pass (snapshot.js) remembers each element's style and internals, from its
// start to its end.
export const startStylePass = () => {
  styleCache = new Map();
  internalsCache = askInternals(window, window);
};
export const endStylePass = () => {
  styleCache = null;
  internalsCache = null;
};
const computeStyleInfo = (el) => {
  if (
    SKIPPED_TAGS.has(el.tagName) ||
    el.getAttribute("aria-hidden") === "true" ||
    el.inert ||
    el.getAttribute("hidden") === "until-found"
  ) {
    return { hidden: true, inline: false, style: null };
  }
  // Each property read of a computed style costs; read each once, the rest when asked.
  const style = el.ownerDocument.defaultView.getComputedStyle(el);
  const display = style.display;
  if (display === "none") return { hidden: true, inline: false, style };
  const visibility = style.visibility;
  const hidden = visibility === "hidden" || visibility === "collapse";
  return { hidden, inline: display.startsWith("inline") || display === "contents", style };
};
export const isHidden = (el) => styleOf(el).hidden;

// Hidden by itself or by any flat-tree ancestor (a label looked up by id, an acted-on
// element): what the walk would have skipped.
export const isHiddenDeep = (el) => {
  for (let n = el; n && n.nodeType === Node.ELEMENT_NODE; n = flatParent(n)) {
    if (isHidden(n)) return true;
    const parent = flatParent(n);
    if (parent && parent.tagName === "DETAILS" && !parent.open && !isSummaryOf(parent, n))
      return true;
  }
  return false;
};
const isSummaryOf = (details, el) =>
  el.tagName === "SUMMARY" && details.querySelector(":scope > summary") === el;

// The children a walk enters: a closed <details> shows only its summary.
export const visibleChildren = (el) => {
  if (el.tagName === "DETAILS" && !el.open) {
    const summary = el.querySelector(":scope > summary");
    return summary ? [summary] : EMPTY;
  }
  return flatChildren(el);
};
