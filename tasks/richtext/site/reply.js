// Ticket page with a reply composer: a contenteditable editor with a small toolbar.
const P = App.params();
const AGENT = "Jordan Reyes";
const HOURS = 2 + Math.floor(Math.random() * 30); // seeded: same seed, same page
const initials = (name) => name.split(" ").map((w) => w[0]).join("").slice(0, 2).toUpperCase();
const paragraphs = (text) => text.split(/\n{2,}/).map((p) => `<p>${App.escape(p).replace(/\n/g, "<br>")}</p>`).join("");

const composer = document.getElementById("composer");
const editor = document.getElementById("editor");
const sendButton = document.getElementById("send");
const errorBox = document.getElementById("composer-error");
let ticket = null;
let kind = "reply";

function renderTicket(row) {
  document.title = `#${row.number} ${row.subject} · Supportly`;
  document.getElementById("crumb-number").textContent = `#${row.number}`;
  document.getElementById("subject").textContent = row.subject;
  document.getElementById("meta").innerHTML = `<span>#${row.number}</span>
    <span>Opened by <strong>${App.escape(row.requester)}</strong> · ${HOURS} h ago</span>
    <span class="badge status-open">Open</span><span class="badge">${App.escape(row.priority)} priority</span>`;
  document.getElementById("props").innerHTML = `<dt>Status</dt><dd>Open</dd><dt>Priority</dt><dd>${App.escape(row.priority)}</dd>
    <dt>Assignee</dt><dd>${AGENT} (you)</dd><dt>Channel</dt><dd>Email</dd>`;
  document.getElementById("requester").innerHTML = `<dt>Name</dt><dd>${App.escape(row.requester)}</dd>
    <dt>Company</dt><dd>${App.escape(row.company)}</dd><dt>Email</dt><dd>${App.escape(row.email)}</dd>`;
  setKind(kind);
}

async function renderThread() {
  const { data } = await App.api(`messages?ticket=${ticket.number}`);
  document.getElementById("thread").innerHTML = data.map((m) => {
    const cls = m.kind === "note" ? "message note" : m.kind === "reply" ? "message agent-reply" : "message";
    const tag = m.kind === "note" ? '<span class="tag">Internal note</span>' : "";
    const when = m.kind === "customer" ? `via email · ${HOURS} h ago` : m.id > 2 ? "just now" : `${Math.max(1, HOURS - 1)} h ago`;
    return `<article class="${cls}"><span class="avatar${m.kind === "customer" ? "" : " agent"}" aria-hidden="true">${initials(m.author)}</span>
      <div><div class="who">${App.escape(m.author)}<span class="when">${when}</span>${tag}</div>
      <div class="body">${paragraphs(m.body)}</div></div></article>`;
  }).join("");
}

function setKind(next) {
  kind = next;
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const on = tab.dataset.kind === kind;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
  }
  composer.classList.toggle("note", kind === "note");
  sendButton.textContent = kind === "note" ? "Add note" : "Send reply";
  editor.dataset.placeholder = kind === "note" ? "Write a note for your team (the customer won't see it)…" : "Write your reply to the customer…";
  document.getElementById("to").innerHTML = kind === "note" ? "Visible to agents only"
    : `To: <strong>${App.escape(ticket.requester)}</strong> &lt;${App.escape(ticket.email)}&gt;`;
}

function editorText() {
  return editor.innerText.replace(/\u00a0/g, " ").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

async function send() {
  errorBox.hidden = true;
  const body = editorText();
  if (!body) { errorBox.textContent = "Write a message before sending."; errorBox.hidden = false; return; }
  const { ok, data } = await App.api("messages", {
    method: "POST", body: { ticket: ticket.number, kind, author: AGENT, body, body_html: editor.innerHTML },
  });
  if (!ok) { errorBox.textContent = Object.values(data.errors || { error: data.error }).join(" "); errorBox.hidden = false; return; }
  editor.innerHTML = "";
  await renderThread();
  App.toast(kind === "note" ? "Internal note added" : `Reply sent to ${ticket.requester}`);
}

// --- the toolbar ---------------------------------------------------------------------
const toolbar = document.querySelector("[role=toolbar]");
toolbar.addEventListener("mousedown", (event) => { if (event.target.closest(".tool")) event.preventDefault(); });
toolbar.addEventListener("click", (event) => {
  const tool = event.target.closest(".tool");
  if (!tool) return;
  editor.focus();
  const cmd = tool.dataset.cmd;
  if (cmd === "createLink") {
    const selected = String(getSelection()).trim();
    if (/^https?:\/\//.test(selected)) document.execCommand("createLink", false, selected);
    else App.toast("Select a web address (https://…) to turn it into a link");
  } else {
    document.execCommand(cmd, false, null);
  }
  syncTools();
});
function syncTools() {
  for (const tool of toolbar.querySelectorAll("[data-cmd=bold],[data-cmd=italic],[data-cmd=underline]")) {
    tool.setAttribute("aria-pressed", String(editor.contains(getSelection().anchorNode) && document.queryCommandState(tool.dataset.cmd)));
  }
}
document.addEventListener("selectionchange", syncTools);
syncTools(); // the toggles say "not pressed" from the start, as a real editor's do

editor.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
});
editor.addEventListener("input", () => { errorBox.hidden = true; if (!editor.textContent.trim() && !editor.querySelector("li,img")) editor.innerHTML = ""; });
sendButton.addEventListener("click", send);
document.querySelector("[role=tablist]").addEventListener("click", (event) => {
  const tab = event.target.closest("[role=tab]");
  if (tab) { setKind(tab.dataset.kind); editor.focus(); }
});

(async () => {
  const { data } = await App.api(`tickets?number=${encodeURIComponent(P.ticket)}`);
  ticket = data[0];
  renderTicket(ticket);
  await renderThread();
  composer.dataset.ready = "1";
})();
