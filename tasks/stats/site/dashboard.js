// Sales dashboard. Every figure is built from the episode's seeded parameters and the
// seeded Math.random: the asked figure (value) sits in its cell of the asked month, and
// every other figure is generated around it, so the same seed always shows the same page.
const P = App.params();
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
  "October", "November", "December"];
const REGIONS = ["North America", "Latin America", "Western Europe", "Northern Europe", "Middle East & Africa", "Asia Pacific"];
const COLORS = ["#4c6ef5", "#f76707", "#12b886", "#7950f2", "#e64980", "#15aabf"];
const YEAR = Number(P.year);
const TARGET = { month: MONTHS.indexOf(P.month), metric: P.metric === "Gross profit" ? "profit" : "revenue",
  scope: P.scope, value: Number(P.value_k) * 1000 + Number(P.value_u) };
const SHOWN = String(P.value_shown), PLAIN = String(P.value_plain);

const rnd = (lo, hi) => lo + Math.random() * (hi - lo);
const money = (n) => "$" + Math.round(n).toLocaleString("en-US");
const count = (n) => Math.round(n).toLocaleString("en-US");
const pct = (n) => (n >= 0 ? "+" : "−") + Math.abs(n * 100).toFixed(1) + "%";

// months[0] is December of the year before (for January's comparison); months[k] is month k-1.
function generate() {
  const regions = REGIONS.map(() => ({ weight: rnd(0.45, 1.7), aov: rnd(48, 210), margin: rnd(0.26, 0.44), trend: rnd(-0.015, 0.03) }));
  const months = [];
  for (let k = 0; k <= 12; k++) {
    const season = 1 + 0.1 * Math.sin((k / 12) * 2 * Math.PI + 1.2);
    months.push(regions.map((r) => ({
      metric: r.weight * season * (1 + r.trend * (k - 8)) * rnd(0.95, 1.05), margin: r.margin * rnd(0.97, 1.03), aov: r.aov * rnd(0.97, 1.03),
    })));
  }
  // Scale the year so that the asked cell (or total) comes out near the asked figure.
  const rows = months[TARGET.month + 1];
  const unit = TARGET.scope === "All regions" ? rows.reduce((s, r) => s + r.metric, 0) : rows[REGIONS.indexOf(TARGET.scope)].metric;
  months.forEach((m) => m.forEach((r) => { r.metric = Math.round((r.metric * TARGET.value) / unit); }));
  placeTarget(rows);
  return months.map((m) => m.map(complete));
}

// Puts the asked figure into its cell (or makes the regions add up to it, for the total).
function placeTarget(rows) {
  if (TARGET.scope !== "All regions") {
    rows[REGIONS.indexOf(TARGET.scope)].metric = TARGET.value;
    return;
  }
  const sum = rows.reduce((s, r) => s + r.metric, 0);
  rows.forEach((r) => { r.metric = Math.max(1000, Math.round((r.metric * TARGET.value) / sum)); });
  rows[0].metric += TARGET.value - rows.reduce((s, r) => s + r.metric, 0);
}

function complete(row) {
  const revenue = TARGET.metric === "revenue" ? row.metric : Math.round(row.metric / row.margin);
  const profit = TARGET.metric === "revenue" ? Math.round(row.metric * row.margin) : row.metric;
  return { revenue, profit, orders: Math.max(1, Math.round(revenue / row.aov)) };
}

const totals = (rows) => rows.reduce((t, r) => ({ revenue: t.revenue + r.revenue, profit: t.profit + r.profit,
  orders: t.orders + r.orders }), { revenue: 0, profit: 0, orders: 0 });

// No figure other than the asked one may contain its digits (so an answer naming a
// neighbouring figure can never pass for the true one).
const clashes = (n) => { const text = money(n); return text.includes(SHOWN) || text.replace(/\D/g, "").includes(PLAIN); };
function keepUnique(months) {
  const target = months[TARGET.month + 1];
  months.forEach((rows, k) => {
    rows.forEach((row, i) => {
      for (const key of ["revenue", "profit", "orders"]) {
        const isTarget = rows === target && key === TARGET.metric && TARGET.scope === REGIONS[i];
        while (!isTarget && clashes(row[key])) row[key] += 7;
      }
    });
    const other = rows.findIndex((_, i) => REGIONS[i] !== TARGET.scope);
    for (const key of ["revenue", "profit", "orders"]) {
      const isTarget = rows === target && key === TARGET.metric && TARGET.scope === "All regions";
      while (!isTarget && clashes(totals(rows)[key])) rows[other][key] += 3;
    }
  });
  return months;
}

const DATA = keepUnique(generate());

function setup() {
  document.getElementById("brand").textContent = `${P.company} Insights`;
  document.title = `Sales overview · ${P.company} Insights`;
  const select = document.getElementById("period");
  MONTHS.forEach((m, i) => select.add(new Option(`${m} ${YEAR}`, String(i))));
  select.value = "11";
  select.addEventListener("change", () => render(Number(select.value)));
  render(11);
}

function render(month) {
  const rows = DATA[month + 1], prev = DATA[month];
  const now = totals(rows), before = totals(prev);
  const prevName = month === 0 ? `Dec ${YEAR - 1}` : MONTHS[month - 1].slice(0, 3);
  const aov = now.revenue / now.orders, aovBefore = before.revenue / before.orders;
  const cards = [
    ["Revenue", money(now.revenue), now.revenue / before.revenue - 1],
    ["Gross profit", money(now.profit), now.profit / before.profit - 1],
    ["Orders", count(now.orders), now.orders / before.orders - 1],
    ["Avg. order value", "$" + aov.toFixed(2), aov / aovBefore - 1],
  ];
  document.getElementById("cards").innerHTML = cards.map(([label, figure, change]) => `
    <div class="card" role="group" aria-label="${label}">
      <div class="label">${label}</div>
      <div class="figure">${figure}</div>
      <div class="delta ${change >= 0 ? "up" : "down"}">${change >= 0 ? "▲" : "▼"} ${pct(change)} <span class="muted">vs ${prevName}</span></div>
    </div>`).join("");

  document.getElementById("region-title").textContent = `Performance by region · ${MONTHS[month]} ${YEAR}`;
  document.getElementById("compare-note").textContent = `Change compared with ${prevName}`;
  const order = REGIONS.map((_, i) => i).sort((a, b) => rows[b].revenue - rows[a].revenue);
  document.querySelector("#region-table tbody").innerHTML = order.map((i) => {
    const r = rows[i], change = r.revenue / prev[i].revenue - 1;
    return `<tr><th scope="row"><span class="region-dot" style="background:${COLORS[i]}"></span>${App.escape(REGIONS[i])}</th>
      <td class="num">${count(r.orders)}</td><td class="num">${money(r.revenue)}</td><td class="num">${money(r.profit)}</td>
      <td class="num">${((r.profit / r.revenue) * 100).toFixed(1)}%</td>
      <td class="num ${change >= 0 ? "up" : "down"}">${pct(change)}</td></tr>`;
  }).join("");
  document.querySelector("#region-table tfoot").innerHTML = `<tr><th scope="row">All regions</th>
    <td class="num">${count(now.orders)}</td><td class="num">${money(now.revenue)}</td><td class="num">${money(now.profit)}</td>
    <td class="num">${((now.profit / now.revenue) * 100).toFixed(1)}%</td>
    <td class="num ${now.revenue >= before.revenue ? "up" : "down"}">${pct(now.revenue / before.revenue - 1)}</td></tr>`;
  renderChart(month);
}

function renderChart(month) {
  const all = DATA.slice(1).map(totals);
  const top = Math.max(...all.map((t) => t.revenue));
  document.getElementById("trend-title").textContent = `Monthly revenue, ${YEAR}`;
  document.getElementById("chart").innerHTML = all.map((t, k) => `
    <div class="col${k === month ? " current" : ""}">
      <div class="bars"><div class="bar" style="height:${(t.revenue / top) * 150}px"></div>
        <div class="bar profit" style="height:${(t.profit / top) * 150}px"></div></div>
      <div class="month">${MONTHS[k].slice(0, 3)}</div>
    </div>`).join("");
}

setup();
