// Id-randomisation perturbation, in-page half: elements the page creates after it
// loaded (and, on external sites, whose HTML the harness does not rewrite, the whole
// document) get random ids where they have none, and random values for test hooks
// (data-testid and the like). Existing ids and classes are never renamed here: the
// page's scripts may look them up, and only the HTML rewrite can tell which they use.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const KEY = Symbol.for("webharness.perturb.id_randomization");
  if (window[KEY]) return;
  Object.defineProperty(window, KEY, { value: true, enumerable: false });
  const random = P.rng(config.seed);
  const SKIP = new Set([
    "HTML",
    "HEAD",
    "BODY",
    "SCRIPT",
    "STYLE",
    "META",
    "LINK",
    "TITLE",
    "TEMPLATE",
    "NOSCRIPT",
    "BASE",
  ]);
  const seen = new WeakSet();
  const token = (prefix) =>
    prefix +
    Math.floor(random() * 0xfffffff)
      .toString(16)
      .padStart(7, "0");

  const touch = (el) => {
    if (seen.has(el) || SKIP.has(el.tagName) || P.isOwned(el)) return;
    seen.add(el);
    if (!el.id && random() < config.share) el.id = token("n");
    if (!config.renameHooks) return;
    for (const attr of config.hookAttrs)
      if (el.hasAttribute(attr) && random() < config.share) el.setAttribute(attr, token("t"));
  };
  const touchTree = (root) => {
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    touch(root);
    for (const el of root.querySelectorAll("*")) touch(el);
  };

  P.whenLoaded(() => {
    if (config.renameHooks) touchTree(document.body || document.documentElement);
    new MutationObserver((records) => {
      for (const r of records) r.addedNodes.forEach(touchTree);
    }).observe(document.documentElement, { subtree: true, childList: true });
  });
};
