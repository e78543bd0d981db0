// Slow-rendering perturbation: the page's main content stays invisible (visibility:
// hidden, so it is also out of the accessibility tree) until a seeded delay has passed
// after the document loaded, even when every request was fast. Pages with no <main>
// hide everything in the body but the perturbations' own nodes.
(config) => {
  const P = window[Symbol.for("webharness.perturb")];
  const ATTR = "data-wh-slow";
  P.addStyle(
    `html[${ATTR}="main"] main, html[${ATTR}="main"] [role="main"] { visibility: hidden !important; }\n` +
    `html[${ATTR}="all"] body > :not([${P.OWNED}]) { visibility: hidden !important; }`,
    "slow_rendering",
  );
  P.whenRoot(() => document.documentElement.setAttribute(ATTR, "main"));
  P.whenLoaded(() => {
    if (!document.querySelector("main, [role=main]")) document.documentElement.setAttribute(ATTR, "all");
    setTimeout(() => document.documentElement.removeAttribute(ATTR), config.delayMs);
  });
}
