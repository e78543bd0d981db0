// Search results: by text (?q=) or by department (?category=), sortable.
const SORTS = {
  relevance: () => 0,
  "price-asc": (a, b) => a.price - b.price,
  "price-desc": (a, b) => b.price - a.price,
  rating: (a, b) => b.rating - a.rating,
};
let found = [];

function show() {
  const sorted = [...found].sort(SORTS[document.getElementById("sort").value]);
  document.getElementById("results").innerHTML = sorted.map(Shop.card).join("")
    || '<div class="panel empty" style="grid-column: 1 / -1">No products match your search. Try a shorter term, like "fleece".</div>';
}

(async () => {
  await Shop.header();
  const q = (Shop.query("q") || "").trim();
  const category = Shop.query("category");
  const path = category ? `products?category=${encodeURIComponent(category)}` : `products?q=${encodeURIComponent(q)}`;
  found = (await App.api(path)).data;
  const title = category || (q ? `Results for “${q}”` : "All products");
  document.getElementById("results-title").textContent = title;
  document.getElementById("crumb").textContent = category || "Search";
  document.title = `${category || (q ? q : "All products")} · Northloop`;
  document.getElementById("results-count").textContent = `${found.length} product${found.length === 1 ? "" : "s"}`;
  show();
  Shop.ready();
})();
document.getElementById("sort").addEventListener("change", show);
