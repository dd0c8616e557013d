"""Winners are decided by chain order (block number, transaction index, log index), never by time
or insertion (docs/protocol.md). Every row here carries a block time, a created_at and an id that
all contradict its chain position, so a winners query ordering by submission_timestamp, created_at
or id, or by the chain fields in the wrong order, picks a different row and fails."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from challenges.scoring import pick_earliest, pick_highest
from responses.models import Response
from responses.resolution import challenge_resolve
from responses.selectors import challenge_winners

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
WRONG = "0, 0"
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def with_times_against_chain_order(*responses: Response) -> None:
    """Give the responses, listed from chain-earliest to chain-latest, block times and creation times
    in the opposite order (the chain-earliest has the latest of both)."""
    count = len(responses)
    for position, response in enumerate(responses):
        moment = EPOCH + timedelta(minutes=count - position)
        Response.objects.filter(pk=response.pk).update(submission_timestamp=moment, created_at=moment)


def winners_checked(challenge):
    """The winners query, checked against the pure reference (challenges/scoring.py, pick_*) over
    the correct responses read back: both must name the same rows."""
    winners = challenge_winners(challenge=challenge)
    correct = list(Response.objects.filter(challenge=challenge, status="confirmed", is_correct=True))
    assert (winners.earliest and winners.earliest.pk) == (pick_earliest(correct) and pick_earliest(correct).pk)
    assert (winners.highest and winners.highest.pk) == (pick_highest(correct) and pick_highest(correct).pk)
    return winners


@pytest.mark.parametrize(
    ("later", "first"),
    [
        # Created latest (highest id), yet first on chain.
        pytest.param({"block": 20, "tx_index": 0}, {"block": 10, "tx_index": 5}, id="block-not-time-or-id"),
        pytest.param({"block": 11, "tx_index": 0}, {"block": 10, "tx_index": 9}, id="block-before-tx-index"),
        pytest.param(
            {"block": 10, "tx_index": 3, "log_index": 0},
            {"block": 10, "tx_index": 1, "log_index": 7},
            id="tx-index-within-a-block",
        ),
        pytest.param(
            {"block": 7, "tx_index": 2, "log_index": 5},
            {"block": 7, "tx_index": 2, "log_index": 1},
            id="log-index-within-a-transaction",
        ),
    ],
)
def test_earliest_follows_chain_order_not_time_or_id(make_challenge, make_response, later, first):
    challenge = make_challenge(solution=GIZA)
    later = make_response(challenge, GIZA, **later)
    first = make_response(challenge, GIZA, **first)
    with_times_against_chain_order(first, later)
    challenge_resolve(challenge=challenge)
    assert winners_checked(challenge).earliest.pk == first.pk


def test_a_highest_stake_tie_goes_to_the_chain_earliest(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    tie_late = make_response(challenge, GIZA, "20", block=9, tx_index=0)
    tie_same_block = make_response(challenge, GIZA, "20", block=4, tx_index=6)
    tie_early = make_response(challenge, GIZA, "20", block=4, tx_index=2)
    smaller_first = make_response(challenge, GIZA, "5", block=1)
    make_response(challenge, WRONG, "500", block=0)
    with_times_against_chain_order(smaller_first, tie_early, tie_same_block, tie_late)
    challenge_resolve(challenge=challenge)
    winners = winners_checked(challenge)
    assert winners.highest.pk == tie_early.pk
    assert winners.earliest.pk == smaller_first.pk


def test_the_public_winners_answer_follows_chain_order(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    later = make_response(challenge, GIZA, "3", block=30, tx_index=0, address="0x" + "b" * 40)
    first = make_response(challenge, GIZA, "3", block=12, tx_index=4, address="0x" + "a" * 40)
    with_times_against_chain_order(first, later)
    challenge_resolve(challenge=challenge)
    body = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert body["earliest"]["transactionHash"] == first.transaction_hash
    # Equal stakes: the highest-stake share also goes to the chain-earliest.
    assert body["highest"]["transactionHash"] == first.transaction_hash
    assert Decimal(body["earliest"]["prize"]) == Decimal("2.4")


def test_a_highest_stake_tie_within_one_transaction_goes_to_the_lower_log_index(make_challenge, make_response):
    # The last key of the highest-stake order (a mutation run found no test for it).
    challenge = make_challenge(solution=GIZA)
    later_log = make_response(challenge, GIZA, "20", block=4, tx_index=2, log_index=8)
    first_log = make_response(challenge, GIZA, "20", block=4, tx_index=2, log_index=3)
    with_times_against_chain_order(first_log, later_log)
    challenge_resolve(challenge=challenge)
    winners = winners_checked(challenge)
    assert winners.highest.pk == first_log.pk
    assert winners.earliest.pk == first_log.pk
