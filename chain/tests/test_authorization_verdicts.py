"""What a claim paid by a signed authorization ends as, on anvil with the real token
(docs/protocol.md section 2a, "What is checked on chain"): cancelled by its payer, expired unused,
used after the close or before the anchor, and used together with another claim's authorization in
one transaction."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chain.anchors import AnchorPending, anchor_advance
from chain.models import Payment
from chain.verification import VerificationPending
from challenges.models import Challenge, ChallengeAnchor
from challenges.services import challenge_close
from responses.models import Response, ResponseStatus

from . import authorization_support as support
from .conftest import anchor_on_chain
from .verifier_support import mine_at, mine_pending, wait_for_wall_clock_past_head

pytestmark = [pytest.mark.django_db, pytest.mark.integration]
authorization_claim = support.authorization_claim


def test_a_cancelled_authorization_is_rejected_once_the_cancel_is_deep_enough(chain, authorization_claim):
    claim = authorization_claim()
    chain.cancel_authorization(signer=chain.player, nonce="0x" + claim.commitment)
    with pytest.raises(VerificationPending):
        support.decided(claim)  # the cancel has one confirmation of two
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.REJECTED, "authorization_cancelled")
    claim.refresh_from_db()
    assert claim.rejection_reason == "The payment authorization was cancelled, so no USDC was transferred."
    assert support.status_of(chain, support.relay(chain, claim)) == 0  # nobody can use it now


def test_an_unused_authorization_expires_once_a_block_confirmations_deep_reached_valid_before(
    chain, authorization_claim, settings
):
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0  # never `not_found`: expiry is its "never"
    valid_before = chain.w3.eth.get_block("latest")["timestamp"] + 100
    claim = authorization_claim(valid_before=valid_before)
    mine_at(chain, valid_before - 1)
    mine_at(chain, valid_before)  # the head is at validBefore, the block two deep one second before
    with pytest.raises(VerificationPending):
        support.decided(claim)
    claim.refresh_from_db()
    assert claim.status == ResponseStatus.PENDING and claim.transaction_hash == ""

    chain.mine(1)  # now the block two deep is at validBefore: the token can never accept it
    assert support.decided(claim) == (ResponseStatus.REJECTED, "authorization_expired")
    tx = support.relay(chain, claim)
    assert chain.revert_reason(tx) == "FiatTokenV2: authorization is expired"


def test_a_use_mined_after_the_close_is_rejected_late_and_its_payment_is_the_payers(chain, authorization_claim):
    claim = authorization_claim()
    wait_for_wall_clock_past_head(chain)
    challenge_close(challenge=claim.challenge)
    closed_at = Challenge.objects.get(pk=claim.challenge_id).closed_at
    assert closed_at is not None
    chain.w3.provider.make_request("evm_setNextBlockTimestamp", [int(closed_at.timestamp()) + 1])
    tx = support.relay(chain, claim)  # the relayer (or anyone) held it back past the close
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.REJECTED, "late")
    claim.refresh_from_db()
    assert claim.transaction_hash == tx and claim.block_number is None
    assert Challenge.objects.get(pk=claim.challenge_id).staked_sum == 0
    # The USDC stayed in the treasury: the ledger holds it, linked to its payer's claim.
    assert Payment.objects.get(transaction_hash=tx).response_id == claim.pk


@pytest.mark.parametrize("where", ["before the anchor's block", "in the anchor's block"])
def test_a_use_before_or_in_the_anchors_block_is_rejected_early(chain, make_challenge, authorization_claim, where):
    """The challenge is published and its anchor queued (its id is public) when the authorization
    is used: in a block before the anchor's, or in the anchor's own block (a stake counts only in a
    later block: docs/protocol.md section 6)."""
    challenge = make_challenge(anchored=False)
    claim = authorization_claim(challenge=challenge)
    if where == "before the anchor's block":
        tx = support.relay(chain, claim)
        anchor = anchor_on_chain(chain, challenge)
    else:
        chain.w3.provider.make_request("evm_setAutomine", [False])
        try:
            tx = support.send_unmined(chain, claim, sender=chain.deployer, gas_price_gwei=50)
            with pytest.raises(AnchorPending):
                anchor_advance(challenge_id=challenge.pk)  # the worker sends the anchor
        finally:
            mine_pending(chain)  # both in one block
        anchor = _confirmed_anchor(chain, challenge)
    used_in = chain.w3.eth.get_transaction_receipt(tx)["blockNumber"]
    assert used_in < anchor.block_number if where.startswith("before") else used_in == anchor.block_number
    assert support.decided(claim) == (ResponseStatus.REJECTED, "early")
    assert Challenge.objects.get(pk=challenge.pk).response_count == 0


def _confirmed_anchor(chain, challenge) -> ChallengeAnchor:
    for _ in range(8):
        chain.mine(1)
        try:
            if anchor_advance(challenge_id=challenge.pk) == "confirmed":
                return ChallengeAnchor.objects.get(challenge=challenge)
        except AnchorPending:
            continue
    raise AssertionError("the anchor never got deep enough")


def test_two_authorizations_used_in_one_transaction_confirm_both_at_their_own_transfers_in_chain_order(
    chain, authorization_claim, third
):
    first = authorization_claim(stake="2.5")
    second = authorization_claim(stake="4", payer=third, text="30.1, 31.2")
    tx = support.batch_relay(chain, first, second)
    logs = chain.w3.eth.get_transaction_receipt(tx)["logs"]
    chain.mine(1)

    assert support.decided(second) == (ResponseStatus.CONFIRMED, "")
    assert support.decided(first) == (ResponseStatus.CONFIRMED, "")
    (tx_a, block_a, log_a), (tx_b, block_b, log_b) = support.confirmed_at(first), support.confirmed_at(second)
    assert tx_a == tx_b == tx and block_a == block_b
    # Each at the Transfer right after its own AuthorizationUsed; the first submitted is first in chain order.
    assert (log_a, log_b) == (logs[1]["logIndex"], logs[3]["logIndex"])
    assert log_a is not None and log_b is not None and log_a < log_b
    challenge = Challenge.objects.get(pk=first.challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("6.5"), 2)
    rows = Payment.objects.filter(transaction_hash=tx).order_by("log_index")
    assert [(p.log_index, p.response_id, p.challenge_id_word) for p in rows] == [
        (log_a, first.pk, None),  # the batcher's calldata names no challenge
        (log_b, second.pk, None),
    ]
    assert Response.objects.filter(transaction_hash=tx, status=ResponseStatus.CONFIRMED).count() == 2
