// Helpers the built-in scenario sites share: the REST client, toasts, field errors.
window.App = (() => {
  async function api(path, options = {}) {
    const response = await fetch("/api/" + path, {
      method: options.method || "GET",
      headers: { "Content-Type": "application/json" },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { ok: response.ok, status: response.status, data: text ? JSON.parse(text) : null };
  }

  function toast(message) {
    const node = document.createElement("div");
    node.className = "toast";
    node.setAttribute("role", "status");
    node.textContent = message;
    document.body.appendChild(node);
    setTimeout(() => node.remove(), 4000);
  }

  // Shows the server's per-field errors next to the fields, and returns how many there were.
  function showErrors(form, errors) {
    form.querySelectorAll(".error").forEach((n) => n.remove());
    form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
    for (const [name, message] of Object.entries(errors || {})) {
      const found = form.elements[name];
      if (!found) continue;
      const input = found instanceof RadioNodeList ? found[0] : found;  // a radio group: mark its first
      input.setAttribute("aria-invalid", "true");
      const note = document.createElement("div");
      note.className = "error";
      note.id = "error-" + name;
      note.textContent = message;
      input.setAttribute("aria-describedby", note.id);
      input.closest(".field").appendChild(note);
    }
    return Object.keys(errors || {}).length;
  }

  // A page that can serve the next episode in its document (a task's restart_in_place:
  // "App.restart()") starts through App.page(start): the body is kept as served, then
  // start runs. App.restart() puts that body back and runs start again, so start keeps its
  // state in its own scope and listens on the body's elements, or with the signal it is
  // given, which the restart aborts. The harness has put the next episode's seed and
  // params in place first (window.__WEBEVAL__, Math.random).
  let served = null;
  let started = null; // {start, controller}
  function page(start) {
    served = document.body.cloneNode(true); // its scripts come back as already run
    begin(start);
  }
  function begin(start) {
    started = { start, controller: new AbortController() };
    start(started.controller.signal);
  }
  function restart() {
    if (!started) throw new Error("App.restart(): this page did not start through App.page");
    started.controller.abort();
    document.body.replaceWith(served.cloneNode(true));
    begin(started.start);
  }

  const params = () => (window.__WEBEVAL__ && window.__WEBEVAL__.params) || {};
  const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  return { api, toast, showErrors, page, restart, params, escape };
})();
