// The page agent's hooks in the page's own world: what only that world can see. The agent
// itself runs in an isolated world of its own (agent_world.py), where the page's scripts
// cannot replace the builtins it uses; these hooks count the page's requests and the work
// it has scheduled, note what containment refuses there, and evaluate the task's JS
// criteria. They keep every builtin they use from before the page ran, and talk to the
// agent through DOM events, which both worlds see:
//   webharness:ask {since, until}  -> webharness:answer {pending, due, contained}
//   webharness:criteria? {expressions} -> webharness:criteria {values, errors}
//   webharness:ready? {expression} -> webharness:ready {value}
//   webharness:change               a request of the page finished
//   webharness:internals? (on the window, or an element) -> webharness:internals on each
//                                   host with internals {role, label, checked...}
(() => {
  "use strict"; // arguments not mapped to the parameters: a hook may rewrite its arguments
  // A plain name, read without Symbol.for (which a page may replace); the property is
  // neither writable nor configurable, so the page cannot take it over.
  const KEY = "__webharness_hooks__";
  if (window[KEY]) return;
  const apply = Reflect.apply,
    construct = Reflect.construct,
    define = Object.defineProperty;
  const now = performance.now.bind(performance);
  const dispatch = EventTarget.prototype.dispatchEvent,
    listen = EventTarget.prototype.addEventListener;
  const Custom = CustomEvent,
    Wrap = Proxy,
    Text = String;
  const then = Promise.prototype.then;
  const isArray = Array.isArray;
  const tell = (type, detail) =>
    apply(dispatch, window, [new Custom("webharness:" + type, { detail })]);

  // --- requests in flight ---------------------------------------------------------------
  let pending = 0;
  const finished = () => {
    pending--;
    tell("change", null);
  };
  const counted = (promise) => {
    pending++;
    apply(then, promise, [finished, finished]);
    return promise;
  };
  const originalFetch = window.fetch;
  if (originalFetch)
    window.fetch = function () {
      return counted(apply(originalFetch, this, arguments));
    };
  // A response's body is read after fetch() resolves: the read is in flight too, so a page
  // that fetches, reads the JSON, then renders is not seen as quiet in between.
  for (const reader of ["json", "text", "arrayBuffer", "blob", "formData"]) {
    const original = Response.prototype[reader];
    if (original)
      Response.prototype[reader] = function () {
        return counted(apply(original, this, arguments));
      };
  }
  const originalSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    pending++;
    apply(listen, this, ["loadend", finished, { once: true }]);
    return apply(originalSend, this, arguments);
  };

  // --- work the page has scheduled --------------------------------------------------------
  // A timeout about to fire, an animation frame asked for or a message posted (how
  // schedulers such as React's queue their work) can change the DOM in the next few ms.
  const timeouts = Object.create(null); // id -> when it is due (performance.now() ms)
  const setTimer = window.setTimeout,
    clearTimer = window.clearTimeout;
  window.setTimeout = function (handler, delay) {
    const args = arguments;
    let id;
    if (typeof handler === "function") {
      args[0] = function () {
        delete timeouts[id];
        return apply(handler, this, arguments);
      };
    } // (strict mode: handler stays the page's own function)
    id = apply(setTimer, window, args);
    timeouts[id] = now() + (Number(delay) || 0);
    return id;
  };
  window.clearTimeout = function (id) {
    delete timeouts[id];
    return apply(clearTimer, window, [id]);
  };
  const frames = Object.create(null); // id -> the request's number (frameSeq), while pending
  let framesDue = 0,
    frameSeq = 0;
  const nativeFrame = window.requestAnimationFrame,
    nativeCancelFrame = window.cancelAnimationFrame;
  const frameAsked = (id) => {
    frames[id] = ++frameSeq;
    framesDue++;
  };
  const frameDone = (id) => {
    if (frames[id]) {
      delete frames[id];
      framesDue--;
    }
  };
  window.requestAnimationFrame = function (callback) {
    // Not a function: the native call throws, as it would.
    if (typeof callback !== "function") return apply(nativeFrame, window, [callback]);
    let id;
    id = apply(nativeFrame, window, [
      function (t) {
        frameDone(id);
        return apply(callback, this, [t]);
      },
    ]);
    frameAsked(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) {
    frameDone(id);
    return apply(nativeCancelFrame, window, [id]);
  };
  // Pages run with prefers-reduced-motion (page_session.py), which component libraries
  // honour with zero-length animations (Shoelace's listbox: duration 0). Such an animation
  // is finished at once and gone from document.getAnimations(), yet its finish event, on
  // which the page acts (hides the listbox it animated out), comes with the next frame:
  // it is an animation frame owed, until that event (or its cancel).
  const animate = Element.prototype.animate;
  const playState = Object.getOwnPropertyDescriptor(Animation.prototype, "playState").get;
  let finishes = 0;
  Element.prototype.animate = function () {
    const animation = apply(animate, this, arguments);
    if (apply(playState, animation, []) === "finished") {
      const id = "finish " + ++finishes;
      frameAsked(id);
      apply(listen, animation, ["finish", () => frameDone(id), { once: true }]);
      apply(listen, animation, ["cancel", () => frameDone(id), { once: true }]);
    }
    return animation;
  };
  let lastPost = -Infinity;
  const notePost = (owner) => {
    const original = owner.postMessage;
    owner.postMessage = function () {
      lastPost = now();
      return apply(original, this, arguments);
    };
  };
  notePost(MessagePort.prototype);
  notePost(window);
  // The oldest animation frame still to run, by its request's number (the agent's settle
  // waits for those asked for before it began); undefined when none is.
  const oldestFrame = () => {
    let oldest;
    for (const id in frames) if (oldest === undefined || frames[id] < oldest) oldest = frames[id];
    return oldest;
  };
  // Is any of it due? A frame or a message pending since ``since`` (the last DOM change),
  // or a timeout due by ``until``.
  const workDue = (since, until) => {
    if (framesDue > 0 || lastPost >= since) return true;
    const stale = now() - 1000;
    for (const id in timeouts) {
      if (timeouts[id] <= until) return true;
      if (timeouts[id] < stale) delete timeouts[id]; // a string handler, run long ago
    }
    return false;
  };

  // --- shadow roots: a document's mutation observer does not see into them ---------------
  // Each root attached is announced on its host, so that the agent watches it from the
  // start (a component renders into its root right after attaching it). A host still out
  // of the document (a constructor attaches it) is announced at the agent's next
  // question after it is connected: an event on it would not reach the agent before.
  const attachShadow = Element.prototype.attachShadow;
  const Plain = Event,
    connected = Object.getOwnPropertyDescriptor(Node.prototype, "isConnected").get;
  let unannounced = [];
  const announce = (host) => {
    if (!apply(connected, host, [])) return false;
    apply(dispatch, host, [new Plain("webharness:shadow", { composed: true })]);
    return true;
  };
  Element.prototype.attachShadow = function () {
    const root = apply(attachShadow, this, arguments);
    if (!announce(this) && unannounced.length < 5000) unannounced[unannounced.length] = this;
    return root;
  };
  const announceConnected = () => {
    if (!unannounced.length) return;
    const waiting = unannounced;
    unannounced = [];
    for (let i = 0; i < waiting.length; i++)
      if (!announce(waiting[i])) unannounced[unannounced.length] = waiting[i];
  };

  // --- ElementInternals: a custom element's own ARIA semantics -----------------------------
  // A component may give its host a role, a label and states through ElementInternals
  // (Fluent UI 3 does), which only this world can read. Asked on the window, the hooks
  // answer with an event on each connected host that has internals (one question a pass,
  // however many custom elements there are); asked on an element, for that one alone.
  const attachInternals = HTMLElement.prototype.attachInternals;
  const Weak = WeakRef,
    deref = WeakRef.prototype.deref,
    composedPath = Event.prototype.composedPath;
  const internalsOf = new WeakMap(),
    internalsGet = WeakMap.prototype.get,
    internalsSet = WeakMap.prototype.set;
  let hosts = []; // WeakRefs of the hosts with internals
  const INTERNALS_ARIA = [
    ["role", "role"],
    ["label", "ariaLabel"],
    ["checked", "ariaChecked"],
    ["disabled", "ariaDisabled"],
    ["expanded", "ariaExpanded"],
    ["selected", "ariaSelected"],
    ["pressed", "ariaPressed"],
    ["required", "ariaRequired"],
    ["level", "ariaLevel"],
    ["valuenow", "ariaValueNow"],
    ["valuetext", "ariaValueText"],
    ["haspopup", "ariaHasPopup"],
  ];
  if (attachInternals) {
    HTMLElement.prototype.attachInternals = function () {
      const internals = apply(attachInternals, this, arguments);
      apply(internalsSet, internalsOf, [this, internals]);
      if (hosts.length < 20000) hosts[hosts.length] = new Weak(this);
      return internals;
    };
  }
  const semanticsOf = (internals) => {
    const semantics = {};
    for (let i = 0; i < INTERNALS_ARIA.length; i++) {
      const value = internals[INTERNALS_ARIA[i][1]];
      if (value !== null && value !== undefined) semantics[INTERNALS_ARIA[i][0]] = Text(value);
    }
    return semantics;
  };
  const answerOn = (host) =>
    apply(dispatch, host, [
      new Custom("webharness:internals", {
        detail: semanticsOf(apply(internalsGet, internalsOf, [host])),
        bubbles: true,
        composed: true,
      }),
    ]);
  apply(listen, window, [
    "webharness:internals?",
    (event) => {
      const asked = apply(composedPath, event, [])[0];
      if (asked !== window) {
        if (apply(internalsGet, internalsOf, [asked])) answerOn(asked);
        return;
      }
      const live = [];
      for (let i = 0; i < hosts.length; i++) {
        const host = apply(deref, hosts[i], []);
        if (!host) continue;
        live[live.length] = hosts[i];
        if (apply(connected, host, [])) answerOn(host);
      }
      hosts = live;
    },
    true,
  ]);

  // --- containment: what the browser refuses here, noted -----------------------------------
  let contained = [];
  const contain = (entry) => {
    if (contained.length < 50) contained[contained.length] = entry;
  };
  const noteAsk = (owner, method, name) => {
    const original = owner && owner[method];
    if (typeof original !== "function") return;
    owner[method] = function () {
      contain(name + " [permission]");
      return apply(original, this, arguments);
    };
  };
  noteAsk(navigator.geolocation, "getCurrentPosition", "geolocation");
  noteAsk(navigator.geolocation, "watchPosition", "geolocation");
  noteAsk(window.Notification, "requestPermission", "notifications");
  noteAsk(navigator.mediaDevices, "getUserMedia", "media");
  noteAsk(navigator.mediaDevices, "getDisplayMedia", "display-capture");
  // Chromium runs with WebRTC's non-proxied UDP off and every episode behind a proxy that
  // cannot carry QUIC, so STUN over UDP and WebTransport send nothing; note the attempts.
  const noteConstruct = (name, describe) => {
    const Original = window[name];
    if (typeof Original !== "function") return;
    window[name] = new Wrap(Original, {
      construct(target, args, newTarget) {
        try {
          describe(args);
        } catch {
          /* a page that broke what describe uses */
        }
        return construct(target, args, newTarget);
      },
    });
  };
  noteConstruct("RTCPeerConnection", (args) => {
    const servers = (args[0] && args[0].iceServers) || [];
    for (let i = 0; i < servers.length; i++) {
      const urls = servers[i].urls || servers[i].url || [];
      const list = typeof urls === "string" ? [urls] : urls;
      for (let j = 0; j < list.length; j++) {
        const url = Text(list[j]);
        if (!/transport=tcp/i.test(url) && !/^turns:/i.test(url)) contain(url + " [webrtc udp]");
      }
    }
  });
  noteConstruct("WebTransport", (args) => contain(Text(args[0]) + " [webtransport]"));

  // --- the agent's questions -------------------------------------------------------------
  apply(listen, window, [
    "webharness:ask",
    (event) => {
      const question = event.detail || {};
      announceConnected();
      const notes = contained;
      contained = [];
      tell("answer", {
        pending,
        due: workDue(question.since, question.until),
        contained: notes,
        frameSeq,
        oldestFrame: oldestFrame(),
      });
    },
  ]);

  // --- the task's JS criteria, in the page's world (they read the app's own state) ---------
  // A value is a number (a count) or true/false; one that throws is false, and what it
  // threw is kept so the harness reports it rather than a silent false.
  const evaluate = (0, eval);
  const thrown = (err) => Text(err && err.name ? err.name + ": " + err.message : err);
  const criteria = (expressions) => {
    const values = {},
      errors = {};
    for (let i = 0; i < expressions.length; i++) {
      const expression = expressions[i];
      try {
        const value = evaluate(expression);
        values[expression] = typeof value === "number" ? value : !!value;
      } catch (err) {
        values[expression] = false;
        errors[expression] = thrown(err);
      }
    }
    return { values, errors };
  };

  // The agent asks over an event (webharness:criteria? {expressions} -> webharness:criteria
  // {values, errors}) right after its snapshot pass, in the same call.
  apply(listen, window, [
    "webharness:criteria?",
    (event) => {
      const asked = (event.detail || {}).expressions;
      tell("criteria", criteria(isArray(asked) ? asked : []));
    },
  ]);

  // --- the task's ready condition, a JS expression (it may read the app's own state) -----
  // The agent asks over an event (webharness:ready? {expression} -> webharness:ready
  // {value}) and is answered at once: true, false, or what the expression threw, as text.
  apply(listen, window, [
    "webharness:ready?",
    (event) => {
      let value;
      try {
        value = !!evaluate(Text((event.detail || {}).expression));
      } catch (err) {
        value = thrown(err);
      }
      tell("ready", { value });
    },
  ]);
  define(window, KEY, { value: Object.freeze({ criteria }), enumerable: false });
})();
