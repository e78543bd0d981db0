// A select-only custom combobox (WAI-ARIA combobox + listbox pattern), the kind design
// systems ship instead of a native <select>: click to open, click an option; the popup
// may carry a search field that filters the options. Keyboard: arrows, Enter, Escape.
window.Combobox = (() => {
  let openOne = null; // only one popup is open at a time

  function create(host, { options, value, search = "", onChange = () => {} }) {
    const field = host.dataset.field;
    const labelId = host.dataset.label;
    const listId = "lb-" + field;
    host.innerHTML = `
      <div role="combobox" id="cb-${field}" tabindex="0" aria-labelledby="${labelId}" aria-haspopup="listbox"
        aria-expanded="false" aria-controls="${listId}"><span class="cb-text"></span></div>
      <div class="cb-pop" hidden>
        ${search ? `<input type="search" aria-label="${App.escape(search)}" placeholder="${App.escape(search)}…" autocomplete="off" aria-controls="${listId}">` : ""}
        <ul role="listbox" id="${listId}" aria-labelledby="${labelId}"></ul>
      </div>`;
    const box = host.querySelector("[role=combobox]");
    const pop = host.querySelector(".cb-pop");
    const list = host.querySelector("[role=listbox]");
    const input = host.querySelector("input[type=search]");
    let current = value;
    let shown = []; // the options now in the list, after filtering
    let active = -1;

    const icon = (o) => (o.avatar ? `<span class="avatar sm agent" aria-hidden="true">${App.escape(o.avatar)}</span>`
      : o.dot ? `<span class="dot ${o.dot}" aria-hidden="true"></span>` : "");
    const byValue = (v) => options.find((o) => o.value === v);

    function paint() {
      const chosen = byValue(current);
      box.querySelector(".cb-text").outerHTML = chosen
        ? `<span class="cb-text">${icon(chosen)}${App.escape(chosen.label)}</span>`
        : `<span class="cb-text placeholder">Select…</span>`;
    }

    function render() {
      const needle = input ? input.value.trim().toLowerCase() : "";
      shown = options.filter((o) => !needle || o.label.toLowerCase().includes(needle));
      list.innerHTML = shown.map((o, i) => `<li role="option" id="opt-${field}-${i}" aria-selected="${o.value === current}"
        >${icon(o)}<span>${App.escape(o.label)}</span></li>`).join("")
        || `<li class="none" role="presentation">No matches for “${App.escape(needle)}”</li>`;
      setActive(Math.max(0, shown.findIndex((o) => o.value === current)));
    }

    function setActive(index) {
      active = shown.length ? Math.min(Math.max(index, 0), shown.length - 1) : -1;
      list.querySelectorAll("[role=option]").forEach((li, i) => li.classList.toggle("active", i === active));
      const id = active >= 0 ? `opt-${field}-${active}` : "";
      for (const el of [box, input]) if (el) { if (id) el.setAttribute("aria-activedescendant", id); else el.removeAttribute("aria-activedescendant"); }
      const li = list.querySelector(`#opt-${field}-${active}`);
      if (li) li.scrollIntoView({ block: "nearest" });
    }

    function open() {
      if (openOne && openOne !== api) openOne.close(false);
      openOne = api;
      pop.hidden = false;
      box.setAttribute("aria-expanded", "true");
      if (input) { input.value = ""; }
      render();
      (input || box).focus();
    }

    function close(refocus = true) {
      if (pop.hidden) return;
      pop.hidden = true;
      box.setAttribute("aria-expanded", "false");
      box.removeAttribute("aria-activedescendant");
      if (openOne === api) openOne = null;
      if (refocus) box.focus();
    }

    function choose(index) {
      const option = shown[index];
      if (!option) return;
      const changed = option.value !== current;
      current = option.value;
      paint();
      close();
      if (changed) onChange(current);
    }

    function keys(event) {
      const isOpen = !pop.hidden;
      const k = event.key;
      if (!isOpen) {
        if (["ArrowDown", "ArrowUp", "Enter", " "].includes(k)) { event.preventDefault(); open(); }
        else if (k.length === 1 && input) { open(); input.value = k; render(); event.preventDefault(); }
        else if (k.length === 1) { // type-ahead on a closed box picks the next option starting with the letter
          const from = options.findIndex((o) => o.value === current);
          const rotated = [...options.slice(from + 1), ...options.slice(0, from + 1)];
          const hit = rotated.find((o) => o.label.toLowerCase().startsWith(k.toLowerCase()));
          if (hit && hit.value !== current) { current = hit.value; paint(); onChange(current); }
        }
        return;
      }
      if (k === "ArrowDown") { event.preventDefault(); setActive(active + 1); }
      else if (k === "ArrowUp") { event.preventDefault(); setActive(active - 1); }
      else if (k === "Home" && event.target === box) { event.preventDefault(); setActive(0); }
      else if (k === "End" && event.target === box) { event.preventDefault(); setActive(shown.length - 1); }
      else if (k === "Enter" || (k === " " && event.target === box)) { event.preventDefault(); choose(active); }
      else if (k === "Escape") { event.preventDefault(); close(); }
      else if (k === "Tab") { close(false); }
    }

    box.addEventListener("click", () => (pop.hidden ? open() : close()));
    box.addEventListener("keydown", keys);
    if (input) {
      input.addEventListener("keydown", keys);
      input.addEventListener("input", render);
    }
    list.addEventListener("mousedown", (event) => event.preventDefault()); // keep focus where it is
    list.addEventListener("click", (event) => {
      const li = event.target.closest("[role=option]");
      if (li) choose(Number(li.id.split("-").pop()));
    });
    list.addEventListener("mousemove", (event) => {
      const li = event.target.closest("[role=option]");
      if (li) setActive(Number(li.id.split("-").pop()));
    });

    const api = {
      close,
      get value() { return current; },
      set value(v) { current = v; paint(); },
      contains: (node) => host.contains(node),
    };
    paint();
    return api;
  }

  document.addEventListener("mousedown", (event) => {
    if (openOne && !openOne.contains(event.target)) openOne.close(false);
  });

  return { create };
})();
