"""A stake paid before a challenge's terms were anchored (docs/protocol.md section 6) on a real EVM:
in a block before the anchor's, or before the anchored opening time, it is rejected `early`; one at
the opening second after the anchor counts."""

import pytest

from chain.verification import payment_verify
from challenges.models import ChallengeAnchor

from .conftest import anchor_on_chain, post_claim

pytestmark = pytest.mark.django_db


def test_a_payment_mined_before_the_anchor_and_claimed_after_the_challenge_opened_is_rejected_early(
    chain, make_challenge, draft
):
    challenge = make_challenge(anchored=False)  # active, its anchor queued: the id is public
    d = draft(challenge=challenge)
    tx_hash = chain.pay(chain.stake_calldata(d))  # mined before the anchor
    anchor = anchor_on_chain(chain, challenge)
    assert chain.w3.eth.get_transaction_receipt(tx_hash)["blockNumber"] < anchor.block_number
    response = post_claim(d, tx_hash)  # the challenge is open now: the claim is stored
    outcome = payment_verify(response_id=response.pk)
    assert (outcome.status, outcome.code) == ("rejected", "early")
    response.refresh_from_db()
    assert response.rejection_reason == "The payment was made before the challenge's terms were committed on chain."
    challenge.refresh_from_db()
    assert challenge.response_count == 0


def _claim_paid_in_a_block(chain, d):
    """A stake paid and mined, and its claim posted: (the claim, its block's time)."""
    tx_hash = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx_hash)
    block_time = chain.w3.eth.get_block(chain.w3.eth.get_transaction_receipt(tx_hash)["blockNumber"])["timestamp"]
    return response, block_time


def test_a_payment_whose_block_time_is_before_the_anchored_opening_is_rejected_early(chain, draft):
    d = draft()
    response, block_time = _claim_paid_in_a_block(chain, d)
    # The rule itself: a block after the anchor's, but earlier than the anchored opensAt.
    ChallengeAnchor.objects.filter(challenge=d.challenge).update(opens_at=block_time + 1)
    assert payment_verify(response_id=response.pk).code == "early"


def test_a_payment_after_the_anchor_at_the_opening_second_counts(chain, draft):
    d = draft()
    response, block_time = _claim_paid_in_a_block(chain, d)
    ChallengeAnchor.objects.filter(challenge=d.challenge).update(opens_at=block_time)
    assert payment_verify(response_id=response.pk).status == "confirmed"
