"""Property tests (Hypothesis) for the two pieces of arithmetic players' money and guesses depend on:
the canonical coordinate form (docs/protocol.md section 1) and the 40/40/20 prize split
(docs/protocol.md section 4)."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from challenges.coordinates import CoordinateError, parse_coordinates, truncate_number
from challenges.scoring import prize_split

digits = st.text(alphabet="0123456789", min_size=1, max_size=12)
fraction = st.text(alphabet="0123456789", min_size=0, max_size=12)
sign = st.sampled_from(["", "+", "-"])
space = st.text(alphabet=" \t", max_size=3)


@st.composite
def decimal_text(draw, max_whole: int) -> str:
    """A decimal string as a player might type it: optional sign, leading zeros, any number of
    decimals, sometimes a bare trailing '.' or a leading '.'."""
    whole = draw(st.integers(min_value=0, max_value=max_whole))
    zeros = "0" * draw(st.integers(min_value=0, max_value=2))
    frac = draw(fraction)
    form = draw(st.sampled_from(["whole", "dot", "frac", "leading-dot"]))
    if form == "whole":
        body = f"{zeros}{whole}"
    elif form == "dot":
        body = f"{zeros}{whole}."
    elif form == "leading-dot":
        body = f".{frac or '0'}"
    else:
        body = f"{zeros}{whole}.{frac or '0'}"
    return draw(sign) + body


def _exact(text: str) -> Decimal:
    text = text.strip()
    return Decimal(text + "0" if text.endswith(".") else text)


@settings(max_examples=1000, deadline=None)
@given(lat=decimal_text(max_whole=90), lon=decimal_text(max_whole=180), pad=space)
def test_coordinates_truncate_toward_zero_and_round_trip(lat, lon, pad):
    exact_lat, exact_lon = _exact(lat), _exact(lon)
    text = f"{pad}{lat}{pad},{pad}{lon}{pad}"
    if not (-90 <= exact_lat <= 90 and -180 <= exact_lon <= 180):
        with pytest.raises(CoordinateError):
            parse_coordinates(text)
        return
    parsed = parse_coordinates(text)
    for exact, value in ((exact_lat, parsed.lat), (exact_lon, parsed.lon)):
        # Truncation, never rounding: the kept value is never farther from zero than the input,
        # keeps its sign, and loses less than one unit of the 6th decimal.
        assert abs(value) <= abs(exact)
        assert value == 0 or (value > 0) == (exact > 0)
        assert abs(exact - value) < Decimal("0.000001")
        assert value == value.quantize(Decimal("0.000001"))
    # The canonical text is a fixed point: parsing it again gives the same text and values.
    again = parse_coordinates(parsed.text)
    assert again.text == parsed.text
    assert (again.lat, again.lon) == (parsed.lat, parsed.lon)
    # Canonical form: no "+", no "-0", no trailing zeros, no bare ".", exactly one ", ".
    lat_text, lon_text = parsed.text.split(", ")
    for part in (lat_text, lon_text):
        assert not part.startswith("+") and part != "-0"
        assert not part.endswith(".") and not ("." in part and part.endswith("0"))


@settings(max_examples=300, deadline=None)
@given(
    lat=st.decimals(min_value=-200, max_value=200, places=9, allow_nan=False, allow_infinity=False),
    lon=st.decimals(min_value=-400, max_value=400, places=9, allow_nan=False, allow_infinity=False),
)
def test_range_checked_on_the_exact_value(lat, lon):
    """90.0000001 is out of range even though it truncates to 90: the check uses the exact input."""
    text = f"{format(lat, 'f')}, {format(lon, 'f')}"
    inside = -90 <= lat <= 90 and -180 <= lon <= 180
    if inside:
        parsed = parse_coordinates(text)
        assert -90 <= parsed.lat <= 90 and -180 <= parsed.lon <= 180
    else:
        with pytest.raises(CoordinateError):
            parse_coordinates(text)


@settings(max_examples=300, deadline=None)
@given(number=decimal_text(max_whole=10**6))
def test_truncate_number_is_idempotent(number):
    once = truncate_number(number)
    assert truncate_number(once) == once


# Pots from nothing up to a billion USDC, in token units.
@settings(max_examples=1000, deadline=None)
@given(pot=st.integers(min_value=0, max_value=10**15))
def test_prizes_are_40_percent_rounded_down_and_the_share_takes_the_rest(pot):
    prize, share = prize_split(pot)
    # Each prize: never more than 40 %, less than a unit short of it.
    assert 0 <= pot * 40 - prize * 100 < 100
    # Nothing is left over, and the share is at least its 20 %.
    assert 2 * prize + share == pot
    assert share * 100 >= pot * 20
