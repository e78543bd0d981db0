// The intranet's pages: menubar with nested menus, breadcrumbs, sidebar and content, all
// built from window.SITEMAP for the page at location.pathname. The order of categories and
// pages in the menus is shuffled per episode (the seeded Math.random, first thing on every
// page, so every page of one episode agrees).
(() => {
  const P = App.params();
  const ORG = P.org || "Northwind Traders";
  const esc = App.escape;
  const rnd = (n) => Math.floor(Math.random() * n);
  const shuffle = (list) => { for (let i = list.length - 1; i > 0; i--) { const j = rnd(i + 1); [list[i], list[j]] = [list[j], list[i]]; } return list; };

  const SECTIONS = window.SITEMAP;
  for (const section of SECTIONS) {
    shuffle(section.children);
    for (const category of section.children) shuffle(category.children);
  }
  const OWNERS = { Company: "Internal Communications", People: "People Team", "Work tools": "IT & Finance Operations", Policies: "Legal & Compliance" };
  const PEOPLE = ["Alex Moreno", "Priya Natarajan", "Jonas Weber", "Aiko Tanaka", "Samir Haddad", "Freya Lindqvist",
    "Mateo Alvarez", "Grace Okafor", "Noah Brennan", "Leila Rahman", "Tomas Novak", "Yara Costa"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  // --- where are we -----------------------------------------------------------------
  const here = location.pathname.replace(/index\.html$/, "") || "/";
  let trail = [];
  for (const s of SECTIONS) {
    if (s.path === here) trail = [s];
    for (const c of s.children) {
      if (c.path === here) trail = [s, c];
      for (const l of c.children) if (l.path === here) trail = [s, c, l];
    }
  }
  const [section, category, leaf] = trail;

  // --- top bar and menus ------------------------------------------------------------
  function menubar() {
    const items = SECTIONS.map((s, i) => `
      <li role="none" class="top">
        <button type="button" role="menuitem" aria-haspopup="menu" aria-expanded="false" aria-controls="menu-${i}"
          class="${section === s ? "current" : ""}">${esc(s.title)}<span class="caret" aria-hidden="true"></span></button>
        <ul role="menu" id="menu-${i}" aria-label="${esc(s.title)}" class="dropdown" hidden>
          ${s.children.map((c, j) => `
          <li role="none" class="sub">
            <button type="button" role="menuitem" aria-haspopup="menu" aria-expanded="false" aria-controls="menu-${i}-${j}">
              <span>${esc(c.title)}</span><span class="chevron" aria-hidden="true">›</span></button>
            <ul role="menu" id="menu-${i}-${j}" aria-label="${esc(c.title)}" class="dropdown flyout" hidden>
              ${c.children.map((l) => `<li role="none"><a role="menuitem" href="${l.path}">${esc(l.title)}</a></li>`).join("")}
              <li role="separator"></li>
              <li role="none"><a role="menuitem" class="all" href="${c.path}">All ${esc(c.title)} pages</a></li>
            </ul>
          </li>`).join("")}
          <li role="separator"></li>
          <li role="none"><a role="menuitem" class="all" href="${s.path}">${esc(s.title)} overview</a></li>
        </ul>
      </li>`).join("");
    return `<a class="logo" href="/">${esc(ORG)} Hub</a>
      <nav aria-label="Main menu"><ul role="menubar" class="menubar">${items}</ul></nav>
      <span class="user">Sam Porter · Operations</span>`;
  }

  function setOpen(button, open) {
    button.setAttribute("aria-expanded", String(open));
    document.getElementById(button.getAttribute("aria-controls")).hidden = !open;
    if (!open) button.parentElement.querySelectorAll("[aria-expanded='true']").forEach((b) => setOpen(b, false));
  }

  // Closes every open menu except the ones on the way to ``keep``.
  function closeAll(keep) {
    document.querySelectorAll(".menubar [aria-expanded='true']").forEach((b) => {
      if (!keep || !b.parentElement.contains(keep)) setOpen(b, false);
    });
  }

  function wireMenus() {
    document.querySelectorAll(".menubar button[aria-haspopup]").forEach((button) => {
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        const open = button.getAttribute("aria-expanded") === "true";
        closeAll(button);
        setOpen(button, !open);
      });
    });
    document.addEventListener("click", (event) => { if (!event.target.closest(".menubar")) closeAll(); });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      const top = document.querySelector(".menubar .top > [aria-expanded='true']");
      closeAll();
      if (top) top.focus();
    });
  }

  // --- page parts -------------------------------------------------------------------
  function crumbs() {
    const parts = [["Home", "/"], ...trail.map((n) => [n.title, n.path])];
    return `<ol>${parts.map(([title, path], i) => i === parts.length - 1
      ? `<li><span aria-current="page">${esc(title)}</span></li>`
      : `<li><a href="${path}">${esc(title)}</a></li>`).join("")}</ol>`;
  }

  function sidebar() {
    const list = category ? category.children : section.children;
    const heading = category ? `In ${category.title}` : `In ${section.title}`;
    const current = leaf || category;
    return `<aside class="panel side" aria-label="${esc(heading)}"><h2>${esc(heading)}</h2><ul>
      ${list.map((n) => `<li><a href="${n.path}"${n === current ? ' aria-current="page"' : ""}>${esc(n.title)}</a></li>`).join("")}
      </ul></aside>`;
  }

  const reviewed = () => `${1 + rnd(28)} ${MONTHS[rnd(12)]} 2024`;

  function homePage() {
    const name = "Sam";
    const leaves = SECTIONS.flatMap((s) => s.children.flatMap((c) => c.children)).filter((l) => l.title !== P.leaf);
    const popular = shuffle(leaves).slice(0, 4);
    const news = [
      ["Quarterly all-hands moves to the atrium", `Join the ${ORG} leadership team for results, Q&A and lunch afterwards.`],
      ["New starters this month", "Say hello to fourteen new colleagues across four offices."],
      ["Building works on level 2", "The east stairwell is closed until the end of the month; please use the lifts."],
    ];
    return `
      <section class="panel hero"><p>Good morning, ${name}. Here is what's happening at ${esc(ORG)}.</p></section>
      <div class="home-grid">
        <section aria-labelledby="explore-title">
          <h2 id="explore-title">Explore the intranet</h2>
          <div class="cards-2">${SECTIONS.map((s) => `
            <article class="panel tile"><a class="tile-title" href="${s.path}">${esc(s.title)}</a><p class="muted">${esc(s.blurb)}</p>
              <p class="small">${s.children.map((c) => esc(c.title)).join(" · ")}</p></article>`).join("")}
          </div>
          <h2>Company news</h2>
          <div class="panel">${news.map(([t, d]) => `<article class="news"><h3>${esc(t)}</h3><p class="muted">${esc(d)}</p></article>`).join("")}</div>
        </section>
        <aside class="panel side" aria-labelledby="popular-title"><h2 id="popular-title">Popular this week</h2>
          <ul>${popular.map((l) => `<li><a href="${l.path}">${esc(l.title)}</a></li>`).join("")}</ul>
        </aside>
      </div>`;
  }

  function sectionPage() {
    return `<p class="lead">${esc(section.blurb)}</p>
      <div class="with-side">${sidebar()}
        <div class="cards-2">${section.children.map((c) => `
          <article class="panel tile"><a class="tile-title" href="${c.path}">${esc(c.title)}</a><p class="muted">${esc(c.blurb)}</p>
            <p class="small">${c.children.length} pages</p></article>`).join("")}</div>
      </div>`;
  }

  function categoryPage() {
    return `<p class="lead">${esc(category.blurb)}</p>
      <div class="with-side">${sidebar()}
        <div>${category.children.map((l) => `
          <article class="panel tile row"><a class="tile-title" href="${l.path}">${esc(l.title)}</a><p class="muted">${esc(l.summary)}</p></article>`).join("")}</div>
      </div>`;
  }

  function leafPage() {
    const owner = PEOPLE[rnd(PEOPLE.length)];
    const siblings = category.children.filter((l) => l !== leaf);
    return `<p class="lead">${esc(leaf.summary)}</p>
      <div class="with-side">${sidebar()}
        <article class="panel article">
          <h2>At a glance</h2>
          <dl class="facts">
            <div><dt>Owned by</dt><dd>${esc(OWNERS[section.title])}</dd></div>
            <div><dt>Contact</dt><dd>${esc(owner)}</dd></div>
            <div><dt>Applies to</dt><dd>All ${esc(ORG)} employees</dd></div>
            <div><dt>Last reviewed</dt><dd>${reviewed()}</dd></div>
          </dl>
          <h2>What you need to know</h2>
          <p>${esc(leaf.summary)} This page is maintained by ${esc(OWNERS[section.title])}; if something here is out of
            date or unclear, contact ${esc(owner)} and we will update it.</p>
          <p>For questions that are not covered here, see the other pages in ${esc(category.title)} or raise a request
            through the service desk.</p>
          <h2>Related pages</h2>
          <ul>${siblings.map((l) => `<li><a href="${l.path}">${esc(l.title)}</a></li>`).join("")}</ul>
          <div class="helpful"><span>Was this page helpful?</span>
            <button type="button" class="secondary" data-helpful>Yes</button><button type="button" class="secondary" data-helpful>No</button></div>
        </article>
      </div>`;
  }

  // --- render -----------------------------------------------------------------------
  document.getElementById("topbar").innerHTML = menubar();
  wireMenus();
  const kind = document.body.dataset.page;
  // (Tile titles are links, not links inside headings: the harness's tree reads a
  // heading as one leaf and would hide a link in it.)
  if (kind !== "home") document.getElementById("crumbs").innerHTML = crumbs();
  else {
    document.getElementById("crumbs").hidden = true;
    document.getElementById("page-title").textContent = `Welcome to ${ORG} Hub`;
  }
  const render = { home: homePage, section: sectionPage, category: categoryPage, leaf: leafPage }[kind];
  document.getElementById("content").innerHTML = render();
  document.querySelectorAll("[data-helpful]").forEach((b) => b.addEventListener("click", () => App.toast("Thanks for your feedback")));
  document.title = `${kind === "home" ? "Home" : trail[trail.length - 1].title} · ${ORG} Hub`;
  document.body.insertAdjacentHTML("beforeend", `<footer class="site-footer">© ${esc(ORG)} · Intranet for employees only · Service desk: ext. 4400</footer>`);
})();
