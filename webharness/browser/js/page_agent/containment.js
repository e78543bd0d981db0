// --- containment: what was refused, noted for blocked_requests -------------------------
// The page's world notes permission asks, WebRTC and WebTransport (js/page_hooks.js);
// this world notes refused downloads (settle.js).
export const contained = [];
export const contain = (entry) => {
  if (contained.length < 50) contained.push(entry);
};
