// A digest of what a script can change on a page: its URL and title, the value and
// checked state of every form control, how many elements it has and how much text.
// Run between the steps of an agent that drives the browser itself (CDP): a script of
// its that changed the digest changed the page, and is a step of its own.
() => {
  let hash = 7;
  const add = (text) => {
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  };
  add(`${location.href}|${document.title}|`);
  for (const control of document.querySelectorAll("input, select, textarea")) {
    add(`${control.value}|${control.checked ? 1 : 0}|`);
  }
  add(`${document.getElementsByTagName("*").length}|`);
  add(`${document.body ? document.body.textContent.length : 0}`);
  return hash;
};
