// --- roles and names ---------------------------------------------------------------
const INPUT_ROLES = {
  button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox",
  radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", email: "textbox",
  tel: "textbox", text: "textbox", url: "textbox", password: "textbox", date: "textbox",
  "datetime-local": "textbox", month: "textbox", time: "textbox", week: "textbox", "": "textbox",
};
const TAG_ROLES = {
  A: (el) => (el.hasAttribute("href") ? "link" : null), BUTTON: () => "button", SUMMARY: () => "button",
  H1: () => "heading", H2: () => "heading", H3: () => "heading", H4: () => "heading", H5: () => "heading", H6: () => "heading",
  TEXTAREA: () => "textbox", SELECT: (el) => (el.multiple || el.size > 1 ? "listbox" : "combobox"),
  OPTION: () => "option", IMG: (el) => (el.getAttribute("alt") === "" ? null : "img"),
  NAV: () => "navigation", MAIN: () => "main", HEADER: (el) => (el.closest("article,aside,main,nav,section") ? null : "banner"),
  FOOTER: (el) => (el.closest("article,aside,main,nav,section") ? null : "contentinfo"), ASIDE: () => "complementary",
  FORM: () => "form", DIALOG: () => "dialog", UL: () => "list", OL: () => "list", LI: () => "listitem",
  TABLE: () => "table", TR: () => "row", TD: () => "cell", TH: (el) => (el.scope === "row" ? "rowheader" : "columnheader"),
  P: () => "paragraph", FIELDSET: () => "group", SECTION: (el) => (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null),
  PROGRESS: () => "progressbar", LABEL: () => null, OUTPUT: () => "status", HR: () => "separator",
};
const INTERACTIVE = new Set(["button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
  "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem"]);
// Roles whose children are summarised by the node's own name and value.
const LEAF = new Set(["button", "link", "textbox", "searchbox", "checkbox", "radio", "option", "img", "menuitem",
  "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "heading", "separator", "progressbar"]);
const NAME_FROM_CONTENT = new Set(["button", "link", "heading", "cell", "columnheader", "rowheader", "option", "menuitem",
  "menuitemcheckbox", "menuitemradio", "tab", "checkbox", "radio", "switch", "treeitem", "listitem", "row", "tooltip", "status", "alert"]);
const EMIT = new Set([...INTERACTIVE, ...LEAF, "navigation", "main", "banner", "contentinfo", "complementary", "form",
  "dialog", "alertdialog", "list", "listitem", "table", "row", "cell", "columnheader", "rowheader", "paragraph", "group",
  "region", "alert", "status", "menu", "menubar", "tablist", "tabpanel", "toolbar", "tree", "grid", "gridcell", "log", "article"]);

const roleOf = (el) => {
  const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
  if (explicit && explicit !== "none" && explicit !== "presentation" && explicit !== "generic") return explicit;
  if (explicit) return null;
  if (el.tagName === "INPUT") return el.type === "hidden" ? null : (INPUT_ROLES[el.type] || "textbox");
  if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
  const byTag = TAG_ROLES[el.tagName];
  return byTag ? byTag(el) : null;
};

const squash = (text) => (text || "").replace(/\s+/g, " ").trim();

// Within one snapshot pass an element's visibility is asked for several times (its own
// node, then the names of its ancestors); remember the answers for that pass only.
let hiddenCache = null;
const isHidden = (el) => {
  const known = hiddenCache && hiddenCache.get(el);
  if (known !== undefined && known !== null) return known;
  const hidden = computeHidden(el);
  if (hiddenCache) hiddenCache.set(el, hidden);
  return hidden;
};
const computeHidden = (el) => {
  if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
  if (el.tagName === "TEMPLATE" || el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "NOSCRIPT") return true;
  const style = getComputedStyle(el);
  return style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse";
};

const textOf = (node) => {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE || isHidden(node)) return "";
  if (node.tagName === "INPUT" || node.tagName === "SELECT" || node.tagName === "TEXTAREA") return "";
  if (node.tagName === "IMG") return node.getAttribute("alt") || "";
  const label = node.getAttribute("aria-label");
  if (label) return label;
  let out = "";
  for (const child of node.childNodes) out += " " + textOf(child);
  return out;
};

const labelText = (el) => {
  const parts = [];
  if (el.id) for (const label of document.querySelectorAll(`label[for="${CSS.escape(el.id)}"]`)) parts.push(textOf(label));
  const wrapping = el.closest("label");
  if (wrapping) parts.push(textOf(wrapping));
  return squash(parts.join(" "));
};

const nameOf = (el, role) => {
  const labelledBy = el.getAttribute("aria-labelledby");
  if (labelledBy) {
    const text = squash(labelledBy.split(/\s+/).map((id) => { const t = document.getElementById(id); return t ? textOf(t) : ""; }).join(" "));
    if (text) return text;
  }
  const aria = squash(el.getAttribute("aria-label"));
  if (aria) return aria;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) || role === "textbox" || role === "combobox") {
    const label = labelText(el);
    if (label) return label;
    if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return squash(el.value || el.type);
  }
  if (el.tagName === "IMG") return squash(el.getAttribute("alt"));
  if (el.tagName === "FIELDSET") { const legend = el.querySelector("legend"); if (legend) return squash(textOf(legend)); }
  if (el.tagName === "TABLE") { const caption = el.querySelector("caption"); if (caption) return squash(textOf(caption)); }
  if (NAME_FROM_CONTENT.has(role)) { const text = squash(textOf(el)); if (text) return text.slice(0, 200); }
  return squash(el.getAttribute("title") || el.getAttribute("placeholder") || "");
};

const valueOf = (el, role) => {
  if (el.tagName === "INPUT") {
    if (["checkbox", "radio", "button", "submit", "reset", "image"].includes(el.type)) return null;
    return el.type === "password" ? "•".repeat(el.value.length) : el.value;
  }
  if (el.tagName === "TEXTAREA") return el.value;
  if (el.tagName === "SELECT") return Array.from(el.selectedOptions).map((o) => squash(o.textContent)).join(", ");
  if (role === "textbox" && el.isContentEditable) return squash(el.innerText);
  if (role === "combobox") return squash(el.getAttribute("aria-valuetext") || el.value || textOf(el));
  if (role === "slider" || role === "spinbutton") return el.getAttribute("aria-valuenow");
  return null;
};

const boolAttr = (el, name) => {
  const v = el.getAttribute(name);
  return v === null ? null : v === "true" || v === "mixed";
};

const checkedOf = (el, role) => {
  if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return el.checked;
  if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) return boolAttr(el, "aria-checked") ?? false;
  return null;
};

const disabledOf = (el) => {
  if (el.disabled) return true;
  if (el.closest("[aria-disabled='true']")) return true;
  const fieldset = el.closest("fieldset[disabled]");
  return Boolean(fieldset && !fieldset.querySelector("legend")?.contains(el));
};
