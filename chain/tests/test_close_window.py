"""Close means "no payment mined after this instant counts", never "no claim posted after this
instant counts" (docs/protocol.md section 4, "Close, grace period and resolution"). On anvil, with
the API in this process: a player paid inside the window, staff closed before the page posted the
claim, and the claim must still count."""

from decimal import Decimal

import pytest

from chain.verification import payment_verify
from challenges.models import Challenge
from challenges.services import challenge_close
from responses.models import Response, ResponseStatus

from .verifier_support import pay, wait_for_wall_clock_past_head

pytestmark = pytest.mark.django_db


def body(d, tx_hash: str) -> dict:
    return {
        "challengeId": d.challenge.pk,
        "submissionText": d.text,
        "submissionStake": str(d.stake),
        "transactionHash": tx_hash,
        "submitterAddress": d.address,
        "submissionSalt": d.salt,
    }


def test_a_claim_posted_after_staff_close_for_a_payment_mined_in_the_window_counts(chain, draft, api):
    d = draft()
    tx = pay(chain, d)
    wait_for_wall_clock_past_head(chain)  # staff close after the payment's block, in real time
    challenge_close(challenge=d.challenge)

    answer = api.post("/api/responses", body(d, tx), format="json")

    assert answer.status_code == 201, answer.content
    chain.mine(2)
    assert payment_verify(response_id=answer.json()["id"]).status == ResponseStatus.CONFIRMED
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("2.5")


def test_a_claim_posted_after_close_for_a_payment_mined_after_it_is_stored_and_rejected_late(chain, draft, api):
    d = draft()
    wait_for_wall_clock_past_head(chain)
    challenge_close(challenge=d.challenge)
    wait_for_wall_clock_past_head(chain)
    tx = pay(chain, d)  # mined after the close

    answer = api.post("/api/responses", body(d, tx), format="json")

    assert answer.status_code == 201, answer.content
    chain.mine(2)
    outcome = payment_verify(response_id=answer.json()["id"])
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, "late")
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == 0


def test_a_challenge_not_open_yet_still_refuses_claims(chain, make_challenge, draft, api):
    queued = make_challenge(anchored=False)  # active, its terms not on chain yet
    d = draft(challenge=queued)
    answer = api.post("/api/responses", body(d, "0x" + "ab" * 32), format="json")
    assert answer.status_code == 409
    assert answer.json()["message"] == "This challenge is not accepting submissions."
    assert not Response.objects.exists()


def test_a_closed_challenge_that_never_opened_refuses_claims(chain, make_challenge, draft, api):
    queued = make_challenge(anchored=False)
    challenge_close(challenge=queued)
    d = draft(challenge=queued)
    answer = api.post("/api/responses", body(d, "0x" + "ab" * 32), format="json")
    assert answer.status_code == 409
    assert not Response.objects.exists()
