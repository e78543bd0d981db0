"""Writes the navigate scenario's static pages from one site map.

Run it after changing ``SITEMAP``: ``python3 tasks/navigate/build_site.py``. It writes one
HTML file per page (home, section, category and leaf pages, each a real URL path) and
``site/assets/sitemap.js``, which the pages' script uses to build menus and content. The
task's ``leaf``/``category``/``section`` parameter maps must agree with ``SITEMAP``
(a test checks it).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

SITE = Path(__file__).parent / "site"

# section -> (blurb, {category -> (blurb, {leaf -> summary})})
SITEMAP: dict[str, tuple[str, dict[str, tuple[str, dict[str, str]]]]] = {
    "Company": (
        "Who we are, where we work and how we got here.",
        {
            "About us": (
                "Our story, our people at the top and what we stand for.",
                {
                    "Our history": "From a two-person workshop to an international team: the milestones that shaped the company.",
                    "Leadership team": "The executive team, what each of them is responsible for and how to reach their offices.",
                    "Company values": "The five values we hire for, give feedback on and use to make hard decisions.",
                    "Annual report": "Last year's results, our biggest projects and the goals we set for this year.",
                },
            ),
            "Offices": (
                "Addresses, opening hours and practical details for every site.",
                {
                    "Office locations": "Addresses, opening hours and reception contacts for all of our offices.",
                    "Visitor information": "How to register a guest, what visitors need to bring and where they sign in.",
                    "Parking and transport": "Parking permits, bike storage and the public transport passes we reimburse.",
                    "Meeting rooms": "Room sizes, equipment and how to book a room in every office.",
                },
            ),
        },
    ),
    "People": (
        "Benefits, time off and everything about working here.",
        {
            "Benefits": (
                "What we offer on top of your salary.",
                {
                    "Health insurance": "Who is covered, how to add family members and how to make a claim.",
                    "Pension plan": "Employer contributions, how to change your own contribution and the providers we use.",
                    "Parental leave": "How much leave you get, how it is paid and how to plan your return.",
                    "Wellbeing programme": "Counselling, fitness subsidies and the mental health first aiders you can talk to.",
                },
            ),
            "Time off": (
                "Holidays, sickness and how to book leave.",
                {
                    "Holiday calendar": "Public holidays and office closures for every location this year.",
                    "Sick leave": "How to report sickness, when you need a doctor's note and how sick pay works.",
                    "Requesting time off": "How to book annual leave in the HR portal and how approvals work.",
                    "Volunteering days": "Two paid days a year to volunteer, and how to log them.",
                },
            ),
        },
    ),
    "Work tools": (
        "IT support, finance processes and the tools you use every day.",
        {
            "IT help": (
                "Get help with accounts, devices and software.",
                {
                    "Reset your password": "Reset your single sign-on password and set up a new authenticator device.",
                    "Report a lost device": "What to do in the first hour after losing a laptop or phone.",
                    "Software requests": "How to request a licence or a new tool, and how long approval takes.",
                    "Wi-Fi and VPN": "Connecting to the office Wi-Fi, and to the VPN when you work from elsewhere.",
                },
            ),
            "Finance": (
                "Spending company money the right way.",
                {
                    "Expense claims": "What you can claim, the receipts you need and the monthly deadline.",
                    "Corporate cards": "Who can hold a card, the spending limits and how to reconcile statements.",
                    "Purchase orders": "When you need a purchase order, who approves it and how suppliers get paid.",
                    "Payroll dates": "When salaries are paid each month and the cut-off for changes to your pay.",
                },
            ),
        },
    ),
    "Policies": (
        "The rules we all work by.",
        {
            "Travel": (
                "Planning, booking and staying safe on business trips.",
                {
                    "Booking travel": "Use the travel portal to book flights, trains and hotels within policy.",
                    "Travel allowances": "Daily allowances per country and what they are meant to cover.",
                    "Travel safety": "Risk ratings, check-in rules and the 24-hour assistance line.",
                    "Travel insurance": "What the company policy covers, and how to get help or claim while abroad.",
                },
            ),
            "Workplace": (
                "How we work together, wherever we are.",
                {
                    "Remote work": "Who can work remotely, for how long and the equipment allowance.",
                    "Code of conduct": "The standards of behaviour we expect and how to raise a concern.",
                    "Health and safety": "Fire wardens, first aiders and how to report an incident at work.",
                    "Data protection": "How we handle personal data, and what to do if you spot a data breach.",
                },
            ),
        },
    ),
}


def slug(text: str) -> str:
    """The same slug as the task parameters' ``transform: slug``."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def page(title: str, kind: str) -> str:
    t = html.escape(title)
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{t} · Intranet</title>
  <script src="/__webharness/runtime.js"></script>
  <link rel="stylesheet" href="/_shared/app.css">
  <link rel="stylesheet" href="/assets/intranet.css">
  <script src="/_shared/app.js"></script>
  <script src="/assets/sitemap.js"></script>
</head>
<body data-page="{kind}">
  <header class="topbar" id="topbar"></header>
  <main id="main">
    <nav aria-label="Breadcrumb" class="crumbs" id="crumbs"></nav>
    <h1 id="page-title">{t}</h1>
    <div id="content"></div>
  </main>
  <script src="/assets/intranet.js"></script>
</body>
</html>
"""


def tree() -> list[dict]:
    return [
        {
            "title": s,
            "blurb": sb,
            "path": f"/{slug(s)}/",
            "children": [
                {
                    "title": c,
                    "blurb": cb,
                    "path": f"/{slug(s)}/{slug(c)}/",
                    "children": [
                        {
                            "title": leaf,
                            "summary": text,
                            "path": f"/{slug(s)}/{slug(c)}/{slug(leaf)}.html",
                        }
                        for leaf, text in leaves.items()
                    ],
                }
                for c, (cb, leaves) in categories.items()
            ],
        }
        for s, (sb, categories) in SITEMAP.items()
    ]


def main() -> None:
    sections = tree()
    (SITE / "assets" / "sitemap.js").write_text(
        "// Generated by tasks/navigate/build_site.py: the intranet's pages.\n"
        f"window.SITEMAP = {json.dumps(sections, indent=1)};\n",
        encoding="utf-8",
    )
    (SITE / "index.html").write_text(page("Home", "home"), encoding="utf-8")
    for section in sections:
        folder = SITE / section["path"].strip("/")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index.html").write_text(page(section["title"], "section"), encoding="utf-8")
        for category in section["children"]:
            sub = SITE / category["path"].strip("/")
            sub.mkdir(parents=True, exist_ok=True)
            (sub / "index.html").write_text(page(category["title"], "category"), encoding="utf-8")
            for leaf in category["children"]:
                (SITE / leaf["path"].lstrip("/")).write_text(
                    page(leaf["title"], "leaf"), encoding="utf-8"
                )


if __name__ == "__main__":
    main()
