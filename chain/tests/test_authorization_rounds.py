"""Claims paid by authorization through the beat's tasks, on anvil: the head watcher's round (one
batched round per block, its RPC requests counted), the reorg re-check (a use whose block left the
chain, submitted again, confirms in its new transaction; one that never returns ends `reorged`, and
is re-opened when its use turns up later) and the sweeper."""

from __future__ import annotations

import math
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.authorization_verification import authorization_log_filter
from chain.client import get_client
from chain.heads import pending_claims_on_head
from chain.indexer import payments_index
from chain.models import Payment
from chain.reorgs import confirmed_recheck
from chain.sweeper import stale_pending_claims
from chain.verification import VerificationPending
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


@pytest.mark.parametrize("claims", [1, 200])
def test_the_head_watcher_confirms_authorization_claims_in_the_round_of_the_deep_enough_block(
    chain, authorization_claim, settings, claims
):
    """RPC requests per block with N claims paid by authorization (docs/chain.md, "RPC requests per
    block (counted by `ChainClient.http_requests`)"): one eth_getLogs each and the expiry's block
    ride in the first batches; the receipts, transactions and blocks of the uses deep enough in the
    second."""
    settings.CHAIN_RPC_BATCH_SIZE = 100
    posted = [authorization_claim(text=f"{10 + i / 1000:.3f}, 31", stake=f"{1 + i % 7}.5") for i in range(claims)]
    searched = 1 + math.ceil((claims + 1) / 100)

    waiting = pending_claims_on_head(client=get_client(), last_head=None)  # nothing used yet
    assert waiting is not None and (waiting.claims, waiting.decided) == (claims, 0)
    assert waiting.http_requests == searched

    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        nonce = chain.w3.eth.get_transaction_count(chain.deployer)
        hashes = [
            support.send_unmined(chain, claim, sender=chain.deployer, gas_price_gwei=2, nonce=nonce + i)
            for i, claim in enumerate(posted)
        ]
    finally:
        mine_pending(chain)
    assert {chain.w3.eth.get_transaction_receipt(h)["status"] for h in hashes} == {1}

    used = pending_claims_on_head(client=get_client(), last_head=waiting.head)  # one confirmation of two
    assert used is not None and used.decided == 0 and used.http_requests == searched
    assert sorted(Response.objects.values_list("transaction_hash", flat=True)) == sorted(hashes)

    chain.mine(1)
    deep = pending_claims_on_head(client=get_client(), last_head=used.head)
    assert deep is not None and deep.decided == claims
    assert deep.http_requests == searched + math.ceil((2 * claims + 1) / 100)
    assert Response.objects.filter(status=ResponseStatus.CONFIRMED).count() == claims
    assert counted(posted[0].challenge_id) == (sum(Decimal(c.submission_stake) for c in posted), claims)
    print(
        f"\nhead watcher, {claims} pending claims paid by authorization: {waiting.http_requests} RPC requests "
        f"for a block with none used, {used.http_requests} for the block that holds the uses, "
        f"{deep.http_requests} for the block that confirms all"
    )


def test_a_transfer_and_an_authorization_in_one_block_are_decided_in_the_same_batched_round(
    chain, authorization_claim, draft
):
    by_transfer = draft(stake="3", address=chain.other, text="5, 5")
    by_authorization = authorization_claim()
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        paid = chain.w3.eth.send_transaction(
            {"from": chain.other, "to": chain.usdc, "data": chain.stake_calldata(by_transfer), "gas": 200_000}
        )
        used = support.send_unmined(chain, by_authorization, sender=chain.deployer, gas_price_gwei=2)
    finally:
        mine_pending(chain)
    transfer_claim = post_claim(by_transfer, "0x" + bytes(paid).hex())

    # One eth_blockNumber; one batch: the transfer's receipt, the authorization's logs, the expiry's block.
    first = pending_claims_on_head(client=get_client(), last_head=None)
    assert first is not None and (first.claims, first.decided, first.http_requests) == (2, 0, 2)
    chain.mine(1)
    # Then one more batch: the block they share, both transactions, the use's receipt.
    second = pending_claims_on_head(client=get_client(), last_head=first.head)
    assert second is not None and (second.decided, second.http_requests) == (2, 3)
    assert support.confirmed_at(by_authorization)[0] == used
    transfer_claim.refresh_from_db()
    assert transfer_claim.status == ResponseStatus.CONFIRMED
    assert counted(transfer_claim.challenge_id) == (Decimal("5.5"), 2)


def test_a_use_whose_block_left_the_chain_goes_pending_and_a_new_use_confirms_it_in_its_new_transaction(
    chain, authorization_claim
):
    claim = authorization_claim()
    before = chain.snapshot()
    reorged_from = chain.w3.eth.block_number + 1
    first = support.relay(chain, claim)
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")

    chain.revert(before)  # the use's block leaves the chain
    chain.mine(3)
    assert confirmed_recheck() == [claim.pk]
    claim.refresh_from_db()
    assert claim.status == ResponseStatus.PENDING and claim.reorged_at is not None
    assert counted(claim.challenge_id) == (Decimal("0"), 0)
    assert authorization_log_filter(claim, to_block=chain.w3.eth.block_number)["fromBlock"] < reorged_from
    with pytest.raises(VerificationPending):
        support.decided(claim)  # still valid: anyone may use it again

    again = support.relay(chain, claim, sender=chain.other)  # the relayer, or anyone, submits it again
    assert again != first
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    assert support.confirmed_at(claim)[0] == again
    assert counted(claim.challenge_id) == (Decimal("2.5"), 1)
    assert Payment.objects.get(transaction_hash=again).response_id == claim.pk
    assert confirmed_recheck() == []


def test_a_use_that_never_returns_ends_reorged_and_a_later_use_reopens_it(chain, authorization_claim, settings):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1
    claim = authorization_claim()
    before = chain.snapshot()
    support.relay(chain, claim)
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    chain.revert(before)
    chain.mine(3)
    assert confirmed_recheck() == [claim.pk]
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 0
    assert support.decided(claim) == (ResponseStatus.REJECTED, "reorged")

    late = support.relay(chain, claim)  # still valid: used again after the deadline
    chain.mine(1)
    result = payments_index()
    assert result is not None and result.pending_claims == [claim.pk]  # re-opened by the ledger
    claim.refresh_from_db()
    assert claim.status == ResponseStatus.PENDING and claim.reopened_at is not None
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    assert support.confirmed_at(claim)[0] == late
    assert counted(claim.challenge_id) == (Decimal("2.5"), 1)


def test_the_sweeper_queues_a_stale_authorization_claim_and_its_check_decides_it(chain, authorization_claim, settings):
    settings.CHAIN_SWEEP_STALE_SECONDS = 60
    claim = authorization_claim()
    support.relay(chain, claim)
    chain.mine(1)
    Response.objects.filter(pk=claim.pk).update(updated_at=timezone.now() - timedelta(minutes=10))
    assert stale_pending_claims() == [claim.pk]
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")  # what the queued task runs
