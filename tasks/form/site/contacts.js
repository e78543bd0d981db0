// Contacts page: list the stored contacts, add one through the form. It starts through
// App.page, so a reset may start it again in the same document (App.restart).
const COUNTRIES = ["Argentina", "Australia", "Brazil", "Canada", "Denmark", "France", "Germany", "India",
  "Ireland", "Italy", "Japan", "Kenya", "Mexico", "Netherlands", "Nigeria", "Norway", "Poland", "Portugal",
  "Spain", "Sweden"];

App.page(() => {
  const form = document.getElementById("contact-form");
  const panel = document.getElementById("form-panel");
  const select = form.elements.country;
  for (const country of COUNTRIES) select.add(new Option(country, country));

  async function loadContacts() {
    const { data } = await App.api("contacts");
    const rows = document.getElementById("rows");
    rows.innerHTML = data.map((c) => `<tr><td>${App.escape(c.name)}</td><td>${App.escape(c.email)}</td>
      <td>${App.escape(c.company || "")}</td><td>${App.escape(c.country || "")}</td>
      <td>${c.vip ? '<span class="badge ok">VIP</span>' : '<span class="badge">Standard</span>'}</td></tr>`).join("")
      || '<tr><td colspan="5" class="empty">No contacts yet</td></tr>';
    document.getElementById("count").textContent = `${data.length} contacts`;
  }

  document.getElementById("new-contact").addEventListener("click", () => {
    panel.hidden = false;
    form.elements.name.focus();
  });
  document.getElementById("cancel").addEventListener("click", () => { form.reset(); App.showErrors(form, {}); panel.hidden = true; });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      name: form.elements.name.value, email: form.elements.email.value, company: form.elements.company.value,
      country: form.elements.country.value, vip: form.elements.vip.checked,
    };
    const { ok, data } = await App.api("contacts", { method: "POST", body });
    if (!ok) { App.showErrors(form, data.errors); return; }
    App.showErrors(form, {});
    form.reset();
    panel.hidden = true;
    App.toast(`Contact ${data.name} saved`);
    await loadContacts();
  });

  loadContacts();
});
