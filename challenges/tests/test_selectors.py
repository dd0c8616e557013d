"""The latitude band resolution reads (challenges/selectors.py, latitude_band)."""

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from challenges.scoring import haversine_m


@settings(max_examples=500, deadline=None)
@given(
    lat=st.decimals(min_value=-89, max_value=89, places=6),
    lon=st.decimals(min_value=-180, max_value=180, places=6),
    threshold=st.integers(min_value=0, max_value=2_000_000),
    bearing_lon=st.decimals(min_value=Decimal("-0.05"), max_value=Decimal("0.05"), places=6),
)
def test_the_latitude_band_never_leaves_out_a_correct_guess(lat, lon, threshold, bearing_lon):
    """Resolution reads only the latitude band of selectors.latitude_band: every guess outside it is
    farther than the threshold (in the doubles the haversine uses), so no correct guess is skipped."""
    from challenges.selectors import latitude_band

    solution = f"{lat}, {lon}"
    low, high = latitude_band(solution=solution, threshold_m=threshold)
    step = Decimal("0.000001")
    for outside in (low - step, high + step):
        if abs(outside) <= 90:
            distance = haversine_m(float(outside), float(lon + bearing_lon), float(lat), float(lon))
            assert distance > threshold
