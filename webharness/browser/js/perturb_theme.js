// Theme perturbation: the same site in another skin. A palette and font (through the
// shared look's CSS variables, plus a few generic rules), optionally a different layout,
// sections in another order, and text buttons turned into icon buttons whose accessible
// name is unchanged (the text stays, visually hidden; the icon is aria-hidden). Roles
// and names never change: only how the page looks and where things are.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const p = config.palette;
  let css = `html:root { --bg: ${p.bg}; --panel: ${p.panel}; --ink: ${p.ink}; --muted: ${p.muted}; --line: ${p.line};
    --brand: ${p.brand}; --brand-ink: ${p.brandInk}; --radius: ${p.radius}; }
  html body { background: ${p.bg} !important; font-family: ${p.font} !important; }
  body > header, .topbar { background: ${p.header} !important; color: ${p.headerInk} !important; }
  body > header a, .topbar a, .topbar .user { color: ${p.headerInk} !important; }
  button, .button { border-radius: ${p.buttonRadius} !important; }
  .panel { border-radius: ${p.radius} !important; }\n`;
  if (config.layout) {
    css += `html body { font-size: 16px !important; line-height: 1.6 !important; }
    main { max-width: 1020px !important; padding-top: 36px !important; }
    .page-head, body > header, .topbar { flex-direction: row-reverse !important; }
    .form-actions { justify-content: flex-start !important; }
    .panel { padding: 26px !important; box-shadow: none !important; border-width: 2px !important; }
    h1 { font-size: 28px !important; letter-spacing: -.01em; }\n`;
  }
  css += `[data-wh-icon] > [aria-hidden] { pointer-events: none; font-size: 1.15em; line-height: 1; }
  [data-wh-icon] > .wh-text { position: absolute !important; width: 1px !important; height: 1px !important; overflow: hidden !important;
    clip: rect(0 0 0 0) !important; white-space: nowrap !important; pointer-events: none; }\n`;
  P.addStyle(css, "theme");

  const ICONS = {
    save: "⬇",
    store: "⬇",
    keep: "⬇",
    delete: "✖",
    remove: "✖",
    erase: "✖",
    search: "⚲",
    find: "⚲",
    look: "⚲",
    close: "✕",
    dismiss: "✕",
    add: "✚",
    new: "✚",
    create: "✚",
    send: "➤",
    post: "➤",
    dispatch: "➤",
    submit: "➤",
    archive: "▤",
    stow: "▤",
    shelve: "▤",
    edit: "✎",
    modify: "✎",
    change: "✎",
    cancel: "↶",
    discard: "↶",
    compose: "✉",
    write: "✉",
    reply: "↩",
    sign: "→",
    log: "→",
    verify: "✓",
    confirm: "✓",
    approve: "✓",
    next: "›",
    continue: "›",
    proceed: "›",
    back: "‹",
    return: "‹",
    settings: "⚙",
  };
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();

  const iconise = (button) => {
    if (button.hasAttribute("data-wh-icon") || P.isOwned(button) || button.children.length) return;
    const role = button.getAttribute("role");
    if (role && role !== "button") return;
    const text = squash(button.textContent);
    const icon =
      ICONS[
        text
          .split(" ")[0]
          .replace(/[^A-Za-z]/g, "")
          .toLowerCase()
      ];
    if (!icon || text.split(" ").length > 4) return;
    const label = document.createElement("span");
    label.className = "wh-text";
    label.append(...button.childNodes);
    const glyph = document.createElement("span");
    glyph.setAttribute("aria-hidden", "true");
    glyph.setAttribute(P.OWNED, "theme");
    glyph.textContent = icon;
    button.setAttribute("data-wh-icon", "");
    if (!button.title) button.title = text;
    button.append(glyph, label);
  };

  // A button whose text the page replaced loses its icon: give it back.
  const refresh = (button) => {
    if (button.hasAttribute("data-wh-icon") && !button.querySelector(":scope > .wh-text"))
      button.removeAttribute("data-wh-icon");
    iconise(button);
  };

  const reorder = () => {
    const random = P.rng(config.seed);
    const parents = new Set(
      [...document.querySelectorAll("body section, body article")].map((s) => s.parentElement),
    );
    for (const parent of parents) {
      if (!parent || P.isOwned(parent)) continue;
      const slots = [...parent.children].filter(
        (c) => c.tagName === "SECTION" || c.tagName === "ARTICLE",
      );
      if (slots.length < 2) continue;
      const order = slots
        .map((s, i) => [random(), i])
        .sort((a, b) => a[0] - b[0])
        .map(([, i]) => i);
      if (order.every((i, k) => i === k)) order.reverse();
      const markers = slots.map((s) => {
        const m = document.createComment("");
        s.before(m);
        return m;
      });
      order.forEach((from, k) => markers[k].replaceWith(slots[from]));
    }
  };

  P.whenLoaded(() => {
    if (config.reorder) reorder();
    if (!config.icons) return;
    document.querySelectorAll("button, [role=button]").forEach(iconise);
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
        const host = el && el.closest("button, [role=button]");
        if (host) refresh(host);
        for (const node of r.addedNodes) {
          if (node.nodeType === Node.ELEMENT_NODE && !P.isOwned(node))
            node.querySelectorAll("button, [role=button]").forEach(refresh);
          if (node.nodeType === Node.ELEMENT_NODE && node.matches("button, [role=button]"))
            refresh(node);
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
};
