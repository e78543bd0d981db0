// The page agent's shared state and the builtins it keeps from before the page ran.
const KEY = Symbol.for("webharness.agent");
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
