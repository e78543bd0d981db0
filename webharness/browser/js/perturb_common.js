// Helpers every perturbation's in-page script shares, installed once per document on a
// Symbol.for key: a seeded generator, a per-tab store that survives same-origin
// navigations (what was shown, dismissed, fired), "run when the body exists", and the
// marker that says "this node belongs to a perturbation" so that the perturbations
// leave each other's nodes alone.
(() => {
  const KEY = Symbol.for("webharness.perturb");
  if (window[KEY]) return;
  const OWNED = "data-wh-perturbation";

  // mulberry32, as the harness's seeded Math.random.
  const rng = (seed) => {
    let a = seed >>> 0 || 1;
    return () => {
      a |= 0;
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };

  const memory = {};
  const store = {
    get(key, fallback) {
      try {
        const raw = sessionStorage.getItem("__webharness." + key);
        return raw === null ? fallback : JSON.parse(raw);
      } catch {
        return key in memory ? memory[key] : fallback;
      }
    },
    set(key, value) {
      memory[key] = value;
      try {
        sessionStorage.setItem("__webharness." + key, JSON.stringify(value));
      } catch {
        /* opaque origin */
      }
    },
  };

  const whenBody = (fn) => {
    if (document.body) {
      fn();
      return;
    }
    const observer = new MutationObserver(() => {
      if (document.body) {
        observer.disconnect();
        fn();
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  };

  const whenLoaded = (fn) => {
    if (document.readyState === "loading")
      document.addEventListener("DOMContentLoaded", fn, { once: true });
    else fn();
  };

  const whenRoot = (fn) => {
    if (document.documentElement) {
      fn();
      return;
    }
    const observer = new MutationObserver(() => {
      if (document.documentElement) {
        observer.disconnect();
        fn();
      }
    });
    observer.observe(document, { childList: true });
  };

  const isOwned = (node) => {
    const el = node && node.nodeType === Node.ELEMENT_NODE ? node : node && node.parentElement;
    return Boolean(el && el.closest && el.closest(`[${OWNED}]`));
  };

  const addStyle = (css, owner) =>
    whenRoot(() => {
      const style = document.createElement("style");
      style.setAttribute(OWNED, owner);
      style.textContent = css;
      (document.head || document.documentElement).appendChild(style);
    });

  Object.defineProperty(window, KEY, {
    value: Object.freeze({ OWNED, rng, store, whenBody, whenLoaded, whenRoot, isOwned, addStyle }),
    enumerable: false,
  });
})();
