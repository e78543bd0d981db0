// --- an observation: the snapshot, as one JSON string ------------------------------
// One string crosses the protocol far faster than the same object value by value. The
// task's JS criteria read the app's own state: the page's world evaluates them
// (js/page_hooks.js) right after this pass, in the same call. Their answer is null when
// the page broke the hooks; the harness then asks the page's world itself.
import { KEY, state, toJSON } from "./core.js";
import { askPageWorld } from "./watch.js";
import { settle, waitForChange } from "./settle.js";
import { lookup } from "./refs.js";
import { snapshot } from "./snapshot.js";
import {
  armWheel,
  awaitWheel,
  drawn,
  focus,
  frameHit,
  identify,
  locate,
  revealFrame,
  scrollBy,
  selectAll,
  selectOption,
} from "./act.js";
import { readyNow, waitReady } from "./ready.js";
import { pointerAt } from "./pointer.js";
import { restartInPlace } from "./restart.js";

const observation = ({ minRef, maxLines, scopes, expressions }) => {
  const snap = snapshot({ minRef, maxLines, scopes });
  if (expressions && expressions.length)
    snap.criteria = askPageWorld("criteria?", "criteria", { expressions });
  return snap;
};
const observe = (o) => toJSON(observation(o));
// settle, then observe unless a navigation began or the task's ready condition does not
// hold yet (the harness waits for it, then observes): one call for both. An observation
// that throws is left to a separate observe(), which raises the page's error.
const settleAndObserve = async ({ settle: settleOptions, observe: observeOptions }) => {
  const settled = await settle(settleOptions);
  if (settled.navigating) return toJSON({ settled });
  if (observeOptions.ready && !readyNow(observeOptions.ready))
    return toJSON({ settled, notReady: true });
  const started = performance.now();
  try {
    return toJSON({
      settled,
      snap: observation(observeOptions),
      snapshotMs: performance.now() - started,
    });
  } catch {
    return toJSON({ settled });
  }
};

Object.defineProperty(window, KEY, {
  value: Object.freeze({
    settle,
    waitForChange,
    waitReady,
    snapshot,
    observe,
    settleAndObserve,
    locate,
    selectAll,
    focus,
    selectOption,
    scrollBy,
    armWheel: (points) => {
      armWheel();
      return pointerAt(points); // a wheel at a point: what is under it, in the same call
    },
    awaitWheel,
    drawn,
    identify,
    pointerAt,
    revealFrame,
    frameHit,
    element: (ref) => {
      const found = lookup(ref);
      return found.el || null;
    },
    markSettled: () => {
      state.navigating = false;
      state.dueNavigation = null;
    },
    restartInPlace,
    refOf: (el) => state.refOf.get(el) || null,
  }), // the ref an element was given (benchmarks)
  enumerable: false,
});
