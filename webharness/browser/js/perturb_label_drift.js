// Label-drift perturbation: the words on buttons and links change to synonyms ("Save
// contact" becomes "Store contact"), in the text, the aria-label and the value of submit
// inputs, for the first page and for everything the page adds later. The mapping is
// decided in Python; the same single-pass replacement runs there for the oracle.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  if (!config.pairs.length) return;
  const targetOf = new Map(config.pairs.map(([from, to]) => [from.toLowerCase(), to]));
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const alternatives = config.pairs
    .map(([from]) => from)
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");
  const WORDS = new RegExp(`(?<![A-Za-z])(${alternatives})(?![A-Za-z])`, "gi");
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim().toLowerCase();
  const kept = new Set(config.protected.map(squash));

  const matchCase = (found, target) => {
    if (found.length > 1 && found === found.toUpperCase()) return target.toUpperCase();
    const first =
      found[0] === found[0].toUpperCase() ? target[0].toUpperCase() : target[0].toLowerCase();
    return first + target.slice(1);
  };
  const drift = (text) =>
    text.replace(WORDS, (found) => matchCase(found, targetOf.get(found.toLowerCase())));

  const CANDIDATES =
    "button, a[href], [role=button], [role=link], " +
    "input[type=submit], input[type=button], input[type=reset]";
  // Only elements whose role is button or link: tabs, menu items and options keep their names.
  const isTarget = (el) => {
    const role = (el.getAttribute("role") || "").trim();
    return (
      (!role || role === "button" || role === "link") &&
      !P.isOwned(el) &&
      !kept.has(squash(el.getAttribute("aria-label") || el.textContent || el.value))
    );
  };

  const written = new WeakMap(); // node -> what we last wrote there, so a rewrite is not redone
  const rewriteText = (node) => {
    if (written.get(node) === node.data) return;
    const host = node.parentElement && node.parentElement.closest(CANDIDATES);
    if (!host || !isTarget(host)) return;
    const next = drift(node.data);
    if (next !== node.data) node.data = next;
    written.set(node, next);
  };
  const rewriteAttributes = (el) => {
    if (!el.matches(CANDIDATES) || !isTarget(el)) return;
    const done = written.get(el) || {};
    const label = el.getAttribute("aria-label");
    if (label && done.label !== label) {
      done.label = drift(label);
      if (done.label !== label) el.setAttribute("aria-label", done.label);
    }
    if (el.tagName === "INPUT" && el.value && done.value !== el.value) {
      done.value = drift(el.value);
      if (done.value !== el.value) el.value = done.value;
    }
    written.set(el, done);
  };
  const rewriteTree = (root) => {
    if (root.nodeType === Node.TEXT_NODE) {
      rewriteText(root);
      return;
    }
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    rewriteAttributes(root);
    for (const el of root.querySelectorAll(CANDIDATES)) rewriteAttributes(el);
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) rewriteText(node);
  };

  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "childList") r.addedNodes.forEach(rewriteTree);
      else if (r.type === "characterData") rewriteText(r.target);
      else if (r.target.nodeType === Node.ELEMENT_NODE) rewriteAttributes(r.target);
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["aria-label", "value"],
  });
};
