"""Scoring at resolution: distances written in bulk by the database, correctness, winners, prizes."""

from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from challenges.models import ChallengeStatus
from challenges.scoring import haversine_m, is_correct
from challenges.services import ChallengeStateError
from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve
from responses.selectors import challenge_winners, responses_with_scores

if TYPE_CHECKING:
    from responses.selectors import ScoredResponse

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"


def scored(response: Response) -> "ScoredResponse":
    """The response as the public reads it after resolution: distance and correctness annotated."""
    return responses_with_scores(Response.objects.filter(pk=response.pk)).get()


def test_database_distance_matches_the_python_reference(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=150)
    guesses = [
        "29.9792, 31.1342",
        "29.97918, 31.13426",
        "30.0444, 31.2357",
        "-33.856784, 151.215296",
        "29.979175, 31.134258",
    ]
    responses = [make_response(challenge, text) for text in guesses]
    challenge_resolve(challenge=challenge)
    for response, text in zip(responses, guesses, strict=True):
        response = scored(response)
        lat, lon = (float(x) for x in text.split(","))
        expected = haversine_m(lat, lon, 29.979175, 31.134258)
        assert response.distance_meters == pytest.approx(expected, abs=1e-6)
        assert response.correct is is_correct(expected, 150)


def test_correct_is_at_most_the_threshold(make_challenge, make_response):
    challenge = make_challenge(solution="0, 0", threshold=111)
    # 0.001 degree of latitude is 111.19 m: just outside 111 m; 0.000998 is 110.97 m: inside.
    outside = make_response(challenge, "0.001, 0")
    inside = make_response(challenge, "0.000998, 0")
    challenge_resolve(challenge=challenge)
    outside = scored(outside)
    inside = scored(inside)
    assert outside.correct is False
    assert inside.correct is True


def test_null_threshold_scores_as_zero_metres(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=None)
    exact = make_response(challenge, GIZA)
    near = make_response(challenge, "29.979176, 31.134258")
    challenge_resolve(challenge=challenge)
    exact = scored(exact)
    near = scored(near)
    assert exact.correct is True and exact.distance_meters == 0
    assert near.correct is False


def test_pending_and_rejected_claims_are_not_scored(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    rejected = make_response(challenge, GIZA, "50", status=ResponseStatus.REJECTED)
    challenge_resolve(challenge=challenge)
    rejected = scored(rejected)
    assert rejected.distance_meters is None and rejected.correct is None
    assert challenge_winners(challenge=challenge).earliest is None


def test_resolve_refuses_while_claims_are_pending(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, status=ResponseStatus.PENDING)
    with pytest.raises(ChallengeStateError, match="still being verified"):
        challenge_resolve(challenge=challenge)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.ACTIVE


def test_resolve_refuses_a_draft(make_challenge):
    challenge = make_challenge(publish=False)
    with pytest.raises(ChallengeStateError):
        challenge_resolve(challenge=challenge)


def test_earliest_is_chain_order_not_insertion_order(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    later = make_response(challenge, GIZA, "1", block=10, tx_index=3)
    earlier_same_block = make_response(challenge, GIZA, "1", block=10, tx_index=1)
    make_response(challenge, "0, 0", "1", block=1)  # earliest of all, but wrong
    challenge_resolve(challenge=challenge)
    winners = challenge_winners(challenge=challenge)
    assert winners.earliest is not None
    assert winners.earliest.pk == earlier_same_block.pk
    assert later.pk != winners.earliest.pk


def test_log_index_breaks_a_tie_within_one_transaction_index(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    second = make_response(challenge, GIZA, block=7, tx_index=2, log_index=5)
    first = make_response(challenge, GIZA, block=7, tx_index=2, log_index=1)
    challenge_resolve(challenge=challenge)
    earliest = challenge_winners(challenge=challenge).earliest
    assert earliest is not None and earliest.pk == first.pk != second.pk


def test_highest_stake_ties_go_to_the_earliest(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, "5", block=1)
    tie_late = make_response(challenge, GIZA, "20", block=9)
    tie_early = make_response(challenge, GIZA, "20", block=4)
    make_response(challenge, "0, 0", "500", block=2)  # the largest stake is wrong
    challenge_resolve(challenge=challenge)
    winners = challenge_winners(challenge=challenge)
    assert winners.highest is not None and winners.highest.pk == tie_early.pk != tie_late.pk
    assert winners.split.total == Decimal("545")
    assert winners.earliest_prize == winners.highest_prize == Decimal("218.000000")
    assert winners.operations == Decimal("109.000000")
    assert winners.unallocated == 0


def test_one_response_can_win_both_shares(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    only = make_response(challenge, GIZA, "10", block=5)
    make_response(challenge, "0, 0", "3.33", block=1)
    challenge_resolve(challenge=challenge)
    winners = challenge_winners(challenge=challenge)
    assert winners.earliest is not None and winners.highest is not None
    assert winners.earliest.pk == winners.highest.pk == only.pk
    # 40 % of 13.33 rounded down to token units, twice; 20 % for operations.
    assert winners.earliest_prize == Decimal("5.332000")
    assert winners.operations == Decimal("2.666000")


def test_no_correct_response_leaves_the_whole_pot_unallocated(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, "0, 0", "7.5")
    challenge_resolve(challenge=challenge)
    winners = challenge_winners(challenge=challenge)
    assert winners.earliest is None and winners.highest is None
    assert winners.earliest_prize is None and winners.operations == 0
    assert winners.unallocated == Decimal("7.5")


def test_prize_shares_round_down_to_token_units(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, GIZA, "1.000007")
    challenge_resolve(challenge=challenge)
    winners = challenge_winners(challenge=challenge)
    assert winners.earliest_prize == Decimal("0.400002")
    assert winners.operations == Decimal("0.200001")
    assert winners.unallocated == Decimal("0.000002")


def test_resolution_scores_in_a_constant_number_of_queries(make_challenge, make_response, settings):
    """The statements of a resolution do not grow with the responses (one chunk holds them all here),
    and only the correct responses are written."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.CHALLENGE_RESOLVE_CHUNK = 1000
    counts = []
    for n in (3, 60):
        challenge = make_challenge(solution=GIZA)
        for i in range(n):
            make_response(challenge, f"29.97{i:02d}, 31.1342")
        with CaptureQueriesContext(connection) as queries:
            challenge_resolve(challenge=challenge)
        challenge.refresh_from_db()
        assert challenge.status == ChallengeStatus.RESOLVED
        assert responses_with_scores(challenge.responses.all()).filter(distance_meters__isnull=True).count() == 0
        updates = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "responses_response"')]
        assert len(updates) == 1 and "is_correct" in updates[0]
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1] <= 40
