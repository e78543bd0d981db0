// Slow-rendering perturbation: the page's main content stays invisible (visibility:
// hidden, so it is also out of the accessibility tree) after the document loaded, even
// when every request was fast. Pages with no <main> hide everything in the body but the
// perturbations' own nodes. In "timer" mode it appears after config.delayMs of page
// time; in "step" mode when the harness calls reveal() (after the agent has spent the
// delay, counted in steps and waits, so the same actions always see the same page).
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const KEY = Symbol.for("webharness.perturb.slow_rendering");
  if (window[KEY]) return;
  const ATTR = "data-wh-slow";
  P.addStyle(
    `html[${ATTR}="main"] main, html[${ATTR}="main"] [role="main"] ` +
      "{ visibility: hidden !important; }\n" +
      `html[${ATTR}="all"] body > :not([${P.OWNED}]) { visibility: hidden !important; }`,
    "slow_rendering",
  );
  let revealed = false;
  const reveal = () => {
    revealed = true;
    if (document.documentElement) document.documentElement.removeAttribute(ATTR);
    return true;
  };
  P.whenRoot(() => {
    if (!revealed) document.documentElement.setAttribute(ATTR, "main");
  });
  P.whenLoaded(() => {
    if (!revealed && !document.querySelector("main, [role=main]"))
      document.documentElement.setAttribute(ATTR, "all");
    if (config.mode === "timer") setTimeout(reveal, config.delayMs);
  });
  Object.defineProperty(window, KEY, { value: Object.freeze({ reveal }), enumerable: false });
};
