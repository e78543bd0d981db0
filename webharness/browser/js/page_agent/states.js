// --- a control's value and states (ARIA 1.2, HTML-AAM) -----------------------------
import { byIdIn, flatClosest } from "./tree.js";
import { ariaOf, internalsOf, squash } from "./roles.js";
import { textOf } from "./names.js";

export const valueOf = (el, role) => {
  if (el.tagName === "INPUT") {
    if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].includes(el.type))
      return null;
    return el.type === "password" ? "•".repeat(el.value.length) : el.value;
  }
  if (el.tagName === "TEXTAREA") return el.value;
  if (el.tagName === "SELECT")
    return Array.from(el.selectedOptions)
      .map((o) => squash(o.textContent))
      .join(", ");
  if (role === "textbox" && el.isContentEditable) return squash(el.innerText);
  if (role === "combobox") return squash(ariaOf(el, "valuetext") || el.value || textOf(el));
  if (role === "slider" || role === "spinbutton") return ariaOf(el, "valuenow");
  return null;
};

export const boolAttr = (el, name) => {
  const v = name.startsWith("aria-") ? ariaOf(el, name.slice(5)) : el.getAttribute(name);
  return v === null ? null : v === "true" || v === "mixed";
};

export const checkedOf = (el, role) => {
  if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return el.checked;
  if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role))
    return boolAttr(el, "aria-checked") ?? false;
  return null;
};

export const disabledOf = (el) => {
  if (el.disabled) return true;
  if (flatClosest(el, "[aria-disabled='true']") || internalsOf(el).disabled === "true") return true;
  const fieldset = flatClosest(el, "fieldset[disabled]");
  return Boolean(fieldset && !fieldset.querySelector(":scope > legend")?.contains(el));
};

// The error a field shows. When the app flags it (aria-invalid), the app's own words: the
// element its aria-errormessage names, its description (aria-describedby: the parts
// named like an error, else all), or an error list beside it (a .errorlist, .error,
// .invalid-feedback... in the field's own container); else the browser's constraint
// message (present from load on an untouched required field: not the app's verdict).
const MAX_ERROR = 300;
const ERRORISH = /error|invalid/i;
const CONTROLS = "input:not([type=hidden]),select,textarea";
const referenced = (el, attribute) =>
  (el.getAttribute(attribute) || "")
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => byIdIn(el, id))
    .filter((node) => node && node !== el);
const described = (el) => {
  const parts = referenced(el, "aria-describedby");
  const errors = parts.filter((node) => ERRORISH.test(node.id) || ERRORISH.test(node.className));
  return (errors.length ? errors : parts).map(textOf).filter(Boolean).join(" ");
};
const besideIt = (el) => {
  let box = el.parentElement;
  for (let depth = 0; box && depth < 3 && !/^(FORM|FIELDSET|BODY)$/.test(box.tagName); depth++) {
    if (box.querySelectorAll(CONTROLS).length > 1) return ""; // another field's container
    const found = Array.from(box.querySelectorAll("[class],[id]")).find(
      (node) =>
        !node.contains(el) &&
        (ERRORISH.test(node.className) || ERRORISH.test(node.id)) &&
        textOf(node),
    );
    if (found) return textOf(found);
    box = box.parentElement;
  }
  return "";
};
export const errorTextOf = (el, flagged) => {
  const own = flagged
    ? referenced(el, "aria-errormessage").map(textOf).join(" ") || described(el) || besideIt(el)
    : "";
  const text = own || el.validationMessage || el.getAttribute("aria-errormessage-text") || "";
  return text.slice(0, MAX_ERROR);
};
