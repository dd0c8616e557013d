"""What a blanket of cheap guesses costs (challenges/scoring.py, blanket), shown to staff."""

from decimal import Decimal

from challenges.scoring import blanket


def test_a_blanket_grows_with_the_square_of_the_area_over_the_threshold():
    wide = blanket(threshold_m=1000, min_stake=Decimal("1"))
    narrow = blanket(threshold_m=100, min_stake=Decimal("1"))
    assert wide is not None and narrow is not None
    # (10 km / 1 km)^2 = 100 discs, times the hexagonal covering's 1.2092: 121 stakes.
    assert wide.stakes == 121
    assert narrow.stakes == 12_092
    assert wide.cost == Decimal("121")
    assert wide.worth_it_at == Decimal("302.50")


def test_the_minimum_stake_scales_the_cost_and_the_pot_it_takes():
    found = blanket(threshold_m=1000, min_stake=Decimal("2.50"))
    assert found is not None
    assert (found.cost, found.worth_it_at) == (Decimal("302.50"), Decimal("756.25"))


def test_without_a_threshold_no_blanket_covers_anything():
    assert blanket(threshold_m=None, min_stake=Decimal("1")) is None
    assert blanket(threshold_m=0, min_stake=Decimal("1")) is None
