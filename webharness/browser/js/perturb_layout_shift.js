// Layout-shift perturbation: once armed, the next real pointer input (the mouse moving
// to click, a press, a wheel) inserts a banner at the top of the page *before* the
// input lands, pushing everything down by a seeded height: the click meant for one
// element lands on whatever moved under the pointer, as when a late ad or notice loads.
// After it fired, later pages of the same origin show the banner from the start.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const KEY = Symbol.for("webharness.perturb.layout_shift");
  if (window[KEY]) return;
  const TRIGGERS = ["mousemove", "pointerdown", "mousedown", "wheel", "touchstart"];
  const state = () => P.store.get("layout_shift", { armed: false, fired: false, trigger: null });

  const banner = () => {
    const node = document.createElement("aside");
    node.setAttribute(P.OWNED, "layout_shift");
    node.setAttribute("aria-label", "Announcement");
    node.style.cssText =
      `box-sizing: border-box; height: ${config.height}px; margin: 0; padding: 0 28px; ` +
      "display: flex;" +
      "align-items: center; gap: 12px; background: #fff3bf; color: #5c3c00; " +
      "border-bottom: 1px solid #ffd43b;" +
      "font: 600 15px/1.4 system-ui, 'Segoe UI', Arial, sans-serif; overflow: hidden;";
    node.textContent = config.text;
    return node;
  };

  const insert = () => {
    document.body.prepend(banner());
    void document.body.offsetHeight; // lay out now, before the input that triggered it lands
  };

  // Chromium's headless shell sends a trusted mousemove that does not move (at 0,0, when
  // the page first lays out) to set the hover state: that is not the agent's pointer. A
  // document's first real move reports no movement either (there is nothing to measure it
  // from: a page opened after a navigation, with the pointer already somewhere), so a move
  // counts as still only where the pointer already was (0,0 before any move).
  let pointer = [0, 0];
  const stillMove = (event) =>
    event.type === "mousemove" &&
    event.movementX === 0 &&
    event.movementY === 0 &&
    event.clientX === pointer[0] &&
    event.clientY === pointer[1];
  window.addEventListener("mousemove", (event) => {
    // after onInput (capture) has looked
    if (event.isTrusted) pointer = [event.clientX, event.clientY];
  });

  const onInput = (event) => {
    if (!event.isTrusted || stillMove(event) || state().fired || !document.body) return;
    for (const type of TRIGGERS) window.removeEventListener(type, onInput, true);
    insert();
    P.store.set("layout_shift", { armed: true, fired: true, trigger: event.type });
  };

  const listen = () => {
    for (const type of TRIGGERS) window.addEventListener(type, onInput, true);
  };

  const arm = () => {
    const now = state();
    if (now.armed) return false;
    P.store.set("layout_shift", { ...now, armed: true });
    listen();
    return true;
  };

  const now = state();
  if (now.fired) P.whenBody(insert);
  else if (now.armed) listen();
  else if (config.armedAtLoad) arm();

  Object.defineProperty(window, KEY, {
    value: Object.freeze({ arm, status: state }),
    enumerable: false,
  });
};
