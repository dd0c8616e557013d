"""The game's steps the worker takes for everyone (chain/pot/steps.py), on anvil, through the relayer:
with no correct guess every stake is refunded and the bond goes back through payShare; a solution
never revealed aborts the challenge and every payer gets the stake back with a share of the bond, to
the token unit; with winners, the site reveals only the guesses that beat the pot's best, then the
pot pays two prizes and the share (with the bond), each its own call: a paused token fails them and
they are queued again after POT_STEP_RETRY_SECONDS, a blacklisted winner's prize stays owed while the
others are paid. Every amount is the chain's."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.models import PotCall, PotCallStatus, PotEvent
from chain.pot import abi
from challenges.models import PotState
from responses.models import PotPayment

from ..pot_support import follow, post, post_guess, pot_state, relay, send_as, settle, sign_stake, token_as

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"  # about 30 m from GIZA: correct within 150 m
FAR = "48.8584, 2.2945"
HOUR, DAY = 3_600, 86_400


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


@pytest.fixture
def bonded(chain, make_challenge):
    """A challenge whose operator posted a bond (the operator is minted the USDC first, as it must hold it)."""

    def make(bond: str, **kwargs):
        token_as(chain, "mint", chain.operator, int(Decimal(bond) * 10**6))
        return make_challenge(
            solution=GIZA, bond=Decimal(bond), closes_at=timezone.now() + timedelta(hours=1), **kwargs
        )

    return make


def stakes_in(chain, challenge, api, plan: list[tuple[int, str, str]]) -> list:
    """Each (player, guess, stake) signed, posted, relayed, confirmed, and its guess sent: the page's path."""
    signed = [sign_stake(chain, challenge, player=player, text=text, stake=stake) for player, text, stake in plan]
    for one in signed:
        assert post(api, challenge, one).status_code == 201
    relay()
    chain.mine(2)
    follow()
    for one in signed:
        assert post_guess(api, challenge, one).status_code == 201
    return signed


def balances(chain, signed) -> list[int]:
    return [chain.balance(one.payer) for one in signed]


def test_no_correct_guess_refunds_every_stake_and_returns_the_bond(chain, bonded, api):
    challenge = bonded("2")
    share_before = chain.balance(chain.share_receiver)
    signed = stakes_in(chain, challenge, api, [(0, FAR, "3"), (1, FAR, "4")])
    before = balances(chain, signed)
    chain.warp(HOUR + 60)
    settle(chain)
    assert not PotEvent.objects.filter(challenge_id=challenge.pk, name="GuessRevealed").exists()  # none would win
    chain.warp(DAY + 60)
    settle(chain)
    assert balances(chain, signed) == [before[0] + 3_000_000, before[1] + 4_000_000]
    assert chain.balance(chain.share_receiver) - share_before == 2_000_000  # the bond, back
    assert chain.pot_contract().functions.owed().call() == 0
    state = pot_state(chain, challenge)
    assert state["finalized"] and state["sharePaid"] and state["refundedStake"] == 7_000_000
    assert PotState.objects.get(challenge=challenge).settled
    winners = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert (winners["phase"], winners["earliest"], winners["highest"]) == ("paid", None, None)
    assert sorted((p["kind"], p["amount"]) for p in winners["payments"]) == [
        ("refund", "3.000000"), ("refund", "4.000000"), ("share", "2.000000"),
    ]  # fmt: skip
    outcome = api.get(f"/api/responses/{signed[0].commitment}").json()["outcome"]
    assert outcome == {"prize": "0.000000", "prizes": [], "paid": True, "refund": "3.000000"}


def test_an_abort_refunds_every_stake_with_its_share_of_the_bond_to_the_unit(chain, bonded, api):
    challenge = bonded("1")
    signed = stakes_in(chain, challenge, api, [(0, GIZA, "3"), (1, NEAR, "5"), (2, FAR, "7")])
    before = balances(chain, signed)
    # The close and the solution deadline pass with nothing sent: the solution is never revealed.
    chain.warp(HOUR + DAY + 60)
    follow()
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "aborted"
    assert not PotCall.objects.filter(challenge=challenge, kind="reveal_solution").exists()
    settle(chain)
    refunds = list(
        PotEvent.objects.filter(challenge_id=challenge.pk, name="Refunded").order_by("block_number", "log_index")
    )
    assert len(refunds) == 3
    # Each refund takes bondLeft x stake / potLeft, rounded down; the last what remains.
    bond_left, pot_left = 1_000_000, 15_000_000
    for event in refunds:
        stake = int(event.args["stake"])
        assert int(event.args["bondShare"]) == bond_left * stake // pot_left
        bond_left -= int(event.args["bondShare"])
        pot_left -= stake
    assert bond_left == 0 and pot_left == 0
    by_payer = {event.args["payer"]: int(event.args["stake"]) + int(event.args["bondShare"]) for event in refunds}
    assert balances(chain, signed) == [before[i] + by_payer[one.payer] for i, one in enumerate(signed)]
    assert sum(by_payer.values()) == 16_000_000
    assert chain.pot_contract().functions.owed().call() == 0
    state = pot_state(chain, challenge)
    assert state["aborted"] and (state["refundedStake"], state["refundedBond"]) == (15_000_000, 1_000_000)
    assert not state["sharePaid"]  # the operator's bond went to the payers
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "aborted"
    assert PotState.objects.get(challenge=challenge).settled


def test_winners_revealed_only_when_better_then_paid_through_a_pause_and_a_blacklist(chain, bonded, api, settings):
    challenge = bonded("2")
    share_before = chain.balance(chain.share_receiver)
    plan = [(0, NEAR, "3"), (1, NEAR, "7"), (2, NEAR, "5"), (3, FAR, "9")]
    signed = stakes_in(chain, challenge, api, plan)
    before = balances(chain, signed)

    # The close: the worker reveals the solution; before the follower has read it, player 0 reveals
    # its own guess from its wallet.
    chain.warp(HOUR + 60)
    for _ in range(4):
        follow()
        relay()
        if pot_state(chain, challenge)["guessDeadline"]:
            break
        chain.mine(2)
    assert PotState.objects.get(challenge=challenge).solution_block is None
    first = signed[0]
    reveal = abi.reveal_guess_data(
        challenge_id=challenge.pk, seq=1, payer=first.payer, amount=first.amount, lat_e6=first.lat_e6,
        lon_e6=first.lon_e6, salt=first.salt,
    )  # fmt: skip
    assert send_as(chain, first.key, to=chain.pot, data=reveal)["status"] == 1
    settle(chain)
    # The worker revealed only what beat the pot's best (1, earliest and highest so far): the highest
    # stake, 2; not 3 (correct, but earlier than nothing and lower than 2), nor the wrong one.
    revealed = PotEvent.objects.filter(challenge_id=challenge.pk, name="GuessRevealed").order_by("block_number")
    assert [int(e.args["seq"]) for e in revealed] == [1, 2]
    assert PotCall.objects.filter(challenge=challenge, kind="reveal_guess").count() == 1
    state = pot_state(chain, challenge)
    assert (state["earliestSeq"], state["highestSeq"]) == (1, 2)

    # The guess window ends: finalize; then the token is paused as the payments go out.
    settings.POT_STEP_RETRY_SECONDS = 3_600
    chain.warp(DAY + 60)
    follow()
    relay()
    chain.mine(2)
    follow()  # the payments are queued
    token_as(chain, "pause")
    relay()
    payments = PotCall.objects.filter(challenge=challenge, kind__in=["pay_prize", "pay_share"])
    assert payments.count() == 3 and set(payments.values_list("status", "code")) == {("failed", "token_paused")}
    follow()
    assert PotCall.objects.filter(challenge=challenge, status=PotCallStatus.QUEUED).count() == 0  # not yet
    # The retry time passes (the calls were failed that long ago); the token unpaused, the earliest
    # winner blacklisted by its issuer.
    token_as(chain, "unpause")
    token_as(chain, "blacklist", chain.w3.to_checksum_address(signed[0].payer))
    payments.update(updated_at=timezone.now() - timedelta(seconds=3_601))
    settle(chain, rounds=3)
    pot, prize = 24_000_000, 24_000_000 * 40 // 100
    assert balances(chain, signed)[1] == before[1] + prize  # the highest prize, paid
    assert chain.balance(chain.share_receiver) - share_before == pot - 2 * prize + 2_000_000
    assert balances(chain, signed)[0] == before[0]  # the earliest prize: owed, not paid
    assert chain.pot_contract().functions.owed().call() == prize
    refused = PotCall.objects.filter(challenge=challenge, key__startswith="pay_prize", status="failed").last()
    assert refused is not None and refused.code == "payer_blacklisted"
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "final"
    assert set(PotPayment.objects.filter(challenge=challenge).values_list("kind", flat=True)) == {"highest", "share"}

    token_as(chain, "unBlacklist", chain.w3.to_checksum_address(signed[0].payer))
    PotCall.objects.filter(challenge=challenge, status="failed").update(updated_at=timezone.now() - timedelta(hours=2))
    settle(chain, rounds=3)
    assert balances(chain, signed)[0] == before[0] + prize
    assert chain.pot_contract().functions.owed().call() == 0
    assert balances(chain, signed)[2:] == before[2:]  # correct but beaten, and wrong: nothing
    winners = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert winners["phase"] == "paid" and (winners["earliest"]["id"], winners["highest"]["id"]) == (1, 2)
    assert winners["prizes"] == {"earliest": "9.600000", "highest": "9.600000", "share": "4.800000"}
    paid = api.get(f"/api/responses/{signed[0].commitment}").json()["outcome"]
    assert paid == {"prize": "9.600000", "prizes": ["earliest"], "paid": True, "refund": None}
