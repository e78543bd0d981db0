// Records a person's trusted clicks, typing and choices as semantic steps (role + name),
// kept in sessionStorage so they survive same-origin navigations. Runs in the page agent's
// world (it names targets through the agent); read by webharness/golden/path_recorder.py.
(() => {
  const STORE = "__webharness_recording__";
  const agent = () => window[Symbol.for("webharness.agent")];
  const push = (step) => {
    const steps = JSON.parse(sessionStorage.getItem(STORE) || "[]");
    steps.push(step);
    sessionStorage.setItem(STORE, JSON.stringify(steps));
  };
  const target = (event) => {
    const found = agent() && agent().identify(event.target);
    return found ? { found, target: { role: found.role, name: found.name } } : null;
  };
  const text = (el) => (el.isContentEditable ? el.innerText.trim() : el.value);

  document.addEventListener(
    "click",
    (event) => {
      // detail 0: a click made by the keyboard (Enter submitting a form); the key is recorded.
      if (!event.isTrusted || event.detail === 0) return;
      const hit = target(event);
      if (!hit) return;
      const el = hit.found.el;
      // Fields and choices are recorded by their change, not by the click that focused them.
      if (
        ["textbox", "searchbox", "checkbox", "radio", "switch"].includes(hit.found.role) ||
        el.tagName === "SELECT"
      )
        return;
      push({ action: "click", target: hit.target });
    },
    true,
  );

  document.addEventListener(
    "input",
    (event) => {
      if (!event.isTrusted) return;
      const hit = target(event);
      if (!hit || !["textbox", "searchbox", "spinbutton"].includes(hit.found.role)) return;
      push({ action: "fill", target: hit.target, value: text(hit.found.el) });
    },
    true,
  );

  document.addEventListener(
    "change",
    (event) => {
      const hit = target(event);
      if (!hit) return;
      const el = hit.found.el;
      if (el.tagName === "SELECT")
        push({
          action: "select_option",
          target: hit.target,
          value: el.selectedOptions[0]?.textContent.trim() ?? "",
        });
      else if (el.type === "checkbox" || el.type === "radio")
        push({ action: "check", target: hit.target, value: el.checked });
    },
    true,
  );

  document.addEventListener(
    "keydown",
    (event) => {
      if (!event.isTrusted || !["Enter", "Escape"].includes(event.key)) return;
      const hit = target(event);
      if (hit) push({ action: "press", target: hit.target, value: event.key });
    },
    true,
  );
})();
