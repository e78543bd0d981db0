"""A state kept as its change from the step before comes back exactly."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webharness.trace.deltas import apply_delta, json_delta

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=25,
)


@given(JSON, JSON)
def test_any_json_value_is_rebuilt_from_the_one_before_and_the_delta(before, after):
    rebuilt = apply_delta(before, json_delta(before, after))
    as_json = functools.partial(json.dumps, sort_keys=True)
    assert as_json(rebuilt) == as_json(after)  # types too: true is not 1


@given(JSON)
def test_an_unchanged_value_has_an_empty_delta(value):
    assert json_delta(value, value) == {}


def test_a_new_key_whose_value_is_null_is_kept():
    assert apply_delta({}, json_delta({}, {"focused": None})) == {"focused": None}


def test_the_value_before_is_not_changed_by_applying():
    before = {"elements": [{"value": ""}]}
    apply_delta(before, json_delta(before, {"elements": [{"value": "Ada"}]}))
    assert before == {"elements": [{"value": ""}]}


def test_a_delta_of_another_shape_is_an_error_naming_it():
    with pytest.raises(ValueError, match="not a delta of a list"):
        apply_delta([1, 2], {"d": {"a": {"=": 1}}})
