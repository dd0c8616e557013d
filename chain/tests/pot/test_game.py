"""A whole challenge on anvil through the site's own code: published and opened in the pot, stakes
signed by players and relayed, their guesses sent once confirmed, the solution and the winners
revealed by the worker after the close, and the pot paying the winners itself. The balances are the
chain's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from challenges.models import PotState
from responses.models import Stake

from ..pot_support import follow, relay, settle, sign_stake

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"  # about 30 m from GIZA: correct within 150 m
FAR = "48.8584, 2.2945"


def test_a_challenge_from_publish_to_paid_winners(chain, make_challenge, api):
    challenge = make_challenge(solution=GIZA, threshold=150, closes_at=timezone.now() + timedelta(hours=1))
    state = PotState.objects.get(challenge=challenge)
    assert state.terms_digest, "the follower read the Opened event"
    answer = api.get("/api/challenges/active").json()
    assert answer["id"] == challenge.pk and answer["phase"] == "open"
    assert answer["termsDigest"] == state.terms_digest

    stakes = [
        sign_stake(chain, challenge, player=0, text=FAR, stake="5"),
        sign_stake(chain, challenge, player=1, text=NEAR, stake="3"),
        sign_stake(chain, challenge, player=2, text=NEAR, stake="7"),
    ]
    before = {s.payer: chain.balance(s.payer) for s in stakes}
    for signed in stakes:
        posted = api.post("/api/responses", signed.body(challenge.pk), format="json")
        assert posted.status_code == 201, posted.json()
        assert posted.json()["status"] == "relaying"
        # Posting the guess before its stake is in the pot is refused, and may pass later.
        early = api.post("/api/responses/guess", signed.guess_body(challenge.pk), format="json")
        assert early.status_code == 409 and early.json()["code"] == "stake_not_confirmed"
    relay()
    chain.mine(2)
    follow()
    for signed in stakes:
        status = api.get(f"/api/responses/{signed.commitment}").json()
        assert status["status"] == "confirmed", status
        assert status["submissionText"] is None, "no guess is public before the solution's reveal"
        guess = api.post("/api/responses/guess", signed.guess_body(challenge.pk), format="json")
        assert guess.status_code == 201, guess.json()
    assert chain.pot_contract().functions.owed().call() == 15_000_000
    assert [s.payer for s in Stake.objects.filter(challenge=challenge).order_by("seq")] == [s.payer for s in stakes]

    # The close: the worker reveals the solution once the close is deep, then the winners it holds.
    chain.warp(3_600 + 60)
    settle(chain)
    state.refresh_from_db()
    assert state.solution_block is not None
    assert (state.earliest_seq, state.highest_seq) == (2, 3)
    public = api.get(f"/api/responses?challengeId={challenge.pk}").json()
    assert [row["submissionText"] for row in public] == [FAR, NEAR, NEAR]
    assert [row["isCorrect"] for row in public] == [False, True, True]

    # The guess window ends: finalize, then each prize and the share, paid by the pot.
    chain.warp(86_400 + 60)
    settle(chain)
    state.refresh_from_db()
    assert state.finalized_block is not None and state.settled
    prize = 15_000_000 * 40 // 100
    assert chain.balance(stakes[1].payer) - before[stakes[1].payer] == -3_000_000 + prize
    assert chain.balance(stakes[2].payer) - before[stakes[2].payer] == -7_000_000 + prize
    assert chain.balance(stakes[0].payer) - before[stakes[0].payer] == -5_000_000
    assert chain.pot_contract().functions.owed().call() == 0
    winners = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert winners["final"] and winners["phase"] == "paid"
    assert winners["earliest"]["id"] == 2 and winners["highest"]["id"] == 3
    assert {p["kind"] for p in winners["payments"]} == {"earliest", "highest", "share"}
