// The in-page half of the harness, installed as an init script in every document.
// One object on a Symbol.for key: it tracks DOM mutations and in-flight requests (for
// settling), hands out element refs (e1, e2, ...) that stay with their element, and
// extracts the accessibility tree text plus the semantic state in a single pass.
(() => {
  const KEY = Symbol.for("webharness.agent");
  if (window[KEY]) return;
  // Builtins as they were before the page's own scripts ran (a page may replace them).
  const toJSON = JSON.stringify, globalEval = eval;

  const state = {
    nextRef: 1,
    refs: new Map(), // ref -> WeakRef(element)
    refOf: new WeakMap(), // element -> ref
    lastMutation: performance.now(),
    pending: 0, // fetch/XHR in flight
    navigating: false,
    dueNavigation: null, // { event, at }: a submit or link click whose navigation has not begun
  };

  // --- settling: mutations, requests, navigation -------------------------------------
  const changeWaiters = new Set(); // resolvers of waitForChange calls
  const wakeWaiters = () => { for (const wake of changeWaiters) wake(); };
  const noteChange = () => { state.lastMutation = performance.now(); wakeWaiters(); };
  const watchMutations = () => {
    new MutationObserver(noteChange)
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  if (document.documentElement) watchMutations(); else document.addEventListener("readystatechange", watchMutations, { once: true });

  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (...args) {
      state.pending++;
      return origFetch.apply(this, args).finally(() => { state.pending--; noteChange(); });
    };
  }
  // A response's body is read after fetch() resolves; count the read as in flight too, so a
  // page that fetches, reads the JSON, then renders is not seen as quiet in between.
  for (const reader of ["json", "text", "arrayBuffer", "blob", "formData"]) {
    const original = Response.prototype[reader];
    if (!original) continue;
    Response.prototype[reader] = function (...args) {
      state.pending++;
      return original.apply(this, args).finally(() => { state.pending--; noteChange(); });
    };
  }
  const origSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    state.pending++;
    this.addEventListener("loadend", () => { state.pending--; noteChange(); }, { once: true });
    return origSend.apply(this, args);
  };
  // --- work the page has scheduled -------------------------------------------------------
  // A timeout about to fire, an animation frame asked for, a message posted (how
  // schedulers such as React's queue their work) or a running CSS animation can change
  // the DOM in the next few milliseconds. While none of that is due, a DOM quiet for
  // MIN_QUIET_MS is settled; otherwise settle waits the full quiet window. The agent's
  // own waits use the native timer, so they never count.
  const MIN_QUIET_MS = 2;
  const timer = { set: window.setTimeout, clear: window.clearTimeout };
  const timeouts = new Map(); // id -> when it is due (performance.now() ms)
  window.setTimeout = function (handler, delay, ...args) {
    let id;
    const run = typeof handler === "function" ? function (...a) { timeouts.delete(id); return handler.apply(this, a); } : handler;
    id = timer.set.call(window, run, delay, ...args);
    timeouts.set(id, performance.now() + (Number(delay) || 0));
    return id;
  };
  window.clearTimeout = function (id) { timeouts.delete(id); return timer.clear.call(window, id); };
  const frames = new Set(); // animation frame requests not yet run
  const nativeFrame = window.requestAnimationFrame, nativeCancelFrame = window.cancelAnimationFrame;
  window.requestAnimationFrame = function (callback) {
    if (typeof callback !== "function") return nativeFrame.call(window, callback); // throws as it would
    let id;
    id = nativeFrame.call(window, (t) => { frames.delete(id); return callback(t); });
    frames.add(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) { frames.delete(id); return nativeCancelFrame.call(window, id); };
  let lastPost = -Infinity;
  const notePost = (owner) => {
    const orig = owner.postMessage;
    owner.postMessage = function (...args) { lastPost = performance.now(); return orig.apply(this, args); };
  };
  notePost(MessagePort.prototype);
  notePost(window);
  // Is any of it due? A frame or a message pending since ``since`` (the last DOM change),
  // a timeout due by ``until``, or an animation running.
  const workDue = (since, until) => {
    const now = performance.now();
    if (frames.size || lastPost >= since) return true;
    for (const [id, due] of timeouts) {
      if (due <= until) return true;
      if (due < now - 1000) timeouts.delete(id); // a string handler, run long ago
    }
    return document.getAnimations().some((a) => a.playState === "running");
  };

  // --- containment: permission prompts are refused by the browser; note each ask -------
  const contained = [];
  const contain = (entry) => { if (contained.length < 50) contained.push(entry); };
  const noteAsk = (owner, method, name) => {
    const orig = owner && owner[method];
    if (typeof orig !== "function") return;
    owner[method] = function (...args) {
      contain("permission: " + name);
      return orig.apply(this, args);
    };
  };
  noteAsk(navigator.geolocation, "getCurrentPosition", "geolocation");
  noteAsk(navigator.geolocation, "watchPosition", "geolocation");
  noteAsk(window.Notification, "requestPermission", "notifications");
  noteAsk(navigator.mediaDevices, "getUserMedia", "media");
  noteAsk(navigator.mediaDevices, "getDisplayMedia", "display-capture");

  // A download link (<a download>) is fetched by Chromium's download manager, outside the
  // context's request interception: it would reach the real network. Refuse it here and
  // note it; a download that arrives as a routed response is refused by the browser.
  const onNavigate = (event) => {
    if (typeof event.downloadRequest === "string") {
      if (event.cancelable) event.preventDefault();
      contain("download: " + event.destination.url);
    } else if (!event.destination.sameDocument) {
      markNavigating();
    }
  };
  const markNavigating = () => { state.navigating = true; wakeWaiters(); };
  if (window.navigation) window.navigation.addEventListener("navigate", onNavigate);
  window.addEventListener("beforeunload", markNavigating);

  // A form submission or a link click starts its navigation in a later task, which under
  // load can come after the page already looks quiet. Keep the event: while its default
  // action is still due (not prevented, not in a new window, not same-document), the page
  // is not settled, for at most NAVIGATION_DUE_MS.
  const NAVIGATION_DUE_MS = 2000;
  const leavesDocument = (url, target) => {
    if (target && target !== "_self") return false;
    let next;
    try { next = new URL(url, location.href); } catch (err) { return false; }
    if (!/^https?:$/.test(next.protocol)) return false; // javascript:, mailto:, refused schemes
    const sameDocument = next.href.includes("#") && next.href.split("#")[0] === location.href.split("#")[0];
    return !sameDocument; // "#" or "#section" on this page only scrolls
  };
  window.addEventListener("submit", (event) => {
    // Attributes, not properties: a field named "action" or "target" shadows form.action.
    const form = event.target;
    const from = (name) => (event.submitter && event.submitter.getAttribute("form" + name)) || form.getAttribute(name);
    if ((from("method") || "").toLowerCase() === "dialog") return;
    if (leavesDocument(from("action") || location.href, from("target"))) {
      state.dueNavigation = { event, at: performance.now() };
    }
  }, true);
  window.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (link && !link.hasAttribute("download") && leavesDocument(link.href, link.target)) {
      state.dueNavigation = { event, at: performance.now() };
    }
  }, true);
  const navigationDue = () => {
    const due = state.dueNavigation;
    if (!due) return false;
    if (due.event.defaultPrevented || performance.now() - due.at > NAVIGATION_DUE_MS) state.dueNavigation = null;
    return Boolean(state.dueNavigation);
  };

  // Resolves when no request is in flight and the DOM has been quiet for quietMs (or for
  // MIN_QUIET_MS with no work of the page due before quietMs would end), or when a
  // navigation starts, or at capMs. Polls with timeouts (rAF is throttled).
  const settle = ({ quietMs = 10, capMs = 3000 } = {}) => new Promise((resolve) => {
    const start = performance.now();
    const check = () => {
      const now = performance.now();
      if (state.navigating) return resolve({ navigating: true, timedOut: false });
      const quietFor = now - state.lastMutation;
      const quiet = state.pending === 0 && document.readyState !== "loading" && !navigationDue()
        && (quietFor >= quietMs || (quietFor >= MIN_QUIET_MS && !workDue(state.lastMutation, state.lastMutation + quietMs)));
      if (quiet) return resolve({ navigating: false, timedOut: false, early: quietFor < quietMs });
      if (now - start >= capMs) return resolve({ navigating: false, timedOut: true, pending: state.pending });
      const untilQuiet = quietFor < MIN_QUIET_MS ? MIN_QUIET_MS - quietFor : quietMs - quietFor;
      timer.set.call(window, check, untilQuiet > 0 ? Math.max(1, Math.min(untilQuiet, 5)) : 5);
    };
    check();
  });

  // Resolves at the first DOM change or finished request after the call, or when a
  // navigation starts (true), or at ms (false). Woken by the change itself rather than by
  // polling: a long wait costs the page nothing.
  const waitForChange = (ms) => new Promise((resolve) => {
    if (state.navigating) return resolve(true);
    let timeout;
    const done = (changed) => { changeWaiters.delete(wake); timer.clear.call(window, timeout); resolve(changed); };
    const wake = () => done(true);
    changeWaiters.add(wake);
    timeout = timer.set.call(window, () => done(false), ms);
  });

  // --- roles and names ---------------------------------------------------------------
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox",
    radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", email: "textbox",
    tel: "textbox", text: "textbox", url: "textbox", password: "textbox", date: "textbox",
    "datetime-local": "textbox", month: "textbox", time: "textbox", week: "textbox", "": "textbox",
  };
  const TAG_ROLES = {
    A: (el) => (el.hasAttribute("href") ? "link" : null), BUTTON: () => "button", SUMMARY: () => "button",
    H1: () => "heading", H2: () => "heading", H3: () => "heading", H4: () => "heading", H5: () => "heading", H6: () => "heading",
    TEXTAREA: () => "textbox", SELECT: (el) => (el.multiple || el.size > 1 ? "listbox" : "combobox"),
    OPTION: () => "option", IMG: (el) => (el.getAttribute("alt") === "" ? null : "img"),
    NAV: () => "navigation", MAIN: () => "main", HEADER: (el) => (el.closest("article,aside,main,nav,section") ? null : "banner"),
    FOOTER: (el) => (el.closest("article,aside,main,nav,section") ? null : "contentinfo"), ASIDE: () => "complementary",
    FORM: () => "form", DIALOG: () => "dialog", UL: () => "list", OL: () => "list", LI: () => "listitem",
    TABLE: () => "table", TR: () => "row", TD: () => "cell", TH: (el) => (el.scope === "row" ? "rowheader" : "columnheader"),
    P: () => "paragraph", FIELDSET: () => "group", SECTION: (el) => (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null),
    PROGRESS: () => "progressbar", LABEL: () => null, OUTPUT: () => "status", HR: () => "separator",
  };
  const INTERACTIVE = new Set(["button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem"]);
  // Roles whose children are summarised by the node's own name and value.
  const LEAF = new Set(["button", "link", "textbox", "searchbox", "checkbox", "radio", "option", "img", "menuitem",
    "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "heading", "separator", "progressbar"]);
  const NAME_FROM_CONTENT = new Set(["button", "link", "heading", "cell", "columnheader", "rowheader", "option", "menuitem",
    "menuitemcheckbox", "menuitemradio", "tab", "checkbox", "radio", "switch", "treeitem", "listitem", "row", "tooltip", "status", "alert"]);
  const EMIT = new Set([...INTERACTIVE, ...LEAF, "navigation", "main", "banner", "contentinfo", "complementary", "form",
    "dialog", "alertdialog", "list", "listitem", "table", "row", "cell", "columnheader", "rowheader", "paragraph", "group",
    "region", "alert", "status", "menu", "menubar", "tablist", "tabpanel", "toolbar", "tree", "grid", "gridcell", "log", "article"]);

  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit && explicit !== "none" && explicit !== "presentation" && explicit !== "generic") return explicit;
    if (explicit) return null;
    if (el.tagName === "INPUT") return el.type === "hidden" ? null : (INPUT_ROLES[el.type] || "textbox");
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
    const byTag = TAG_ROLES[el.tagName];
    return byTag ? byTag(el) : null;
  };

  const squash = (text) => (text || "").replace(/\s+/g, " ").trim();

  // Within one snapshot pass an element's visibility is asked for several times (its own
  // node, then the names of its ancestors); remember the answers for that pass only.
  let hiddenCache = null;
  const isHidden = (el) => {
    const known = hiddenCache && hiddenCache.get(el);
    if (known !== undefined && known !== null) return known;
    const hidden = computeHidden(el);
    if (hiddenCache) hiddenCache.set(el, hidden);
    return hidden;
  };
  const computeHidden = (el) => {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
    if (el.tagName === "TEMPLATE" || el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "NOSCRIPT") return true;
    const style = getComputedStyle(el);
    return style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse";
  };

  const textOf = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent;
    if (node.nodeType !== Node.ELEMENT_NODE || isHidden(node)) return "";
    if (node.tagName === "INPUT" || node.tagName === "SELECT" || node.tagName === "TEXTAREA") return "";
    if (node.tagName === "IMG") return node.getAttribute("alt") || "";
    const label = node.getAttribute("aria-label");
    if (label) return label;
    let out = "";
    for (const child of node.childNodes) out += " " + textOf(child);
    return out;
  };

  const labelText = (el) => {
    const parts = [];
    if (el.id) for (const label of document.querySelectorAll(`label[for="${CSS.escape(el.id)}"]`)) parts.push(textOf(label));
    const wrapping = el.closest("label");
    if (wrapping) parts.push(textOf(wrapping));
    return squash(parts.join(" "));
  };

  const nameOf = (el, role) => {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const text = squash(labelledBy.split(/\s+/).map((id) => { const t = document.getElementById(id); return t ? textOf(t) : ""; }).join(" "));
      if (text) return text;
    }
    const aria = squash(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) || role === "textbox" || role === "combobox") {
      const label = labelText(el);
      if (label) return label;
      if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return squash(el.value || el.type);
    }
    if (el.tagName === "IMG") return squash(el.getAttribute("alt"));
    if (el.tagName === "FIELDSET") { const legend = el.querySelector("legend"); if (legend) return squash(textOf(legend)); }
    if (el.tagName === "TABLE") { const caption = el.querySelector("caption"); if (caption) return squash(textOf(caption)); }
    if (NAME_FROM_CONTENT.has(role)) { const text = squash(textOf(el)); if (text) return text.slice(0, 200); }
    return squash(el.getAttribute("title") || el.getAttribute("placeholder") || "");
  };

  const valueOf = (el, role) => {
    if (el.tagName === "INPUT") {
      if (["checkbox", "radio", "button", "submit", "reset", "image"].includes(el.type)) return null;
      return el.type === "password" ? "•".repeat(el.value.length) : el.value;
    }
    if (el.tagName === "TEXTAREA") return el.value;
    if (el.tagName === "SELECT") return Array.from(el.selectedOptions).map((o) => squash(o.textContent)).join(", ");
    if (role === "textbox" && el.isContentEditable) return squash(el.innerText);
    if (role === "combobox") return squash(el.getAttribute("aria-valuetext") || el.value || textOf(el));
    if (role === "slider" || role === "spinbutton") return el.getAttribute("aria-valuenow");
    return null;
  };

  const boolAttr = (el, name) => {
    const v = el.getAttribute(name);
    return v === null ? null : v === "true" || v === "mixed";
  };

  const checkedOf = (el, role) => {
    if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return el.checked;
    if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) return boolAttr(el, "aria-checked") ?? false;
    return null;
  };

  const disabledOf = (el) => {
    if (el.disabled) return true;
    if (el.closest("[aria-disabled='true']")) return true;
    const fieldset = el.closest("fieldset[disabled]");
    return Boolean(fieldset && !fieldset.querySelector("legend")?.contains(el));
  };

  // --- refs ---------------------------------------------------------------------------
  const refFor = (el) => {
    let ref = state.refOf.get(el);
    if (!ref) {
      ref = "e" + state.nextRef++;
      state.refOf.set(el, ref);
      state.refs.set(ref, new WeakRef(el));
    }
    return ref;
  };

  const lookup = (ref) => {
    const weak = state.refs.get(ref);
    if (!weak) return { status: "unknown" };
    const el = weak.deref();
    if (!el || !el.isConnected) return { status: "stale" };
    return { status: "ok", el };
  };

  // --- the one-pass snapshot ----------------------------------------------------------
  const quote = (s) => toJSON(s);
  const MAX_TEXT = 20000;

  const snapshot = (options) => {
    hiddenCache = new Map();
    try { return snapshotPass(options); } finally { hiddenCache = null; }
  };

  const snapshotPass = ({ minRef = 1 } = {}) => {
    state.nextRef = Math.max(state.nextRef, minRef);
    const lines = [];
    const elements = [];
    const headings = [];
    const alerts = [];
    const dialogs = [];
    const vw = window.innerWidth, vh = window.innerHeight;

    const visit = (node, depth) => {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = squash(node.textContent);
        if (text) lines.push({ depth, text: "- text: " + text, isText: true });
        return;
      }
      if (node.nodeType !== Node.ELEMENT_NODE || isHidden(node)) return;
      const el = node;
      const role = roleOf(el);
      if (!role || !EMIT.has(role)) {
        for (const child of el.childNodes) visit(child, depth);
        if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) visit(child, depth);
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
        elements.push({
          ref, role, name, value: value ?? null, checked, selected: selected ?? null, disabled, expanded,
          required, invalid: Boolean(invalid), validation_message: el.validationMessage || el.getAttribute("aria-errormessage-text") || "",
          bbox: [r.x, r.y, r.width, r.height],
          in_viewport: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw,
        });
      }
      if (role === "link" && el.getAttribute("href")) lines.push({ depth: depth + 1, text: "- /url: " + el.getAttribute("href") });
      // A heading usually stands for its text, but a link inside it (<h3><a>) must stay reachable.
      const holdsControls = role === "heading" && el.querySelector("a[href],button,input,select,textarea");
      if (!leaf || el.tagName === "SELECT" || holdsControls) {
        for (const child of el.childNodes) visit(child, depth + 1);
        if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) visit(child, depth + 1);
      }
      if (lines.length > start + 1 && !lines[start].text.endsWith(":") && !lines[start].text.includes("]: ")) lines[start].text += ":";
      // A container whose only child is its own text reads better on one line.
      if (lines.length === start + 2 && lines[start + 1].isText && !lines[start].text.includes("]: ")) {
        const text = lines.pop().text.slice("- text: ".length);
        lines[start].text = lines[start].text.replace(/:$/, "") + (text === name ? "" : ": " + text);
      }
    };
    if (document.body) visit(document.body, 0);

    const axtree = lines.map((l) => "  ".repeat(l.depth) + l.text).join("\n");
    const focusedEl = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
    return {
      axtree,
      contained: contained.splice(0),
      maxRef: state.nextRef - 1,
      state: {
        url: location.href,
        title: document.title,
        focused: focusedEl ? state.refOf.get(focusedEl) || null : null,
        elements, headings, alerts, dialogs,
        text: squash(document.body ? document.body.innerText : "").slice(0, MAX_TEXT),
        scroll: [window.scrollX, window.scrollY],
      },
    };
  };

  // --- acting on a ref ----------------------------------------------------------------
  const EDITABLE_INPUTS = new Set(["text", "email", "tel", "url", "password", "search", "number", "date", "datetime-local", "month", "time", "week", ""]);
  const describe = (el) => {
    const role = roleOf(el) || el.tagName.toLowerCase();
    const name = nameOf(el, role);
    return name ? `${role} "${name.slice(0, 60)}"` : role;
  };

  // Finds the element, scrolls it into view, and hit-tests its centre so that a click
  // there lands on it (and not on a popup covering it).
  const locate = (ref) => {
    const found = lookup(ref);
    if (found.status !== "ok") return { status: found.status };
    const el = found.el;
    if (isHidden(el) || el.closest("[hidden],[aria-hidden='true']")) return { status: "hidden" };
    let r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return { status: "hidden" };
    const outside = r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth;
    // "nearest" also reveals an element clipped by a scrolling container (a long listbox),
    // and does nothing to one already in full view.
    el.scrollIntoView({ block: outside ? "center" : "nearest", inline: outside ? "center" : "nearest", behavior: "instant" });
    r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    const label = el.labels && hit && Array.from(el.labels).some((l) => l.contains(hit));
    const covered = hit && hit !== el && !el.contains(hit) && !label;
    const role = roleOf(el);
    return {
      status: covered ? "covered" : "ok",
      coveredBy: covered ? describe(hit) : null,
      x, y, role, tag: el.tagName, type: el.type || "", disabled: disabledOf(el),
      editable: (el.tagName === "INPUT" && EDITABLE_INPUTS.has(el.type)) || el.tagName === "TEXTAREA" || el.isContentEditable,
      checked: checkedOf(el, role),
      label: describe(el),
    };
  };

  const selectAll = (ref) => {
    const found = lookup(ref);
    if (found.status !== "ok") return false;
    const el = found.el;
    el.focus();
    if (typeof el.select === "function") el.select();
    else { const range = document.createRange(); range.selectNodeContents(el); const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); }
    return true;
  };

  const focus = (ref) => { const found = lookup(ref); if (found.status === "ok") found.el.focus(); return found.status; };

  const selectOption = (ref, option) => {
    const found = lookup(ref);
    if (found.status !== "ok") return { status: found.status };
    const el = found.el;
    if (el.tagName !== "SELECT") return { status: "unsupported", role: roleOf(el) };
    const wanted = squash(option).toLowerCase();
    const options = Array.from(el.options);
    const match = options.find((o) => squash(o.textContent).toLowerCase() === wanted) || options.find((o) => o.value.toLowerCase() === wanted);
    if (!match) return { status: "no_option", options: options.map((o) => squash(o.textContent)) };
    if (match.disabled) return { status: "disabled_option" };
    el.focus();
    el.value = match.value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return { status: "ok" };
  };

  // Scrolls the nearest scrollable container under the viewport centre, else the window.
  const scrollBy = (dx, dy) => {
    let el = document.elementFromPoint(window.innerWidth / 2, window.innerHeight / 2);
    while (el && el !== document.body && el !== document.documentElement) {
      const style = getComputedStyle(el);
      if (/(auto|scroll)/.test(style.overflowY + style.overflowX) && (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth)) {
        el.scrollBy({ left: dx, top: dy, behavior: "instant" });
        return;
      }
      el = el.parentElement;
    }
    window.scrollBy({ left: dx, top: dy, behavior: "instant" });
  };

  // The nearest element (itself or an ancestor) with a role: what a person clicked on.
  const identify = (node) => {
    for (let el = node; el && el.nodeType === Node.ELEMENT_NODE; el = el.parentElement) {
      const role = roleOf(el);
      if (role && EMIT.has(role) && role !== "paragraph" && role !== "group") return { role, name: nameOf(el, role), el };
    }
    return null;
  };

  // --- an observation: the snapshot and the task's JS criteria, as one JSON string -----
  // Playwright walks a returned object value by value, far slower than a string.
  const observation = ({ minRef, expressions }) => {
    const snap = snapshot({ minRef });
    snap.js = Object.fromEntries(expressions.map((e) => {
      try { return [e, Boolean(globalEval(e))]; } catch (err) { return [e, false]; } // an error counts as false
    }));
    return snap;
  };
  const observe = (o) => toJSON(observation(o));
  // settle, then observe unless a navigation began: one call for both. An observation that
  // throws is left to a separate observe(), which raises the page's error.
  const settleAndObserve = async ({ settle: settleOptions, observe: observeOptions }) => {
    const settled = await settle(settleOptions);
    if (settled.navigating) return toJSON({ settled });
    const started = performance.now();
    try {
      return toJSON({ settled, snap: observation(observeOptions), snapshotMs: performance.now() - started });
    } catch (err) {
      return toJSON({ settled });
    }
  };

  Object.defineProperty(window, KEY, {
    value: Object.freeze({ settle, waitForChange, snapshot, observe, settleAndObserve, locate, selectAll, focus, selectOption, scrollBy, identify,
      markSettled: () => { state.navigating = false; state.dueNavigation = null; } }),
    enumerable: false,
  });
})();
