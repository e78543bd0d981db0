// --- a control's value and states (ARIA 1.2, HTML-AAM) -----------------------------
import { flatClosest } from "./tree.js";
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
