// Northloop store: the header (search, departments, cart count) and helpers every page shares.
window.Shop = (() => {
  const SWATCH = { Black: "#26282d", Navy: "#20325a", Olive: "#5d6b3b", Sand: "#d8c6a0", Rust: "#a4522d", Slate: "#5a6676" };
  const COUNTRIES = ["Argentina", "Australia", "Austria", "Belgium", "Brazil", "Canada", "Chile", "Colombia", "Czechia",
    "Denmark", "Egypt", "Estonia", "Finland", "France", "Germany", "Greece", "Iceland", "India", "Ireland", "Italy", "Japan",
    "Kenya", "Mexico", "Netherlands", "New Zealand", "Nigeria", "Norway", "Poland", "Portugal", "Singapore", "South Africa",
    "South Korea", "Spain", "Sweden", "Switzerland", "Turkey", "United Kingdom", "United States"];
  const DEPARTMENTS = ["Jackets", "Fleece", "Tops", "Bottoms", "Packs", "Accessories"];
  const SHAPES = {
    tee: "M28 22 L48 12 Q60 22 72 12 L92 22 L104 46 L86 54 L86 104 L34 104 L34 54 L16 46 Z",
    shirt: "M28 22 L48 12 L60 24 L72 12 L92 22 L104 46 L86 54 L86 104 L34 104 L34 54 L16 46 Z M60 24 L60 104",
    hoodie: "M28 24 L44 14 Q46 2 60 2 Q74 2 76 14 L92 24 L108 96 L94 99 L86 56 L86 104 L34 104 L34 56 L26 99 L12 96 Z",
    jacket: "M28 20 L48 10 L60 18 L72 10 L92 20 L108 96 L94 99 L86 56 L86 104 L34 104 L34 56 L26 99 L12 96 Z M60 18 L60 104",
    vest: "M36 14 L50 10 L60 20 L70 10 L84 14 L88 40 L88 104 L32 104 L32 40 Z M60 20 L60 104",
    shorts: "M32 24 L88 24 L94 84 L66 84 L60 48 L54 84 L26 84 Z",
    pants: "M36 8 L84 8 L92 108 L68 108 L60 40 L52 108 L28 108 Z",
    pack: "M36 20 Q36 8 60 8 Q84 8 84 20 L88 104 L32 104 Z M44 64 L76 64 L76 92 L44 92 Z",
    beanie: "M24 80 Q24 22 60 22 Q96 22 96 80 Z M20 80 L100 80 L100 96 L20 96 Z",
    socks: "M46 8 L72 8 L72 70 L98 82 Q106 96 94 104 L52 96 Q44 92 46 84 Z",
    bottle: "M48 8 L72 8 L72 22 L80 32 L80 108 L40 108 L40 32 L48 22 Z",
  };

  const money = (n) => "$" + Number(n).toFixed(2);
  const query = (name) => new URLSearchParams(location.search).get(name);
  const productUrl = (p) => `product.html?id=${p.id}`;

  function art(kind, colour, label) {
    const fill = SWATCH[colour] || "#8a94a6";
    return `<svg viewBox="0 0 120 112" role="img" aria-label="${App.escape(label || "")}"><path d="${SHAPES[kind] || SHAPES.tee}"
      fill="${fill}" stroke="rgba(0,0,0,.25)" stroke-width="1.5" stroke-linejoin="round"/></svg>`;
  }

  function swatches(product) {
    return product.colours.split(",").map((c) =>
      `<span class="swatch" style="background:${SWATCH[c] || "#999"}" title="${App.escape(c)}"></span>`).join("");
  }

  function card(product) {
    return `<article class="card">
      <a class="card-art" href="${productUrl(product)}" tabindex="-1" aria-hidden="true">${art(product.kind, product.colours.split(",")[0], "")}</a>
      <div class="card-meta">
        <div class="muted small">${App.escape(product.category)}</div>
        <a class="card-name" href="${productUrl(product)}">${App.escape(product.name)}</a>
        <div class="card-row"><span class="price">${money(product.price)}</span><span class="stars">★ ${product.rating.toFixed(1)} <span class="muted">(${product.reviews})</span></span></div>
        <div class="swatches" aria-hidden="true">${swatches(product)}</div>
      </div></article>`;
  }

  async function refreshCart() {
    const { data } = await App.api("cart");
    const count = data.reduce((n, line) => n + line.quantity, 0);
    document.getElementById("cart-count").textContent = String(count);
    return data;
  }

  // The store header, shared by every page.
  async function header() {
    const node = document.getElementById("store-header");
    node.className = "store-top";
    node.innerHTML = `
      <a class="brand" href="index.html">Northloop</a>
      <nav aria-label="Departments">${DEPARTMENTS.map((d) => `<a href="search.html?category=${d}">${d}</a>`).join("")}</nav>
      <form class="search" role="search" action="search.html">
        <input type="search" name="q" aria-label="Search products" placeholder="Search jackets, fleece, packs…" value="${App.escape(query("q") || "")}">
        <button type="submit">Search</button>
      </form>
      <a class="cart-link" href="cart.html">Cart <span class="count" id="cart-count">0</span></a>`;
    return refreshCart();
  }

  const ready = () => { document.body.dataset.loaded = "1"; };
  const busy = () => { document.body.dataset.loaded = "0"; };

  return { SWATCH, COUNTRIES, money, query, productUrl, art, card, swatches, header, refreshCart, ready, busy };
})();
