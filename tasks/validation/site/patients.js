// New-patient registration: the server validates, and says what is wrong with a field.
// It starts through App.page, so a reset may start it again in the same document (App.restart).
const PRACTICES = ["Northside Central", "Riverside", "Harbour View", "Elm Park", "Kingsway", "Meadowbank"];

App.page(() => {
  const form = document.getElementById("patient-form");
  const summary = document.getElementById("summary");
  const practice = form.elements.practice;
  for (const name of PRACTICES) practice.add(new Option(name, name));
  const DAY = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][Math.floor(Math.random() * 5)]; // seeded
  document.getElementById("today").textContent = `${DAY} · ${3 + Math.floor(Math.random() * 9)} patients checked in`;

  async function loadRecent() {
    const { data } = await App.api("patients");
    document.getElementById("recent").innerHTML = data.slice(-5).reverse().map((p) => `<tr>
      <td>${App.escape(p.first_name)} ${App.escape(p.last_name)}<small>${App.escape(p.email)}</small></td>
      <td>${App.escape(p.practice)}</td></tr>`).join("");
  }

  const LABELS = { first_name: "First name", last_name: "Last name", email: "Email", phone: "Mobile phone", practice: "Registered practice" };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      first_name: form.elements.first_name.value, last_name: form.elements.last_name.value, email: form.elements.email.value,
      phone: form.elements.phone.value, practice: practice.value, sms_reminders: form.elements.sms_reminders.checked,
    };
    const { ok, status, data } = await App.api("patients", { method: "POST", body });
    if (!ok) {
      const count = App.showErrors(form, data.errors || {});
      summary.textContent = status === 422
        ? `The registration was not saved: ${count === 1 ? "1 field needs" : count + " fields need"} attention (${Object.keys(data.errors).map((k) => LABELS[k] || k).join(", ")}).`
        : "The registration was not saved. Please try again.";
      summary.hidden = false;
      const first = form.querySelector("[aria-invalid=true]");
      if (first) first.focus();
      return;
    }
    App.showErrors(form, {});
    summary.hidden = true;
    document.getElementById("form-panel").hidden = true;
    document.getElementById("done-text").textContent =
      `${data.first_name} ${data.last_name} is registered at ${data.practice} as patient NFC-${String(4000 + data.id).padStart(5, "0")}.`;
    document.getElementById("done-panel").hidden = false;
    App.toast("Patient registered");
    await loadRecent();
  });

  form.addEventListener("reset", () => { App.showErrors(form, {}); summary.hidden = true; });
  document.getElementById("another").addEventListener("click", () => {
    form.reset();
    document.getElementById("done-panel").hidden = true;
    document.getElementById("form-panel").hidden = false;
    form.elements.first_name.focus();
  });

  loadRecent();
});
