// Order confirmation: what was ordered and where it ships, read back from the server.
(async () => {
  await Shop.header();
  const number = Shop.query("order") || "";
  const { data: lines } = await App.api(`orders?order_number=${encodeURIComponent(number)}`);
  if (!number || !lines.length) {
    document.getElementById("unknown").hidden = false;
    Shop.ready();
    return;
  }
  const first = lines[0];
  document.getElementById("order-line").textContent =
    `Order ${number} is confirmed. We've emailed a receipt, and we'll let you know when it ships.`;
  document.getElementById("items").innerHTML = lines.map((l) => `<div class="line-item">
      <div class="grow"><strong>${App.escape(l.product)}</strong><div class="muted small">${App.escape(l.colour)} · Size ${App.escape(l.size)} · Qty ${l.quantity}</div></div>
      <div>${Shop.money(l.price * l.quantity)}</div></div>`).join("");
  document.getElementById("address").innerHTML = [first.full_name, first.street, `${first.city} ${first.postcode}`, first.country].map(App.escape).join("<br>");
  document.getElementById("method").textContent = first.shipping === "express" ? "Express shipping · 1–2 business days" : "Standard shipping · 3–5 business days";
  document.getElementById("thanks").hidden = false;
  document.getElementById("details").hidden = false;
  Shop.ready();
})();
