// --- the one-pass snapshot ----------------------------------------------------------
const quote = (s) => toJSON(s);
const MAX_TEXT = 20000;

const snapshot = (options) => {
  hiddenCache = new Map();
  try { return snapshotPass(options); } finally { hiddenCache = null; }
};

// The observation's budget, in tree lines: past half of it the walk keeps to what the
// viewport shows (scrolling brings the rest in); at the budget it stops, and the tree says
// how much it left out. Bounds a huge page's pass (50,000 buttons) and its result alike.
const DEFAULT_MAX_LINES = 5000;
const onScreen = (el, vw, vh) => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return true; // no box of its own: its children may have
  return r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
};

// With ``scopes`` (a task that looks ``within`` an ancestor, or counts by role), each
// element says which node it is in, and the nodes that are not elements (lists, items,
// rows, regions, headings...) are listed with theirs: ``state.nodes``.
const snapshotPass = ({ minRef = 1, maxLines = DEFAULT_MAX_LINES, scopes = false } = {}) => {
  state.nextRef = Math.max(state.nextRef, minRef);
  let walked = 0; // elements looked at (shown, hidden or skipped off screen)
  const lines = [];
  const elements = [];
  const headings = [];
  const alerts = [];
  const dialogs = [];
  const nodes = [];
  const vw = window.innerWidth, vh = window.innerHeight;

  const visit = (node, depth, scope) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = squash(node.textContent);
      if (text) lines.push({ depth, text: "- text: " + text, isText: true });
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || lines.length >= maxLines) return;
    if (lines.length >= maxLines / 2 && !onScreen(node, vw, vh)) return;
    walked += 1;
    if (isHidden(node)) return;
    const el = node;
    const role = roleOf(el);
    if (!role || !EMIT.has(role)) {
      for (const child of el.childNodes) visit(child, depth, scope);
      if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) visit(child, depth, scope);
      return;
    }
    const ref = refFor(el);
    const name = nameOf(el, role);
    const value = valueOf(el, role);
    const checked = checkedOf(el, role);
    const disabled = disabledOf(el);
    const expanded = boolAttr(el, "aria-expanded") ?? (el.tagName === "DETAILS" ? el.open : null);
    const selected = el.tagName === "OPTION" ? el.selected : boolAttr(el, "aria-selected");
    const required = Boolean(el.required || el.getAttribute("aria-required") === "true");
    const invalid = el.getAttribute("aria-invalid") === "true" || (el.willValidate && el.dataset.touched === "true" && !el.checkValidity());
    const level = role === "heading" ? Number(el.getAttribute("aria-level") || el.tagName.slice(1)) || 2 : null;

    let line = "- " + role + (name ? " " + quote(name) : "");
    if (checked === true) line += " [checked]";
    if (disabled) line += " [disabled]";
    if (expanded !== null) line += expanded ? " [expanded]" : "";
    if (level) line += ` [level=${level}]`;
    if (selected) line += " [selected]";
    if (required && INTERACTIVE.has(role)) line += " [required]";
    if (invalid) line += " [invalid]";
    line += ` [ref=${ref}]`;
    const leaf = LEAF.has(role);
    if (value !== null && value !== undefined && value !== "") line += ": " + (leaf || role === "combobox" ? quote(value) : value);
    const start = lines.length;
    lines.push({ depth, text: line });

    if (role === "heading") headings.push({ level, text: name });
    if ((role === "alert" || role === "status" || el.getAttribute("aria-live") === "assertive") && squash(textOf(el))) alerts.push(squash(textOf(el)).slice(0, 300));
    if ((role === "dialog" || role === "alertdialog") && (el.tagName !== "DIALOG" || el.open)) dialogs.push(name);
    const tabbable = el.tabIndex >= 0 && el.hasAttribute("tabindex");
    if (INTERACTIVE.has(role) || tabbable) {
      const r = el.getBoundingClientRect();
      const element = {
        ref, role, name, value: value ?? null, checked, selected: selected ?? null, disabled, expanded,
        required, invalid: Boolean(invalid), validation_message: el.validationMessage || el.getAttribute("aria-errormessage-text") || "",
        bbox: [r.x, r.y, r.width, r.height],
        in_viewport: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw,
      };
      const current = el.getAttribute("aria-current"), pressed = boolAttr(el, "aria-pressed");
      if (current !== null) element.current = current;
      if (pressed !== null) element.pressed = pressed;
      if (scopes) element.scope = scope;
      elements.push(element);
    } else if (scopes) {
      nodes.push({ ref, role, name, scope });
    }
    if (role === "link" && el.getAttribute("href")) lines.push({ depth: depth + 1, text: "- /url: " + el.getAttribute("href") });
    // A heading usually stands for its text, but a link inside it (<h3><a>) must stay reachable.
    const holdsControls = role === "heading" && el.querySelector("a[href],button,input,select,textarea");
    if (!leaf || el.tagName === "SELECT" || holdsControls) {
      for (const child of el.childNodes) visit(child, depth + 1, ref);
      if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) visit(child, depth + 1, ref);
    }
    if (lines.length > start + 1 && !lines[start].text.endsWith(":") && !lines[start].text.includes("]: ")) lines[start].text += ":";
    // A container whose only child is its own text reads better on one line.
    if (lines.length === start + 2 && lines[start + 1].isText && !lines[start].text.includes("]: ")) {
      const text = lines.pop().text.slice("- text: ".length);
      lines[start].text = lines[start].text.replace(/:$/, "") + (text === name ? "" : ": " + text);
    }
  };
  if (document.body) visit(document.body, 0, null);
  if (lines.length >= maxLines / 2 && document.body) {
    const left = document.body.getElementsByTagName("*").length + 1 - walked;
    if (left > 0) {
      lines.push({ depth: 0, text: `- note: this page is larger than the observation's budget of ${maxLines} lines: ${left} elements are left out (most of them outside the viewport); scroll to bring them in` });
    }
  }

  const axtree = lines.map((l) => "  ".repeat(l.depth) + l.text).join("\n");
  const focusedEl = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  return {
    axtree,
    contained: (askPage(0, 0), contained.splice(0)), // the page's world's notes too
    maxRef: state.nextRef - 1,
    state: {
      url: location.href,
      title: document.title,
      focused: focusedEl ? state.refOf.get(focusedEl) || null : null,
      elements, headings, alerts, dialogs,
      text: squash(document.body ? document.body.innerText : "").slice(0, MAX_TEXT),
      scroll: [window.scrollX, window.scrollY],
      ...(scopes ? { nodes } : {}),
    },
  };
};
