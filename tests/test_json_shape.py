"""devtools/json_shape.py: what tells an answer that grows from one whose values got longer."""

from devtools.json_shape import leaf_lengths, value_growth


def test_each_leaf_is_named_by_its_path_and_measured_as_sent():
    assert leaf_lengths({"a": {"b": "xy"}, "c": [None, 12]}) == {"a.b": 4, "c[0]": 4, "c[1]": 2}


def test_an_entry_or_a_field_more_is_a_change_of_structure():
    assert value_growth({"rows": [1, 2]}, {"rows": [1, 2, 3]}) is None
    assert value_growth({"a": 1}, {"a": 1, "b": 2}) is None
    assert value_growth({"winner": None}, {"winner": {"id": 1}}) is None


def test_longer_values_are_named_with_their_growth():
    assert value_growth({"count": 9, "id": 4, "sum": "1.5"}, {"count": 10, "id": 4, "sum": "0.5"}) == {"count": 1}
