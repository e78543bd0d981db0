// Parcel Mail inbox: every change (sort, folder, archive, read, star) fetches the mailbox
// again and rebuilds every row from scratch, as many real mail clients do.
const NOW = 1743181200; // the mailbox's fixed clock: 28 Mar 2025, 17:00 UTC
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const FOLDER_TITLES = { inbox: "Inbox", starred: "Starred", sent: "Sent", drafts: "Drafts", archive: "Archive" };

const list = document.getElementById("messages");
const sortSelect = document.getElementById("sort");
const archiveSelected = document.getElementById("archive-selected");
const readSelected = document.getElementById("read-selected");
const view = { folder: "inbox", sort: "newest", settingsId: null, selected: new Set() };

const SORTS = {
  newest: (a, b) => b.received - a.received || b.id - a.id,
  oldest: (a, b) => a.received - b.received || a.id - b.id,
  sender: (a, b) => a.sender.localeCompare(b.sender, "en") || b.received - a.received,
  unread: (a, b) => Number(b.unread) - Number(a.unread) || b.received - a.received,
};

function when(seconds) {
  const d = new Date(seconds * 1000);
  const now = new Date(NOW * 1000);
  const pad = (n) => String(n).padStart(2, "0");
  if (d.getUTCFullYear() === now.getUTCFullYear() && d.getUTCMonth() === now.getUTCMonth() && d.getUTCDate() === now.getUTCDate()) {
    return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  }
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

function fullDate(seconds) {
  const d = new Date(seconds * 1000);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
}

function initials(name) {
  return name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join("");
}

function hue(text) {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) % 360;
  return h;
}

// One row, built fresh: new nodes on every render.
function row(message) {
  const li = document.createElement("li");
  li.className = "msg" + (message.unread ? " unread" : "") + (view.selected.has(message.id) ? " selected" : "");
  const subject = App.escape(message.subject);
  const inArchive = message.folder === "archive";
  li.setAttribute("aria-label", `${message.sender}, ${message.subject}, ${fullDate(message.received)}${message.unread ? ", unread" : ""}`);
  li.innerHTML = `
    <input type="checkbox" class="pick" aria-label="Select: ${subject}" ${view.selected.has(message.id) ? "checked" : ""}>
    <button type="button" class="star${message.starred ? " on" : ""}" aria-pressed="${message.starred}" aria-label="Star: ${subject}">★</button>
    <span class="avatar" style="background: hsl(${hue(message.sender)} 55% 88%); color: hsl(${hue(message.sender)} 45% 30%)" aria-hidden="true">${App.escape(initials(message.sender))}</span>
    <span class="from" title="${App.escape(message.email)}">${App.escape(message.sender)}</span>
    <span class="gist"><span class="subject">${subject}</span><span class="snippet"> — ${App.escape(message.snippet || "")}</span></span>
    <time datetime="${new Date(message.received * 1000).toISOString()}" title="${fullDate(message.received)}">${when(message.received)}</time>
    <span class="row-actions">
      <button type="button" class="icon" data-act="${inArchive ? "unarchive" : "archive"}" aria-label="${inArchive ? "Move to inbox" : "Archive"}: ${subject}">${inArchive ? "Move to inbox" : "Archive"}</button>
      <button type="button" class="icon" data-act="read" aria-label="${message.unread ? "Mark as read" : "Mark as unread"}: ${subject}">${message.unread ? "Mark read" : "Mark unread"}</button>
    </span>`;
  li.querySelector(".pick").addEventListener("change", (event) => {
    if (event.target.checked) view.selected.add(message.id); else view.selected.delete(message.id);
    li.classList.toggle("selected", event.target.checked);
    updateToolbar();
  });
  li.querySelector(".star").addEventListener("click", () => update([message.id], { starred: !message.starred }));
  li.querySelector("[data-act=read]").addEventListener("click", () => update([message.id], { unread: !message.unread }));
  li.querySelector("[data-act=archive], [data-act=unarchive]").addEventListener("click", () => {
    update([message.id], { folder: inArchive ? "inbox" : "archive" }, inArchive ? "Conversation moved to Inbox." : "Conversation archived.");
  });
  return li;
}

function updateToolbar() {
  const none = view.selected.size === 0;
  archiveSelected.disabled = none;
  readSelected.disabled = none;
  archiveSelected.textContent = view.folder === "archive" ? "Move selected to inbox" : "Archive selected";
}

// While a change is on its way to the server and back, the page says it is not ready
// (the task's ready check reads data-loaded), so nobody acts on rows about to be replaced.
function busy() {
  document.body.dataset.loaded = "0";
  list.setAttribute("aria-busy", "true");
}

async function render() {
  busy();
  const { data } = await App.api("messages");
  const inFolder = data.filter((m) => (view.folder === "starred" ? m.starred && m.folder === "inbox" : m.folder === view.folder));
  inFolder.sort(SORTS[view.sort] || SORTS.newest);
  view.selected = new Set([...view.selected].filter((id) => inFolder.some((m) => m.id === id)));
  document.getElementById("folder-title").textContent = FOLDER_TITLES[view.folder];
  document.title = `${FOLDER_TITLES[view.folder]} · Parcel Mail`;
  const inbox = data.filter((m) => m.folder === "inbox");
  const unread = inbox.filter((m) => m.unread).length;
  document.getElementById("inbox-count").textContent = unread ? String(unread) : "";
  document.getElementById("archive-count").textContent = String(data.filter((m) => m.folder === "archive").length || "");
  const shownUnread = inFolder.filter((m) => m.unread).length;
  document.getElementById("summary").textContent =
    `${inFolder.length} conversation${inFolder.length === 1 ? "" : "s"}` + (shownUnread ? ` · ${shownUnread} unread` : "");
  if (inFolder.length) {
    list.replaceChildren(...inFolder.map(row));
  } else {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = view.folder === "archive" ? "Nothing archived yet." : "No conversations here.";
    list.replaceChildren(empty);
  }
  for (const link of document.querySelectorAll(".folders a")) {
    if (link.dataset.folder === view.folder) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  updateToolbar();
  list.setAttribute("aria-busy", "false");
  document.body.dataset.loaded = "1";
}

async function update(ids, changes, note) {
  busy();
  for (const id of ids) await App.api(`messages/${id}`, { method: "PATCH", body: changes });
  if ("folder" in changes) for (const id of ids) view.selected.delete(id);
  if (note) App.toast(note);
  await render();
}

sortSelect.addEventListener("change", async () => {
  busy();
  view.sort = sortSelect.value;
  await App.api(`settings/${view.settingsId}`, { method: "PATCH", body: { sort: view.sort } });
  await render();
});

archiveSelected.addEventListener("click", () => {
  const ids = [...view.selected];
  const toInbox = view.folder === "archive";
  update(ids, { folder: toInbox ? "inbox" : "archive" },
    toInbox ? `${ids.length} moved to Inbox.` : `${ids.length} conversation${ids.length === 1 ? "" : "s"} archived.`);
});
readSelected.addEventListener("click", () => update([...view.selected], { unread: false }));
document.querySelector(".compose").addEventListener("click", () => App.toast("Compose is not available in this demo mailbox."));

window.addEventListener("hashchange", () => {
  const folder = location.hash.slice(1);
  view.folder = FOLDER_TITLES[folder] ? folder : "inbox";
  view.selected.clear();
  render();
});

(async () => {
  const { data } = await App.api("settings");
  const settings = data[0];
  view.settingsId = settings.id;
  view.sort = settings.sort;
  sortSelect.value = settings.sort;
  const folder = location.hash.slice(1);
  view.folder = FOLDER_TITLES[folder] ? folder : "inbox";
  await render();
})();
