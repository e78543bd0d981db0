// --- containment: permission prompts are refused by the browser; note each ask -------
const contained = [];
const contain = (entry) => { if (contained.length < 50) contained.push(entry); };
const noteAsk = (owner, method, name) => {
  const orig = owner && owner[method];
  if (typeof orig !== "function") return;
  owner[method] = function (...args) {
    contain(name + " [permission]");
    return orig.apply(this, args);
  };
};
noteAsk(navigator.geolocation, "getCurrentPosition", "geolocation");
noteAsk(navigator.geolocation, "watchPosition", "geolocation");
noteAsk(window.Notification, "requestPermission", "notifications");
noteAsk(navigator.mediaDevices, "getUserMedia", "media");
noteAsk(navigator.mediaDevices, "getDisplayMedia", "display-capture");

// --- containment: what never becomes a request the proxy could refuse -------------------
// Chromium runs with WebRTC's non-proxied UDP off and every episode behind a proxy that
// cannot carry QUIC, so STUN over UDP and WebTransport send nothing; note the attempts.
const noteConstruct = (name, describe) => {
  const Original = window[name];
  if (typeof Original !== "function") return;
  window[name] = new Proxy(Original, {
    construct(target, args, newTarget) {
      for (const entry of describe(args)) contain(entry);
      return Reflect.construct(target, args, newTarget);
    },
  });
};
const udpIceUrls = (config) => {
  const urls = [];
  for (const server of (config && config.iceServers) || []) {
    for (const url of [].concat(server.urls || server.url || [])) {
      const text = String(url);
      if (!/transport=tcp/i.test(text) && !/^turns:/i.test(text)) urls.push(text);
    }
  }
  return urls.map((url) => url + " [webrtc udp]");
};
noteConstruct("RTCPeerConnection", (args) => udpIceUrls(args[0]));
noteConstruct("WebTransport", (args) => [String(args[0]) + " [webtransport]"]);
