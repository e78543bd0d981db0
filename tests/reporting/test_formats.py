"""How the reports write numbers: one way for shares, one for other numbers."""

from __future__ import annotations

import pytest

from webharness.reporting.formats import evidence_value, gap, num, pct, pp
from webharness.reporting.summary import RateGap


@pytest.mark.parametrize(
    "value, written",
    [
        (None, "–"),
        (3.0, "3"),
        (12, "12"),
        (6.25, "6.25"),
        (13.149, "13.1"),
        (0.6090193558586564, "0.609"),
        (1234.5, "1,234"),
    ],
)
def test_a_number_is_written_whole_or_to_three_significant_digits(value, written):
    assert num(value) == written


def test_shares_and_differences_of_shares_are_percentages():
    assert (pct(0.6090193558586564), pct(1), pct(None)) == ("60.9%", "100.0%", "–")
    assert (pp(0.125), pp(-0.5)) == ("+12.5 pp", "-50.0 pp")


def test_a_gap_is_written_with_its_interval():
    assert gap(RateGap(gap=0.2, gap_low=0.0524, gap_high=0.3339)) == "+20.0 pp [+5.2 pp, +33.4 pp]"
    assert gap(RateGap(gap=None)) == "–"


def test_evidence_values_are_written_as_the_tables_write_them():
    assert evidence_value("fidelity", 0.6090193558586564) == "60.9%"
    assert evidence_value("progress", 0.6) == "60.0%"
    assert evidence_value("similarity", 0.6090193558586564) == "0.609"
    assert evidence_value("extra steps", []) == "none"
    assert evidence_value("wrong actions", [1, 2]) == "1, 2"
    assert evidence_value("false success", True) == "yes"
    page = {"url": "http://a.test/", "alerts": [], "dialogs": ["Sure?"]}
    assert evidence_value("page", page) == "url: http://a.test/, alerts: none, dialogs: Sure?"
