// Product page: pick a colour and a size (some sizes sell out per colour), set a quantity, add to cart.
const form = document.getElementById("buy-form");
const errorBox = document.getElementById("buy-error");
const qty = document.getElementById("qty");
let product = null;

// Which size (if any) is sold out in a colour: fixed per episode, and never the one the
// shopper was asked to buy, so the task stays possible.
function soldOut(colour) {
  const sizes = product.sizes.split(",");
  if (sizes.length < 3) return null;
  const seed = (window.__WEBEVAL__ && window.__WEBEVAL__.seed) || 0;
  let h = seed * 31 + product.id * 17;
  for (const c of colour) h = (h * 33 + c.charCodeAt(0)) % 100003;
  const size = h % 3 === 0 ? null : sizes[h % sizes.length];
  const wanted = App.params();
  return wanted.product === product.name && wanted.colour === colour && wanted.size === size ? null : size;
}

function chip(name, value, label, extra = "") {
  return `<label class="chip"><input type="radio" name="${name}" value="${App.escape(value)}">${extra}${App.escape(label)}</label>`;
}

function renderOptions() {
  const colours = product.colours.split(",");
  document.getElementById("colours").innerHTML = colours.map((c) =>
    chip("colour", c, c, `<span class="swatch" style="background:${Shop.SWATCH[c] || "#999"}" aria-hidden="true"></span>`)).join("");
  document.getElementById("sizes").innerHTML = product.sizes.split(",").map((s) => chip("size", s, s)).join("")
    + (product.sizes.includes("XS") ? '<a href="#" class="size-guide" id="size-guide">Size guide</a>' : "");
  form.elements.colour[0].checked = true;
  if (product.sizes.split(",").length === 1) form.querySelector("[name=size]").checked = true;
  for (const input of form.querySelectorAll("[name=colour]")) input.addEventListener("change", colourChanged);
  for (const input of form.querySelectorAll("[name=size]")) input.addEventListener("change", () => { errorBox.textContent = ""; });
  colourChanged();
}

function colourChanged() {
  const colour = form.querySelector("[name=colour]:checked").value;
  document.getElementById("colour-name").textContent = colour;
  document.getElementById("gallery").innerHTML = Shop.art(product.kind, colour, `${product.name} in ${colour}`);
  const gone = soldOut(colour);
  for (const input of form.querySelectorAll("[name=size]")) {
    input.disabled = input.value === gone;
    if (input.disabled) input.checked = false;
    input.closest(".chip").title = input.disabled ? `Sold out in ${colour}` : "";
  }
  document.getElementById("size-note").textContent = gone ? `· ${gone} is sold out in ${colour}` : "";
}

document.getElementById("dec").addEventListener("click", () => { qty.value = Math.max(1, (parseInt(qty.value, 10) || 1) - 1); });
document.getElementById("inc").addEventListener("click", () => { qty.value = Math.min(10, (parseInt(qty.value, 10) || 0) + 1); });

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const colour = form.querySelector("[name=colour]:checked")?.value;
  const size = form.querySelector("[name=size]:checked")?.value;
  const quantity = Number(qty.value);
  if (!size) { errorBox.textContent = "Choose a size."; return; }
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > 10) { errorBox.textContent = "Quantity must be between 1 and 10."; return; }
  errorBox.textContent = "";
  Shop.busy();
  const { data: cart } = await App.api("cart");
  const same = cart.find((l) => l.product_id === product.id && l.colour === colour && l.size === size);
  const result = same
    ? await App.api(`cart/${same.id}`, { method: "PATCH", body: { quantity: same.quantity + quantity } })
    : await App.api("cart", { method: "POST", body: { product_id: product.id, product: product.name, colour, size, quantity, price: product.price } });
  if (!result.ok) {
    errorBox.textContent = Object.values(result.data.errors || {})[0] || "We couldn't add that to your cart.";
  } else {
    document.getElementById("added-text").textContent = `Added to your cart: ${product.name} — ${colour}, ${size} × ${quantity}`;
    document.getElementById("added").hidden = false;
    await Shop.refreshCart();
  }
  Shop.ready();
});

(async () => {
  await Shop.header();
  const id = Shop.query("id");
  const found = id && /^\d+$/.test(id) ? await App.api(`products/${id}`) : { ok: false };
  if (!found.ok) {
    document.getElementById("missing").hidden = false;
    Shop.ready();
    return;
  }
  product = found.data;
  document.title = `${product.name} · Northloop`;
  document.getElementById("crumbs").innerHTML = `<a href="index.html">Home</a> / <a href="search.html?category=${encodeURIComponent(product.category)}">${App.escape(product.category)}</a> / <span>${App.escape(product.name)}</span>`;
  document.getElementById("name").textContent = product.name;
  document.getElementById("rating").innerHTML = `★ ${product.rating.toFixed(1)} <span class="muted">· ${product.reviews} reviews</span>`;
  document.getElementById("price").textContent = Shop.money(product.price);
  document.getElementById("description").textContent = product.description;
  renderOptions();
  document.getElementById("product").hidden = false;
  document.getElementById("size-guide")?.addEventListener("click", (e) => { e.preventDefault(); App.toast("Our sizes run true to fit. Between sizes? Size up for layering."); });
  Shop.ready();
})();
