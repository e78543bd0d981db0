// Greenbasket checkout: the basket (seeded) and the delivery form the server validates.
// It starts through App.page, so a reset may start it again in the same document (App.restart).
const CATALOGUE = [
  ["Organic bananas", "bunch of 6", 1.85], ["Free-range eggs", "12 pack", 3.40], ["Sourdough loaf", "800 g", 3.10],
  ["Whole milk", "2 l", 1.65], ["Greek yoghurt", "500 g", 2.25], ["Cherry tomatoes", "400 g", 2.10],
  ["Baby spinach", "200 g", 1.95], ["Mature cheddar", "350 g", 3.75], ["Basmati rice", "1 kg", 2.60],
  ["Olive oil", "750 ml", 6.20], ["Ground coffee", "227 g", 4.50], ["Oat drink", "1 l", 1.80],
  ["Avocados", "pack of 2", 2.30], ["Chicken thighs", "1 kg", 5.90], ["Dark chocolate", "100 g", 1.50],
];
const SLOTS = [["Tomorrow 8:00-10:00", 1.5], ["Tomorrow 12:00-14:00", 1.0], ["Tomorrow 18:00-20:00", 2.5], ["Saturday 10:00-12:00", 3.0]];
const money = (n) => "£" + n.toFixed(2);

App.page(() => {
  const form = document.getElementById("order-form");
  const summary = document.getElementById("summary");

  // The basket: five products and quantities drawn from the seeded Math.random.
  const pool = [...CATALOGUE];
  const basket = Array.from({ length: 5 }, () => {
    const [name, size, price] = pool.splice(Math.floor(Math.random() * pool.length), 1)[0];
    return { name, size, price, qty: 1 + Math.floor(Math.random() * 3) };
  });
  const subtotal = basket.reduce((s, i) => s + i.price * i.qty, 0);
  document.getElementById("basket").innerHTML = basket.map((i) => `<li>
    <span class="thumb" aria-hidden="true">${App.escape(i.name[0])}</span>
    <span>${App.escape(i.name)}<small>${i.qty} × ${App.escape(i.size)}</small></span><span>${money(i.price * i.qty)}</span></li>`).join("");

  function renderTotals() {
    const slot = SLOTS.find(([name]) => name === form.elements.slot.value);
    const fee = slot ? slot[1] : 0;
    document.getElementById("totals").innerHTML = `<dt>Items (${basket.reduce((s, i) => s + i.qty, 0)})</dt><dd>${money(subtotal)}</dd>
      <dt>Delivery</dt><dd>${slot ? money(fee) : "Choose a slot"}</dd><dt class="grand">Total</dt><dd class="grand">${money(subtotal + fee)}</dd>`;
    return subtotal + fee;
  }

  document.getElementById("slots").insertAdjacentHTML("beforeend", `<div class="slot-grid">${SLOTS.map(([name, fee], i) => `
    <div class="slot"><input type="radio" name="slot" id="slot-${i}" value="${name}"><label for="slot-${i}" class="check">${name}</label>
    <span class="fee">${money(fee)}</span></div>`).join("")}</div>`);
  form.addEventListener("change", renderTotals);
  renderTotals();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const f = form.elements;
    const body = {
      recipient: f.recipient.value, street: f.street.value, postcode: f.postcode.value, city: f.city.value,
      phone: f.phone.value.replace(/[\s\-().]/g, ""), slot: f.slot.value, instructions: f.instructions.value,
      items: basket.map((i) => `${i.qty} x ${i.name}`).join(", "), total: Math.round(renderTotals() * 100) / 100,
    };
    const { ok, data } = await App.api("orders", { method: "POST", body });
    if (!ok) {
      const { slot, ...errors } = data.errors || {};
      App.showErrors(form, errors); // text fields; the radio group's message goes under the group
      if (slot) {
        const note = document.createElement("div");
        note.className = "error"; note.textContent = slot;
        document.getElementById("slots").appendChild(note);
      }
      summary.textContent = "We couldn't place your order yet. Please check the highlighted details.";
      summary.hidden = false;
      return;
    }
    App.showErrors(form, {});
    summary.hidden = true;
    document.getElementById("form-panel").hidden = true;
    document.getElementById("done-text").textContent = `Order GB-${String(52000 + data.id * 7)} will be delivered to ${data.recipient} `
      + `on ${data.slot}. The courier will call ${data.phone} on arrival.`;
    document.getElementById("done-panel").hidden = false;
    document.querySelector(".steps .current").className = "done-step";
    document.querySelector(".steps span:last-child").className = "current";
    App.toast("Order placed");
  });
});
