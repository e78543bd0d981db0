// A digest of what a script can change on a page: its URL and title, the value and
// checked state of every form control, how many elements it has and how much text.
// Run between the steps of an agent that drives the browser itself (CDP): a script of
// its that changed the digest changed the page, and is a step of its own.
//
// The overlays an agent draws over the page for itself are left out: they change
// nothing of the page's, and the agent removes them again. browser-use outlines the
// element it is about to act on (for a second) and numbers the elements it shows its
// model, each time with a script of its own.
() => {
  const OVERLAYS = [
    "[data-browser-use-highlight]",
    "[data-browser-use-interaction-highlight]",
    "[data-browser-use-coordinate-highlight]",
  ].join(", ");
  let hash = 7;
  const add = (text) => {
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  };
  add(`${location.href}|${document.title}|`);
  for (const control of document.querySelectorAll("input, select, textarea")) {
    add(`${control.value}|${control.checked ? 1 : 0}|`);
  }
  let elements = document.getElementsByTagName("*").length;
  let text = document.body ? document.body.textContent.length : 0;
  for (const overlay of document.querySelectorAll(OVERLAYS)) {
    if (overlay.parentElement && overlay.parentElement.closest(OVERLAYS)) continue; // its root's
    elements -= 1 + overlay.getElementsByTagName("*").length;
    if (document.body && document.body.contains(overlay)) text -= overlay.textContent.length;
  }
  add(`${elements}|${text}`);
  return hash;
};
