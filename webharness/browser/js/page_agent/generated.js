// --- generated content: the text of ::before and ::after ---------------------------
// Chromium names with it (a required field's " *", an icon font's glyph). Asking every
// element for its pseudo-elements' style would double a pass, so each tree scope's style
// sheets are read once for the rules that can generate text, and only the elements those
// rules' selectors match are asked. A sheet that cannot be read (another origin) leaves
// its scope asking every element.
import { EMPTY } from "./tree.js";
import { styleOf } from "./roles.js";

const PSEUDO = /::?(before|after)\b/g;
const sheetRules = new WeakMap(); // sheet -> { count, selectors } (null: unreadable)
const scopeRules = new WeakMap(); // document or shadow root -> selector list or null, per pass
let scopePass = 0;
export const startRulesPass = () => {
  scopePass += 1;
}; // each snapshot pass reads the rules afresh

const generatingSelectors = (sheet) => {
  let rules;
  try {
    rules = sheet.cssRules;
  } catch {
    return null;
  }
  const known = sheetRules.get(sheet);
  if (known && known.count === rules.length) return known.selectors;
  const selectors = [];
  const scan = (list) => {
    for (const rule of list) {
      if (rule.cssRules && !rule.selectorText) {
        scan(rule.cssRules);
        continue;
      }
      if (!rule.selectorText || !rule.style) continue;
      const content = rule.style.getPropertyValue("content");
      if (
        !content ||
        content === "none" ||
        content === "normal" ||
        content === '""' ||
        content === "''"
      )
        continue;
      for (const selector of rule.selectorText.split(",")) {
        if (PSEUDO.test(selector)) selectors.push(selector.replace(PSEUDO, "").trim() || "*");
        PSEUDO.lastIndex = 0;
      }
    }
  };
  scan(rules);
  sheetRules.set(sheet, { count: rules.length, selectors });
  return selectors;
};

// The selectors (pseudo-elements stripped) that may give ``root``'s elements generated
// text; null when a sheet could not be read.
const selectorsOf = (root) => {
  const known = scopeRules.get(root);
  if (known && known.pass === scopePass) return known.selectors;
  let selectors = [];
  for (const sheet of [...(root.styleSheets || EMPTY), ...(root.adoptedStyleSheets || EMPTY)]) {
    const found = generatingSelectors(sheet);
    if (found === null) {
      selectors = null;
      break;
    }
    selectors.push(...found);
  }
  scopeRules.set(root, { pass: scopePass, selectors });
  return selectors;
};

const mayGenerate = (el) => {
  const selectors = selectorsOf(el.getRootNode());
  if (selectors === null) return true;
  for (const selector of selectors) {
    try {
      if (el.matches(selector)) return true;
    } catch {
      return true;
    } // :host(...) and the like
  }
  return false;
};

export const generated = (el, pseudo) => {
  const info = styleOf(el);
  const key = pseudo === "::before" ? "before" : "after";
  if (info[key] === undefined) {
    if (info.generates === undefined) info.generates = mayGenerate(el);
    const style = info.generates ? el.ownerDocument.defaultView.getComputedStyle(el, pseudo) : null;
    // Hidden generated text names nothing (a tab's bold copy, kept only for its width).
    const shown = style && style.visibility === "visible" && style.display !== "none";
    const content = shown ? style.content : "";
    info[key] =
      !content || content === "none" || content === "normal"
        ? ""
        : Array.from(content.matchAll(/"((?:[^"\\]|\\.)*)"/g), (m) =>
            m[1].replace(/\\(.)/g, "$1"),
          ).join("");
  }
  return info[key];
};
