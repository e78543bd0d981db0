// --- refs ---------------------------------------------------------------------------
import { state } from "./core.js";

export const refFor = (el) => {
  let ref = state.refOf.get(el);
  if (!ref) {
    ref = "e" + state.nextRef++;
    state.refOf.set(el, ref);
    state.refs.set(ref, new WeakRef(el));
  }
  return ref;
};

export const lookup = (ref) => {
  const weak = state.refs.get(ref);
  if (!weak) return { status: "unknown" };
  const el = weak.deref();
  if (!el || !el.isConnected) return { status: "stale" };
  return { status: "ok", el };
};
