// The page agent's shared state. It runs in a world of its own (agent_world.py): the
// page's scripts cannot reach its globals or replace the builtins it uses.
export const KEY = Symbol.for("webharness.agent");
export const toJSON = JSON.stringify;

export const state = {
  nextRef: 1,
  refs: new Map(), // ref -> WeakRef(element)
  refOf: new WeakMap(), // element -> ref
  lastMutation: performance.now(),
  changed: new WeakSet(), // mutation targets since the last settle ended
  navigating: false,
  dueNavigation: null, // { event, at }: a submit or link click whose navigation has not begun
  loadedHistory: history.length, // the document's history when it began (restart.js)
};
