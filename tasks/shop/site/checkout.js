// Checkout: shipping address and method; placing the order stores one order line per cart line.
const form = document.getElementById("ship-form");
const EXPRESS = 12;
let lines = [];

for (const country of Shop.COUNTRIES) form.elements.country.add(new Option(country, country));

function summary() {
  const subtotal = lines.reduce((s, l) => s + l.price * l.quantity, 0);
  const shipping = form.elements.shipping.value === "express" ? EXPRESS : 0;
  document.getElementById("summary").innerHTML = lines.map((l) => `<div class="summary-line"><span>${App.escape(l.product)}<br>
      <span class="muted small">${App.escape(l.colour)} · ${App.escape(l.size)} · Qty ${l.quantity}</span></span><span>${Shop.money(l.price * l.quantity)}</span></div>`).join("")
    + `<div class="summary-line"><span>Subtotal</span><span>${Shop.money(subtotal)}</span></div>
       <div class="summary-line"><span>Shipping</span><span>${shipping ? Shop.money(shipping) : "Free"}</span></div>
       <div class="summary-line total"><span>Total</span><span>${Shop.money(subtotal + shipping)}</span></div>`;
}

for (const radio of form.querySelectorAll("[name=shipping]")) radio.addEventListener("change", summary);

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  await loaded; // a very quick shopper may submit before the cart has loaded
  const errorBox = document.getElementById("order-error");
  const details = {
    full_name: form.elements.full_name.value, street: [form.elements.street.value, form.elements.street2.value].filter((s) => s.trim()).join(", "),
    city: form.elements.city.value, postcode: form.elements.postcode.value, country: form.elements.country.value,
    shipping: form.elements.shipping.value,
  };
  if (!form.elements.street.value.trim()) details.street = "";
  Shop.busy();
  const orderNumber = "NL-" + (100000 + Math.floor(Math.random() * 900000));
  for (const [i, line] of lines.entries()) {
    const body = { order_number: orderNumber, product: line.product, colour: line.colour, size: line.size, quantity: line.quantity, price: line.price, ...details };
    const { ok, data } = await App.api("orders", { method: "POST", body });
    if (!ok) {
      App.showErrors(form, data.errors);
      errorBox.textContent = i === 0 ? "Please check the highlighted fields." : "Part of your order could not be placed. Please contact us.";
      Shop.ready();
      return;
    }
  }
  for (const line of lines) await App.api(`cart/${line.id}`, { method: "DELETE" });
  location.href = `confirmation.html?order=${orderNumber}`;
});

const loaded = (async () => {
  lines = await Shop.header();
  if (!lines.length) {
    document.getElementById("checkout").hidden = true;
    document.getElementById("empty").hidden = false;
  }
  summary();
  Shop.ready();
})();
