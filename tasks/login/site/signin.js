// Ledgerly sign-in: email + password, or phone + a one-time code texted to a simulated phone.
const errorBox = document.getElementById("error");
const tabs = [...document.querySelectorAll("[role=tab]")];
const passwordForm = document.getElementById("password-form");
const phoneForm = document.getElementById("phone-form");
const codeForm = document.getElementById("code-form");
const state = { phone: null };

function showError(message) {
  errorBox.textContent = message || "";
  errorBox.hidden = !message;
}

function selectTab(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
  }
  showError("");
}

// "+1 (415) 555-0123", "415 555 0123" and "+14155550123" are all the same number.
function normalisePhone(text) {
  const digits = text.replace(/\D/g, "");
  if (!digits) return "";
  if (text.trim().startsWith("+")) return "+" + digits;
  if (digits.length === 10) return "+1" + digits;
  return "+" + digits;
}

function pretty(phone) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(phone);
  return m ? `+1 ${m[1]} ${m[2]} ${m[3]}` : phone;
}

async function signIn(body, button) {
  button.disabled = true;
  document.body.dataset.loaded = "0";
  const { ok, status, data } = await App.api("sessions", { method: "POST", body });
  button.disabled = false;
  if (ok) {
    location.href = `dashboard.html?session=${data.id}`;
    return;
  }
  document.body.dataset.loaded = "1";
  if (status === 401) {
    showError(body.method === "password"
      ? "Incorrect email or password. Check them and try again."
      : "That code isn't right. Check the text message and try again.");
  } else {
    showError("Something went wrong. Please try again.");
  }
}

for (const tab of tabs) tab.addEventListener("click", () => selectTab(tab));
tabs[0].parentElement.addEventListener("keydown", (event) => {
  if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
  const next = tabs[(tabs.indexOf(document.activeElement) + 1) % tabs.length];
  selectTab(next);
  next.focus();
});

passwordForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const email = passwordForm.elements.email.value.trim();
  const password = passwordForm.elements.password.value;
  App.showErrors(passwordForm, {
    ...(email ? {} : { email: "Enter your email address" }),
    ...(password ? {} : { password: "Enter your password" }),
  });
  if (!email || !password) return;
  signIn({ method: "password", email, password }, passwordForm.querySelector("[type=submit]"));
});

async function sendCode() {
  const phone = normalisePhone(phoneForm.elements.phone.value);
  if (App.showErrors(phoneForm, phone ? {} : { phone: "Enter your phone number" })) return;
  document.body.dataset.loaded = "0";
  const { ok, status, data } = await App.api("otp_requests", { method: "POST", body: { phone } });
  document.body.dataset.loaded = "1";
  if (!ok) {
    showError(status === 401 ? data.error : "We couldn't send a code. Please try again.");
    return;
  }
  showError("");
  state.phone = phone;
  phoneForm.hidden = true;
  codeForm.hidden = false;
  document.getElementById("sent-note").textContent = `We sent a 6-digit code to ${pretty(phone)}. It expires in 10 minutes.`;
  deliverText();
  codeForm.elements.code.focus();
}

// The simulated text message: the code the server issued for this sign-in.
function deliverText() {
  const code = String(App.params().otp);
  const sms = document.createElement("div");
  sms.className = "bubble";
  sms.innerHTML = `<div class="from">LEDGERLY <span>now</span></div>
    <div>${App.escape(code)} is your Ledgerly sign-in code. It expires in 10 minutes. Never share this code.</div>`;
  document.getElementById("sms-list").prepend(sms);
  document.getElementById("phone-sim").hidden = false;
}

phoneForm.addEventListener("submit", (event) => { event.preventDefault(); sendCode(); });
document.getElementById("resend").addEventListener("click", async () => {
  document.body.dataset.loaded = "0";
  const { ok } = await App.api("otp_requests", { method: "POST", body: { phone: state.phone } });
  document.body.dataset.loaded = "1";
  if (ok) { deliverText(); App.toast("We sent you a new text message."); }
});
document.getElementById("change-number").addEventListener("click", () => {
  codeForm.hidden = true;
  phoneForm.hidden = false;
  codeForm.reset();
  showError("");
});
codeForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const code = codeForm.elements.code.value.replace(/\s/g, "");
  if (App.showErrors(codeForm, /^\d{6}$/.test(code) ? {} : { code: "Enter the 6-digit code" })) return;
  signIn({ method: "sms", phone: state.phone, code }, codeForm.querySelector("[type=submit]"));
});
document.getElementById("forgot").addEventListener("click", (event) => {
  event.preventDefault();
  App.toast("Password reset is handled by your workspace admin.");
});

document.body.dataset.loaded = "1";
