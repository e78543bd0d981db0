// Payouts report. The page opens on a stale run; "Run report" regenerates it, which takes
// the episode's seeded delay (params.delay_ms). The stale figures stay on screen, dimmed,
// until the fresh ones arrive. Every figure comes from the params and the seeded Math.random.
const P = App.params();
const METHODS = ["Card", "Bank transfer", "Wallet"];
const VALUE = Number(P.value_k) * 1000 + Number(P.value_u);
const SHOWN = String(P.value_shown), PLAIN = String(P.value_plain);
const KEY = { "Gross sales": "gross", Refunds: "refunds", "Net payout": "net" }[P.metric];

const rnd = (lo, hi) => lo + Math.random() * (hi - lo);
const money = (n) => "$" + Math.round(n).toLocaleString("en-US");
const count = (n) => Math.round(n).toLocaleString("en-US");
// No figure but the asked one may contain its digits (a stale or neighbouring figure named
// in an answer must never pass for it).
const clashes = (n) => { const text = money(n); return text.includes(SHOWN) || text.replace(/\D/g, "").includes(PLAIN); };

// A report whose total under KEY is exactly `target` (a fresh run) or about it (stale).
function report(target, exact) {
  const refundRate = rnd(0.035, 0.085), feeRate = rnd(0.024, 0.034);
  const share = { gross: 1, refunds: refundRate, net: 1 - refundRate - feeRate }[KEY];
  const gross = target / share;
  const weights = METHODS.map(() => rnd(0.5, 1.5));
  const sum = weights.reduce((a, b) => a + b, 0);
  const rows = METHODS.map((method, i) => {
    const g = Math.round((gross * weights[i]) / sum);
    const refunds = Math.round(g * refundRate * rnd(0.8, 1.2)), fees = Math.round(g * feeRate * rnd(0.95, 1.05));
    return { method, gross: g, refunds, fees, net: g - refunds - fees, count: Math.max(1, Math.round(g / rnd(38, 95))) };
  });
  keepDigitsUnique(rows, target, exact);
  return { rows, total: totals(rows) };
}

const FIELDS = ["gross", "refunds", "fees", "net", "count"];

// Nudges figures until none but the asked total contains the asked digits.
function keepDigitsUnique(rows, target, exact) {
  for (let tries = 0; tries < 50; tries++) {
    if (exact) settle(rows, target, tries % rows.length);
    const row = rows.find((r) => FIELDS.some((k) => clashes(r[k])));
    const total = totals(rows);
    if (!row && !FIELDS.some((k) => !(exact && k === KEY) && clashes(total[k]))) return;
    const moved = row || rows[tries % rows.length];
    Object.assign(moved, { gross: moved.gross + 5, refunds: moved.refunds + 2, fees: moved.fees + 1, count: moved.count + 1 });
    moved.net = moved.gross - moved.refunds - moved.fees;
  }
}

// Makes the rows' KEY column add up to `target` (rounding and noise leave it a little off)
// by moving one row's gross sales (or refunds), keeping net = gross - refunds - fees.
function settle(rows, target, i) {
  const row = rows[i];
  const diff = target - totals(rows)[KEY];
  if (KEY === "refunds") row.refunds += diff;
  else row.gross += diff;
  row.net = row.gross - row.refunds - row.fees;
}

const totals = (rows) => rows.reduce((t, r) => ({ gross: t.gross + r.gross, refunds: t.refunds + r.refunds, fees: t.fees + r.fees,
  net: t.net + r.net, count: t.count + r.count }), { gross: 0, refunds: 0, fees: 0, net: 0, count: 0 });

const FRESH = report(VALUE, true);
const STALE = report(Math.round(VALUE * rnd(0.84, 0.95)), false);
const LATE = FRESH.total.count - STALE.total.count;
const STAGES = ["Collecting transactions", "Matching refunds and fees", "Totalling by payment method"];

function render(data) {
  const t = data.total;
  const tiles = [["Gross sales", t.gross], ["Refunds", t.refunds], ["Processing fees", t.fees], ["Net payout", t.net]];
  document.getElementById("tiles").innerHTML = tiles.map(([label, n]) => `
    <div class="tile${label === "Net payout" ? " net" : ""}" role="group" aria-label="${label}">
      <div class="label">${label}</div><div class="figure">${money(n)}</div></div>`).join("");
  document.getElementById("methods").innerHTML = data.rows.map((r) => `<tr><th scope="row">${r.method}</th>
    <td class="num">${count(r.count)}</td><td class="num">${money(r.gross)}</td><td class="num">${money(r.refunds)}</td>
    <td class="num">${money(r.fees)}</td><td class="num">${money(r.net)}</td></tr>`).join("");
}

function setFreshness(fresh) {
  const badge = document.getElementById("freshness");
  badge.className = "badge " + (fresh ? "ok" : "stale");
  badge.textContent = fresh ? "Up to date" : "Out of date";
  document.getElementById("run-note").textContent = fresh
    ? `Generated just now · ${count(FRESH.total.count)} transactions`
    : `Last run 3 days ago, before ${count(Math.max(LATE, 1))} late transactions settled`;
}

function run() {
  const button = document.getElementById("run");
  const overlay = document.getElementById("overlay");
  const bar = document.getElementById("progress");
  const delay = Number(P.delay_ms) || 2500;
  button.disabled = true;
  button.textContent = "Running…";
  document.getElementById("download").hidden = true;
  document.getElementById("report").setAttribute("aria-busy", "true");
  document.getElementById("stage").textContent = STAGES[0];
  overlay.hidden = false;
  bar.style.animationDuration = delay + "ms";
  bar.classList.add("running");
  setTimeout(() => { document.getElementById("stage").textContent = STAGES[1]; }, delay / 2);
  setTimeout(() => {
    render(FRESH);
    setFreshness(true);
    overlay.hidden = true;
    bar.classList.remove("running");
    document.getElementById("report").setAttribute("aria-busy", "false");
    button.disabled = false;
    button.textContent = "Run report";
    document.getElementById("download").hidden = false;
  }, delay);
}

document.getElementById("brand").textContent = `${P.company} Payments`;
document.getElementById("title").textContent = `Payouts summary · ${P.period}`;
document.title = `Payouts summary · ${P.company} Payments`;
render(STALE);
setFreshness(false);
document.getElementById("run").addEventListener("click", run);
document.getElementById("download").addEventListener("click", () => {
  App.toast(`Export started: payouts-${String(P.period).toLowerCase().replace(" ", "-")}.csv`);
});
