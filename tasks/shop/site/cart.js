// Cart: the lines in the cart, removable, with a subtotal and the way to checkout.
async function render() {
  Shop.busy();
  const lines = await Shop.refreshCart();
  const { data: products } = await App.api("products");
  const kind = Object.fromEntries(products.map((p) => [p.id, p.kind]));
  document.getElementById("lines").innerHTML = lines.map((l) => `<tr>
      <td>${Shop.art(kind[l.product_id], l.colour, "").replace('role="img"', 'aria-hidden="true"')}<a href="product.html?id=${l.product_id}">${App.escape(l.product)}</a></td>
      <td>${App.escape(l.colour)}</td><td>${App.escape(l.size)}</td><td>${l.quantity}</td>
      <td>${Shop.money(l.price)}</td><td>${Shop.money(l.price * l.quantity)}</td>
      <td><button type="button" class="ghost" data-id="${l.id}" aria-label="Remove ${App.escape(l.product)} (${App.escape(l.colour)}, ${App.escape(l.size)})">Remove</button></td></tr>`).join("")
    || '<tr><td colspan="7" class="empty">Your cart is empty. <a href="index.html">Start shopping</a></td></tr>';
  const items = lines.reduce((n, l) => n + l.quantity, 0);
  document.getElementById("cart-summary").textContent = `${items} item${items === 1 ? "" : "s"}`;
  document.getElementById("subtotal").textContent = Shop.money(lines.reduce((s, l) => s + l.price * l.quantity, 0));
  document.getElementById("cart-foot").hidden = lines.length === 0;
  for (const button of document.querySelectorAll("[data-id]")) {
    button.addEventListener("click", async () => {
      Shop.busy();
      await App.api(`cart/${button.dataset.id}`, { method: "DELETE" });
      App.toast("Removed from your cart.");
      await render();
    });
  }
  Shop.ready();
}

(async () => { await Shop.header(); await render(); })();
