// The signed-in overview: who the session belongs to, and a seeded snapshot of their books.
const CUSTOMERS = ["Northwind Traders", "Juniper Travel", "Oakridge Partners", "Summit Consulting", "Tidewater Marine",
  "Willow Education", "Zenith Hotels", "Solstice Solar", "Cobalt Systems", "Lumen Optics"];
const money = (n) => (n < 0 ? "−$" : "$") + Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const pick = (list) => list[Math.floor(Math.random() * list.length)];

function showSignedOut(message) {
  document.getElementById("welcome").textContent = "You're signed out";
  document.getElementById("org").innerHTML = `${App.escape(message)} <a href="index.html">Sign in</a>`;
  document.getElementById("cards").replaceChildren();
  document.body.dataset.loaded = "1";
}

function fillBooks() {
  const cash = 20000 + Math.round(Math.random() * 180000 * 100) / 100;
  const owed = 4000 + Math.round(Math.random() * 40000 * 100) / 100;
  const bills = 1000 + Math.round(Math.random() * 15000 * 100) / 100;
  const cards = [["Cash balance", money(cash), "Across 3 bank accounts"], ["Owed to you", money(owed), "7 open invoices"],
    ["Bills to pay", money(bills), "Next due in 4 days"], ["Profit this month", money(owed - bills / 2), "Up 12% on last month"]];
  document.getElementById("cards").innerHTML = cards.map(([label, value, note]) =>
    `<div class="panel stat"><div class="muted">${label}</div><div class="value">${value}</div><div class="muted small">${note}</div></div>`).join("");
  const rows = [];
  for (let i = 0; i < 5; i++) {
    const status = pick(["Paid", "Sent", "Overdue", "Sent", "Draft"]);
    const badge = { Paid: "ok", Overdue: "warn" }[status] || "";
    rows.push(`<tr><td>INV-${1040 - i}</td><td>${pick(CUSTOMERS)}</td><td>${4 + i * 3} Apr 2025</td>
      <td>${money(300 + Math.round(Math.random() * 900000) / 100)}</td><td><span class="badge ${badge}">${status}</span></td></tr>`);
  }
  document.getElementById("invoices").innerHTML = rows.join("");
}

(async () => {
  const id = new URLSearchParams(location.search).get("session");
  const session = id && /^\d+$/.test(id) ? await App.api(`sessions/${id}`) : { ok: false };
  if (!session.ok) return showSignedOut("Your session has ended.");
  const by = session.data.method === "password" ? `email=${encodeURIComponent(session.data.email)}` : `phone=${encodeURIComponent(session.data.phone)}`;
  const { data: users } = await App.api(`users?${by}`);
  const user = users[0];
  if (!user) return showSignedOut("We couldn't find your account.");
  const first = user.name.split(" ")[0];
  document.getElementById("welcome").textContent = `Welcome back, ${first}`;
  document.getElementById("org").textContent = `${user.company} · Fiscal year 2025`;
  document.getElementById("who").textContent = user.name;
  fillBooks();
  document.body.dataset.loaded = "1";
})();

document.getElementById("sign-out").addEventListener("click", async () => {
  const id = new URLSearchParams(location.search).get("session");
  if (id) await App.api(`sessions/${id}`, { method: "DELETE" });
  location.href = "index.html";
});
document.getElementById("new-invoice").addEventListener("click", () => App.toast("Invoices open in the Invoices tab."));
