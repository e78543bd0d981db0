// --- an observation: the snapshot and the task's JS criteria, as one JSON string -----
// Playwright walks a returned object value by value, far slower than a string.
const observation = ({ minRef, maxLines, expressions }) => {
  const snap = snapshot({ minRef, maxLines });
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
