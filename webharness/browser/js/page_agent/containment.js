// --- containment: permission prompts are refused by the browser; note each ask -------
const contained = [];
const contain = (entry) => { if (contained.length < 50) contained.push(entry); };
const noteAsk = (owner, method, name) => {
  const orig = owner && owner[method];
  if (typeof orig !== "function") return;
  owner[method] = function (...args) {
    contain("permission: " + name);
    return orig.apply(this, args);
  };
};
noteAsk(navigator.geolocation, "getCurrentPosition", "geolocation");
noteAsk(navigator.geolocation, "watchPosition", "geolocation");
noteAsk(window.Notification, "requestPermission", "notifications");
noteAsk(navigator.mediaDevices, "getUserMedia", "media");
noteAsk(navigator.mediaDevices, "getDisplayMedia", "display-capture");
