// Product list: the filters are applied only when the search runs (Search or Enter), the
// way a server-side list works; the list shows what the last query returned.
const STATUSES = ["Active", "Draft", "Out of stock", "Archived", "Pre-order"];
const CATEGORIES = ["Accessories", "Apparel", "Bags", "Camping", "Climbing", "Footwear"];
const COLORS = { Apparel: "#4c6ef5", Footwear: "#f76707", Bags: "#12b886", Camping: "#2f9e44", Accessories: "#ae3ec9", Climbing: "#e8590c" };
const BADGES = { Active: "ok", Draft: "muted-badge", "Out of stock": "bad", Archived: "muted-badge", "Pre-order": "warn" };

const form = document.getElementById("filters");
const table = document.getElementById("results");
const tbody = table.querySelector("tbody");
STATUSES.forEach((s) => form.elements.status.add(new Option(s, s)));
CATEGORIES.forEach((c) => form.elements.category.add(new Option(c, c)));
let applied = null;

const current = () => ({ q: form.elements.q.value.trim(), status: form.elements.status.value, category: form.elements.category.value });
const initials = (name) => name.split(" ").slice(0, 2).map((w) => w[0]).join("").toUpperCase();

function row(p) {
  return `<tr data-id="${p.id}">
    <td><div class="product"><span class="thumb" aria-hidden="true" style="background:${COLORS[p.category] || "#868e96"}">${App.escape(initials(p.name))}</span>
      <div><div class="product-name">${App.escape(p.name)}</div><div class="sku">SKU TS-${String(p.id * 37 + 1000).padStart(5, "0")}</div></div></div></td>
    <td>${App.escape(p.category)}</td>
    <td><span class="badge ${BADGES[p.status] || ""}">${App.escape(p.status)}</span></td>
    <td class="num">$${Number(p.price).toFixed(2)}</td></tr>`;
}

function describe(query, count) {
  const parts = [query.q && `“${query.q}”`, query.status, query.category].filter(Boolean);
  const noun = count === 1 ? "product" : "products";
  return parts.length ? `${count} ${noun} match ${parts.join(" · ")}` : `Showing all ${count} ${noun}`;
}

async function search() {
  const query = current();
  table.dataset.state = "loading";
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v));
  const { data } = await App.api("products?" + params.toString());
  tbody.innerHTML = data.length ? data.map(row).join("")
    : '<tr><td colspan="4" class="empty">No products match these filters.</td></tr>';
  document.getElementById("summary").textContent = describe(query, data.length);
  applied = query;
  history.replaceState(null, "", params.toString() ? "?" + params : location.pathname);
  table.dataset.state = "done";
  showPending();
}

function showPending() {
  const now = current();
  document.getElementById("pending").hidden = !applied || ["q", "status", "category"].every((k) => now[k] === applied[k]);
}

form.addEventListener("submit", (event) => { event.preventDefault(); search(); });
form.addEventListener("input", showPending);
form.addEventListener("change", showPending);
document.getElementById("clear").addEventListener("click", () => { form.reset(); search(); });

(async () => {
  const { data } = await App.api("products");
  document.getElementById("total").textContent = `${data.length} products in the catalogue`;
  await search();
})();
