// --- an observation: the snapshot and the task's JS criteria, as one JSON string -----
// Playwright walks a returned object value by value, far slower than a string.
// A criterion's value is a number (a count) or true/false; one that throws is false and
// what it threw goes in jsErrors, so the harness reports it rather than a silent false.
const observation = ({ minRef, maxLines, scopes, expressions }) => {
  const snap = snapshot({ minRef, maxLines, scopes });
  const errors = {};
  snap.js = Object.fromEntries(expressions.map((e) => {
    try {
      const value = globalEval(e);
      return [e, typeof value === "number" ? value : Boolean(value)];
    } catch (err) {
      errors[e] = String(err && err.name ? `${err.name}: ${err.message}` : err).slice(0, 300);
      return [e, false];
    }
  }));
  for (const e in errors) { snap.jsErrors = errors; break; }
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
