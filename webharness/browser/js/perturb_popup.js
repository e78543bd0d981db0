// Popup perturbation: a cookie banner, a newsletter modal or a chat window that covers
// part of the page and takes the clicks that land on it until it is dismissed with its
// own, accessible button. Which popups open at which step is decided in Python; what is
// open or dismissed is kept in the tab's session store, so a popup follows the user
// across same-origin pages until it is dismissed.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const KEY = Symbol.for("webharness.perturb.popup");
  if (window[KEY]) return;
  const FONT = "font: 15px/1.45 system-ui, 'Segoe UI', Arial, sans-serif; color: #1d2433;";
  const BUTTON =
    "font: inherit; font-weight: 600; cursor: pointer; border-radius: 8px; padding: 9px 16px; " +
    "border: 1px solid #c5cbd8;";

  const POPUPS = {
    cookie: {
      layer: 1,
      name: "Cookie consent",
      dismiss: "Accept cookies",
      style:
        "position: fixed; left: 0; right: 0; bottom: 0; height: 34vh; min-height: 180px; " +
        "background: #ffffff;" +
        "box-shadow: 0 -8px 30px rgba(16,24,40,.25); padding: 28px 40px; box-sizing: border-box;",
      html: `<p style="margin:0 0 8px;font-weight:700;font-size:18px">We value your privacy</p>
        <p style="margin:0 0 18px;max-width:760px">We use cookies to keep you signed in, remember your preferences and
        measure how our site is used. You can accept all cookies or reject the ones that are not essential.</p>
        <div style="display:flex;gap:12px"><button type="button" data-dismiss style="${BUTTON}background:#1d2433;color:#fff">Accept cookies</button>
        <button type="button" data-dismiss style="${BUTTON}background:#fff;color:#1d2433">Reject all</button></div>`,
    },
    chat: {
      layer: 2,
      name: "Chat with us",
      dismiss: "Close chat",
      style:
        "position: fixed; right: 24px; bottom: 24px; width: 360px; height: 440px; background: #ffffff;" +
        "border-radius: 16px; box-shadow: 0 12px 40px rgba(16,24,40,.3); overflow: hidden; " +
        "display: flex; flex-direction: column;",
      html: `<div style="background:#0b7285;color:#fff;padding:16px 18px;display:flex;justify-content:space-between;align-items:center">
          <span style="font-weight:700">Support · we're online</span>
          <button type="button" data-dismiss aria-label="Close chat" style="${BUTTON}background:transparent;color:#fff;border-color:#ffffff66;padding:2px 10px">✕</button></div>
        <div style="padding:18px;flex:1;background:#f1f3f5">
          <p style="background:#fff;border-radius:12px;padding:10px 14px;margin:0 0 10px;max-width:80%">Hi there!</p>
          <p style="background:#fff;border-radius:12px;padding:10px 14px;margin:0;max-width:80%">Can we help you with anything today? Our team usually replies in a few minutes.</p></div>
        <div style="padding:14px 18px;border-top:1px solid #dee2e6;color:#868e96">Type a message…</div>`,
    },
    newsletter: {
      layer: 3,
      name: "Newsletter sign-up",
      dismiss: "No thanks",
      modal: true,
      style:
        "position: fixed; inset: 0; background: rgba(15,20,35,.55); display: flex; " +
        "align-items: center; justify-content: center;",
      html: `<div style="background:#fff;width:440px;max-width:90vw;border-radius:16px;padding:30px 32px;box-shadow:0 20px 60px rgba(0,0,0,.35)">
          <p style="margin:0 0 10px;font-weight:800;font-size:22px">Don't miss a thing</p>
          <p style="margin:0 0 22px">Get product news, tips and offers in your inbox every week. Unsubscribe at any time.</p>
          <div style="display:flex;gap:12px;justify-content:flex-end"><button type="button" data-dismiss style="${BUTTON}background:#fff;color:#1d2433">No thanks</button>
          <button type="button" data-subscribe style="${BUTTON}background:#e8590c;color:#fff;border-color:#e8590c">Subscribe</button></div></div>`,
    },
  };

  const states = () => P.store.get("popup", {}); // kind -> "open" | "dismissed"
  const setState = (kind, value) => {
    const all = states();
    all[kind] = value;
    P.store.set("popup", all);
  };
  const nodes = {};

  const dismiss = (kind) => {
    if (nodes[kind]) {
      nodes[kind].remove();
      delete nodes[kind];
    }
    setState(kind, "dismissed");
  };

  const render = (kind) => {
    if (nodes[kind] && nodes[kind].isConnected) return;
    const spec = POPUPS[kind];
    const node = document.createElement("div");
    node.setAttribute(P.OWNED, "popup");
    node.setAttribute("data-kind", kind);
    node.setAttribute("role", "dialog");
    node.setAttribute("aria-label", spec.name);
    if (spec.modal) node.setAttribute("aria-modal", "true");
    node.style.cssText = `${FONT} z-index: ${2147483600 + spec.layer}; ${spec.style}`;
    node.innerHTML = spec.html;
    // The popup's buttons do not take focus on mousedown: dismissing it leaves the caret
    // where the user was typing. Its pointer events stay its own, as in the iframes such
    // widgets usually live in: the page does not see a click "outside" its open menu.
    node.addEventListener("mousedown", (event) => {
      if (event.target.closest("button")) event.preventDefault();
    });
    for (const type of [
      "mousedown",
      "mouseup",
      "click",
      "pointerdown",
      "pointerup",
      "touchstart",
      "touchend",
    ]) {
      node.addEventListener(type, (event) => event.stopPropagation());
    }
    node.addEventListener("click", (event) => {
      if (event.target.closest("[data-dismiss]")) dismiss(kind);
      else if (event.target.closest("[data-subscribe]"))
        event.target.closest("[data-subscribe]").textContent = "Enter your email first";
    });
    nodes[kind] = node;
    document.body.appendChild(node);
  };

  const show = (kind) => {
    if (!POPUPS[kind]) return false;
    if (states()[kind] === "dismissed") return false;
    setState(kind, "open");
    P.whenLoaded(() => render(kind));
    return true;
  };

  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Escape" && nodes.newsletter) dismiss("newsletter");
    },
    true,
  );

  // Popups due at load open on the first page; any popup still open follows to new pages.
  for (const kind of config.atLoad) if (!(kind in states())) setState(kind, "open");
  for (const [kind, value] of Object.entries(states()))
    if (value === "open") P.whenLoaded(() => render(kind));

  const status = () => {
    const all = states();
    return {
      open: Object.keys(all).filter((k) => all[k] === "open"),
      dismissed: Object.keys(all).filter((k) => all[k] === "dismissed"),
    };
  };
  Object.defineProperty(window, KEY, {
    value: Object.freeze({ show, status, popups: POPUPS }),
    enumerable: false,
  });
};
