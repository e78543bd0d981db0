// DOM-replacement perturbation: parts of the page are torn down and rebuilt with equal
// content, so element references (the agent's refs) taken before go stale. What is
// rebuilt is chosen to keep the site working: the items of lists, table bodies, menus
// and navigations whose whole subtree has no behaviour of its own (no listener added
// through addEventListener, tracked from before the page's scripts ran, and no on*
// handler), no id (scripts look those up), no form control whose state a clone could
// lose, no focus. Such items are replaced by deep clones, which behave the same:
// delegated listeners on the container, links and submit buttons keep working.
() => {
  const P = window[Symbol.for("webharness.perturb")];
  const KEY = Symbol.for("webharness.perturb.dom_replacement");
  if (window[KEY]) return;

  const listened = new WeakSet();
  const addListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (...args) {
    if (this instanceof Node) listened.add(this);
    return addListener.apply(this, args);
  };

  const HANDLERS = [
    "onclick",
    "onchange",
    "oninput",
    "onkeydown",
    "onkeyup",
    "onkeypress",
    "onsubmit",
    "onmousedown",
    "onmouseup",
    "onpointerdown",
    "onpointerup",
    "onfocus",
    "onblur",
    "ondblclick",
    "oncontextmenu",
  ];
  const hasBehaviour = (el) =>
    listened.has(el) || HANDLERS.some((h) => typeof el[h] === "function");
  const UNSAFE =
    "[id], select, textarea, canvas, iframe, video, audio, object, embed, script, " +
    "[contenteditable], input[type=file]";
  const CONTAINERS =
    "ul, ol, tbody, nav, [role=list], [role=listbox], [role=rowgroup], [role=grid], " +
    "[role=tree], [role=menu], " +
    "[role=menubar], [role=tablist], [role=toolbar]";

  const eligible = (item) => {
    if (
      P.isOwned(item) ||
      item.matches(UNSAFE) ||
      item.querySelector(UNSAFE) ||
      item.contains(document.activeElement)
    )
      return false;
    if (hasBehaviour(item)) return false;
    for (const el of item.querySelectorAll("*")) {
      if (hasBehaviour(el) || el.shadowRoot || el.tagName.includes("-")) return false;
    }
    return true;
  };

  const describe = (container) => {
    const tag = container.tagName.toLowerCase();
    const owner = tag === "tbody" ? container.closest("table") : container;
    const label = (owner && (owner.getAttribute("aria-label") || "")) || "";
    return label ? `${tag} "${label}"` : tag;
  };

  // Replaces the eligible items of one container at random, and of each other one with
  // probability `share`; returns what was replaced.
  const replace = (seed, share) => {
    const random = P.rng(seed);
    const parts = [];
    for (const container of document.querySelectorAll(CONTAINERS)) {
      if (P.isOwned(container) || !container.getClientRects().length) continue;
      const items = [...container.children].filter(eligible);
      if (items.length) parts.push({ container, items });
    }
    if (!parts.length) return [];
    const first = Math.floor(random() * parts.length);
    const chosen = parts.filter((part, i) => i === first || random() < share);
    const done = [];
    for (const { container, items } of chosen) {
      if (!container.isConnected) continue; // inside an item replaced just before
      const live = items.filter((item) => item.isConnected && item.parentElement === container);
      for (const item of live) item.replaceWith(item.cloneNode(true));
      if (live.length) done.push({ container: describe(container), items: live.length });
    }
    return done;
  };

  Object.defineProperty(window, KEY, { value: Object.freeze({ replace }), enumerable: false });
};
