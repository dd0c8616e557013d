"""The stranger who wants the money, against a stake paid by a signed authorization (docs/protocol.md
3.2 and 2a): on anvil, with the real token (contracts/TestUSDC.sol, FiatToken v2's EIP-3009).

A relayed authorization sits in the mempool where anyone can copy it. Submitting it first only pays
the payer's stake for them: the payer's guess is what counts, once. Submitting it twice moves the
money once. A claim paid by transfer that names the relayed transaction, whatever its guess, is
never confirmed by it and never takes the stake from the payer's claim."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chain.authorization import RELAYED_STAKE_LENGTH
from chain.indexer import payments_index
from chain.models import Payment
from chain.selectors import payments_unclaimed
from challenges.models import Challenge
from responses.models import Response, ResponseStatus

from . import authorization_support as support
from .conftest import post_claim
from .verifier_support import mine_pending

pytestmark = [pytest.mark.django_db, pytest.mark.integration]
authorization_claim = support.authorization_claim


def counted(challenge_id: int) -> tuple[Decimal, int]:
    challenge = Challenge.objects.get(pk=challenge_id)
    return challenge.staked_sum, challenge.response_count


def test_a_stranger_who_front_runs_the_relayer_pays_the_payers_stake_for_the_payers_guess(chain, authorization_claim):
    claim = authorization_claim()
    payer_before = chain.balance(chain.player)
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        relayer_tx = support.send_unmined(chain, claim, sender=chain.deployer, gas_price_gwei=2)
        # The stranger reads the relayer's call in the mempool and sends a copy with a higher tip.
        copied = "0x" + bytes(chain.w3.eth.get_transaction(relayer_tx)["input"]).hex()
        assert len(bytes.fromhex(copied[2:])) == RELAYED_STAKE_LENGTH
        stranger_tx = support.send_unmined(chain, claim, sender=chain.other, gas_price_gwei=20, data=copied)
    finally:
        mine_pending(chain)
    stranger, relayer = (chain.w3.eth.get_transaction_receipt(h) for h in (stranger_tx, relayer_tx))
    assert (
        stranger["blockNumber"] == relayer["blockNumber"] and stranger["transactionIndex"] < relayer["transactionIndex"]
    )
    assert (stranger["status"], relayer["status"]) == (1, 0)  # the second use of one authorization reverts
    chain.mine(1)

    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    assert support.confirmed_at(claim)[0] == stranger_tx  # whoever sent it, the payer's stake
    claim.refresh_from_db()
    assert claim.submitter_address == chain.player and claim.status == ResponseStatus.CONFIRMED
    assert counted(claim.challenge_id) == (Decimal("2.5"), 1)
    assert payer_before - chain.balance(chain.player) == 2_500_000  # the money moved once


def test_the_same_authorization_submitted_twice_moves_the_money_once_and_counts_once(chain, authorization_claim):
    claim = authorization_claim()
    first = support.relay(chain, claim)
    again = support.relay(chain, claim, sender=chain.other)
    assert (support.status_of(chain, first), support.status_of(chain, again)) == (1, 0)
    assert chain.revert_reason(again) == "FiatTokenV2: authorization is used or canceled"
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    assert support.confirmed_at(claim)[0] == first
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")  # verified again: nothing moves
    assert counted(claim.challenge_id) == (Decimal("2.5"), 1)
    assert chain.balance(chain.treasury) == 2_500_000


def test_a_transfer_claim_naming_the_relayed_transaction_never_confirms_nor_uncounts_the_payers(
    chain, authorization_claim, draft, settings
):
    """The stranger names the relayer as the sender (any other address is refused at the POST:
    wrong_sender) and a guess of their own; the relayed call is no transfer, so it can never confirm
    that claim, before or after the payer's claim is confirmed."""
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1
    claim = authorization_claim()
    tx = support.relay(chain, claim)
    chain.mine(1)
    strangers = draft(address=chain.deployer, text="10, 10")
    squat = post_claim(strangers, tx)  # stored: the POST's read cannot tell it is not the payer's
    assert squat.status == ResponseStatus.PENDING

    assert support.decided(squat) == (ResponseStatus.REJECTED, "unsupported_transaction")
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    assert support.decided(squat) == (ResponseStatus.REJECTED, "unsupported_transaction")
    assert counted(claim.challenge_id) == (Decimal("2.5"), 1)
    payments_index()
    payment = Payment.objects.get(transaction_hash=tx)
    assert payment.response_id == claim.pk
    assert not payments_unclaimed().exists()
    assert Response.objects.filter(status=ResponseStatus.CONFIRMED).get().pk == claim.pk
