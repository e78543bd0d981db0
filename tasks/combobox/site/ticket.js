// Ticket page: the conversation, and the ticket's properties edited with custom comboboxes.
const P = App.params();
const BODIES = {
  "Invoice charged twice this month": "Hi, our card was charged twice for the March invoice. Could you refund the duplicate payment? The two charges are on the same day.",
  "Cannot reset my password": "The password reset email never arrives. I've checked the spam folder and tried twice this morning.",
  "Export to CSV times out": "When I export last quarter's orders to CSV the page spins for a minute and then shows a timeout error.",
  "Add a second admin to our workspace": "We need a second administrator on our workspace so that our finance lead can manage billing.",
  "Mobile app crashes on login": "Since yesterday's update the iOS app closes as soon as I tap Sign in. Reinstalling did not help.",
  "Webhook deliveries are failing": "Our webhook endpoint has been receiving nothing since Tuesday. The dashboard shows the deliveries as failed with a 410.",
  "Change the billing address": "We have moved offices. Please update the billing address on our account before the next invoice.",
  "Two-factor codes are rejected": "The six-digit codes from my authenticator app are rejected every time, even right after they refresh.",
  "Request for a data processing agreement": "Our legal team asks for a signed data processing agreement before we roll the product out to more teams.",
  "Shipment tracking link is broken": "The tracking link in the shipping confirmation email leads to a 404 page.",
  "Upgrade to the annual plan": "We'd like to move from monthly to annual billing. Is the discount applied straight away?",
  "Calendar sync shows wrong time zone": "Events created in the app show up one hour late in our Google calendars.",
};
const STATUS = ["Open", "Pending", "On hold", "Solved"];
const PRIORITY = ["Low", "Normal", "High", "Urgent"];
const TYPE = ["Question", "Incident", "Problem", "Task"];
const slug = (s) => s.toLowerCase().replace(/\s+/g, "-");
const HOURS = 1 + Math.floor(Math.random() * 20); // seeded: same seed, same page
const PLAN = ["Starter", "Growth", "Business"][Math.floor(Math.random() * 3)];
const initials = (name) => name.split(" ").map((w) => w[0]).join("").slice(0, 2).toUpperCase();

function agentNames() {
  const names = P.others_first.map((first, i) => `${first} ${P.others_last[i]}`).filter((n) => n !== P.assignee).slice(0, 7);
  return [...names, P.assignee].sort((a, b) => a.localeCompare(b));
}

const form = document.getElementById("props");
const dirty = document.getElementById("dirty");
const boxes = {};
let ticket = null;

function buildBoxes(row) {
  const markDirty = () => { dirty.hidden = false; };
  const simple = (labels) => labels.map((l) => ({ value: l, label: l, dot: slug(l) }));
  const hosts = Object.fromEntries([...form.querySelectorAll(".cb")].map((h) => [h.dataset.field, h]));
  boxes.status = Combobox.create(hosts.status, { options: simple(STATUS), value: row.status, onChange: markDirty });
  boxes.priority = Combobox.create(hosts.priority, { options: simple(PRIORITY), value: row.priority, onChange: markDirty });
  boxes.type = Combobox.create(hosts.type, { options: simple(TYPE), value: row.type, onChange: markDirty });
  const agents = [{ value: "", label: "Unassigned" }, ...agentNames().map((n) => ({ value: n, label: n, avatar: initials(n) }))];
  boxes.assignee = Combobox.create(hosts.assignee, { options: agents, value: row.assignee || "", search: "Search agents", onChange: markDirty });
}

function renderTicket(row) {
  document.title = `#${row.number} ${row.subject} · Supportly`;
  document.getElementById("crumb-number").textContent = `#${row.number}`;
  document.getElementById("subject").textContent = row.subject;
  const hours = HOURS;
  document.getElementById("meta").innerHTML = `<span>#${row.number}</span>
    <span>Opened by <strong>${App.escape(row.requester)}</strong> · ${hours} h ago</span>
    <span>Assignee: <strong>${App.escape(row.assignee || "Unassigned")}</strong></span>
    <span class="badge status-${slug(row.status)}">${App.escape(row.status)}</span>
    <span class="badge${row.priority === "Urgent" ? " prio-urgent" : ""}">${App.escape(row.priority)} priority</span>`;
  const body = BODIES[row.subject] || "Could you take a look at this, please?";
  document.getElementById("thread").innerHTML = `
    <article class="message"><span class="avatar" aria-hidden="true">${initials(row.requester)}</span>
      <div><div class="who">${App.escape(row.requester)}<span class="when">via email · ${hours} h ago</span></div>
      <p>${App.escape(body)}</p><p>Thanks,<br>${App.escape(row.requester.split(" ")[0])}</p></div></article>
    <article class="message note"><span class="avatar agent" aria-hidden="true">BOT</span>
      <div><div class="who">Supportly triage<span class="tag">Internal note</span></div>
      <p>New ticket in the triage queue: it needs an assignee on the Customer Care team.</p></div></article>`;
  document.getElementById("requester").innerHTML = `<dt>Name</dt><dd>${App.escape(row.requester)}</dd>
    <dt>Company</dt><dd>${App.escape(row.company)}</dd><dt>Email</dt><dd>${App.escape(row.email)}</dd>
    <dt>Plan</dt><dd>${PLAN}</dd>`;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { status: boxes.status.value, priority: boxes.priority.value, type: boxes.type.value, assignee: boxes.assignee.value };
  const { ok, data } = await App.api(`tickets/${ticket.id}`, { method: "PATCH", body });
  if (!ok) { App.toast("Could not save the ticket: " + Object.values(data.errors || { e: data.error }).join("; ")); return; }
  ticket = data;
  dirty.hidden = true;
  renderTicket(ticket);
  document.getElementById("saved-at").textContent = "All changes saved";
  App.toast(`Ticket #${ticket.number} updated`);
});

(async () => {
  const { data } = await App.api(`tickets?number=${encodeURIComponent(P.ticket)}`);
  ticket = data[0];
  renderTicket(ticket);
  buildBoxes(ticket);
  form.dataset.ready = "1";
})();
