"""The ledger on a real EVM: the indexer records every USDC transfer to the treasury (claimed or
not) in bounded ranges, a later claim confirms an unclaimed payment, and reorgs (anvil's
snapshot/revert) take confirmed claims and ledger rows back."""

from decimal import Decimal

import pytest

from chain.indexer import INDEX_CURSOR, payments_index
from chain.models import ChainCursor, Payment
from chain.reorgs import confirmed_recheck
from chain.selectors import payments_unclaimed
from chain.sweeper import stale_pending_claims
from chain.verification import Outcome, VerificationPending, payment_verify
from challenges.models import Challenge
from responses.models import Response, ResponseStatus

from .conftest import ANVIL_CHAIN_ID, post_claim

pytestmark = pytest.mark.django_db


def start_index_here(chain, settings):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1


def fixed_stake_tx(chain, d, nonce):
    """A stake transaction with every field fixed, so sending it again after a reorg gives the
    very same hash (anvil signs deterministically)."""
    return {
        "from": d.address,
        "to": chain.usdc,
        "data": chain.stake_calldata(d),
        "value": 0,
        "gas": 200_000,
        "maxFeePerGas": 50 * 10**9,
        "maxPriorityFeePerGas": 10**9,
        "nonce": nonce,
        "chainId": ANVIL_CHAIN_ID,
        "type": 2,
    }


def test_a_payment_with_no_claim_is_unclaimed_until_its_claim_is_posted(chain, draft, settings):
    start_index_here(chain, settings)
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    result = payments_index()
    assert result is not None and result.recorded == 1 and result.pending_claims == []
    [payment] = payments_unclaimed()
    assert payment.transaction_hash == tx
    assert (payment.from_address, payment.to_address, payment.amount_units) == (chain.player, chain.treasury, 2_500_000)
    assert payment.commitment == d.commitment and payment.challenge_id_word == d.challenge.pk
    assert payment.block_timestamp is not None

    response = post_claim(d, tx)  # the player's POST arrives late
    assert not payments_unclaimed().exists()
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    payment.refresh_from_db()
    assert payment.response_id == response.pk
    assert Payment.objects.count() == 1  # the confirmation found the indexed row, no duplicate
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("2.5")


def test_the_indexer_names_pending_claims_for_verification(chain, draft, settings):
    start_index_here(chain, settings)
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    response = post_claim(d, tx)
    result = payments_index()
    assert result is not None and result.pending_claims == [response.pk]
    assert Payment.objects.get().response_id == response.pk
    # Read again by the next run (the last CHAIN_REORG_DEPTH_BLOCKS blocks are), it is not named again:
    # the head watcher re-checks every pending claim at each block.
    again = payments_index()
    assert again is not None and again.from_block <= int(Payment.objects.get().block_number)
    assert again.pending_claims == []


def test_the_indexer_ignores_other_tokens_and_recipients(chain, draft, settings):
    start_index_here(chain, settings)
    d = draft()
    chain.pay(chain.stake_calldata(d), to=chain.other_token)  # another token to the treasury
    chain.pay(chain.stake_calldata(d, treasury=chain.other))  # USDC to someone else
    chain.pay(chain.stake_calldata(d))  # the one that counts
    payments_index()
    assert Payment.objects.count() == 1


def test_the_indexer_reads_bounded_ranges_from_its_cursor(chain, draft, settings):
    start_index_here(chain, settings)
    settings.CHAIN_INDEX_MAX_BLOCKS = 3
    settings.CHAIN_REORG_DEPTH_BLOCKS = 2
    first = chain.w3.eth.block_number + 1
    hashes = []
    for _ in range(4):
        d = draft()
        hashes.append(chain.pay(chain.stake_calldata(d)))
        chain.mine(2)
    head = chain.w3.eth.block_number
    ranges = []
    while True:
        result = payments_index()
        assert result is not None
        ranges.append((result.from_block, result.to_block))
        assert result.to_block - result.from_block <= 3 + 2
        if result.to_block == head:
            break
        assert len(ranges) < 20
    assert ranges[0][0] == first
    assert ChainCursor.objects.get(name=INDEX_CURSOR).block_number == head
    assert sorted(Payment.objects.values_list("transaction_hash", flat=True)) == sorted(hashes)


def test_a_reorg_marks_the_ledger_row_removed(chain, draft, settings):
    start_index_here(chain, settings)
    snapshot = chain.snapshot()
    d = draft()
    chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    payments_index()
    assert Payment.objects.filter(removed=False).count() == 1
    chain.revert(snapshot)
    chain.mine(4)
    result = payments_index()
    assert result is not None and result.removed == 1
    assert not payments_unclaimed().exists()


def test_a_reorged_claim_goes_pending_and_ends_reorged_when_its_transaction_never_returns(chain, draft, settings):
    d = draft()
    snapshot = chain.snapshot()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("2.5")

    chain.revert(snapshot)  # the block with the payment leaves the chain
    chain.mine(4)
    assert confirmed_recheck() == [response.pk]
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING and response.reorged_at is not None
    assert response.block_number is None
    challenge = Challenge.objects.get(pk=d.challenge.pk)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("0"), 0)
    assert confirmed_recheck() == []  # once only

    with pytest.raises(VerificationPending):
        payment_verify(response_id=response.pk)  # still inside CHAIN_REORG_TIMEOUT_SECONDS
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 0
    outcome = payment_verify(response_id=response.pk)
    assert outcome == Outcome(status=ResponseStatus.REJECTED, code="reorged", changed=True)
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("0")


def test_a_reorged_claim_whose_transaction_returns_is_confirmed_again_once(chain, draft):
    d = draft()
    nonce = chain.w3.eth.get_transaction_count(d.address)
    snapshot = chain.snapshot()
    tx = chain.send(fixed_stake_tx(chain, d, nonce))
    chain.mine(1)
    response = post_claim(d, tx)
    payment_verify(response_id=response.pk)
    response.refresh_from_db()
    old_block_hash = response.block_hash

    chain.revert(snapshot)
    chain.mine(3)  # a longer chain without the payment
    assert confirmed_recheck() == [response.pk]
    assert chain.send(fixed_stake_tx(chain, d, nonce)) == tx  # the transaction returns in a new block
    chain.mine(1)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    response.refresh_from_db()
    assert response.block_hash != old_block_hash and response.reorged_at is None
    challenge = Challenge.objects.get(pk=d.challenge.pk)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)
    assert Payment.objects.filter(transaction_hash=tx, removed=False).get().block_hash == response.block_hash


def test_the_sweeper_picks_only_stale_pending_claims(chain, draft, settings):
    from datetime import timedelta

    from django.utils import timezone

    settings.CHAIN_SWEEP_STALE_SECONDS = 60
    old = post_claim(draft(), "0x" + "01" * 32)
    fresh = post_claim(draft(), "0x" + "02" * 32)
    done = post_claim(draft(), "0x" + "03" * 32)
    long_ago = timezone.now() - timedelta(minutes=10)
    Response.objects.filter(pk__in=[old.pk, done.pk]).update(updated_at=long_ago)
    Response.objects.filter(pk=done.pk).update(status=ResponseStatus.REJECTED)
    assert stale_pending_claims() == [old.pk]
    assert fresh.pk not in stale_pending_claims()
    assert stale_pending_claims() == []  # touched: not queued again by the next sweep


def test_the_reorg_recheck_leaves_the_demo_claims_alone(chain):
    """seed_demo's claims are confirmed with made-up blocks (docs/decisions.md, "Demo data"); on a young chain
    (anvil, `make run`) those blocks are in the re-checked window and missing, which must not move
    them back to pending and empty the resolved demo challenges."""
    from responses.demo import seed_demo

    seed_demo()
    confirmed = Response.objects.filter(status=ResponseStatus.CONFIRMED).count()
    assert confirmed > 0
    assert confirmed_recheck() == []
    assert Response.objects.filter(status=ResponseStatus.CONFIRMED).count() == confirmed


def test_a_confirmation_and_a_reorg_make_the_cached_public_answers_stale(
    chain, draft, django_capture_on_commit_callbacks
):
    """The sums move with QuerySet.update(): without marking the public answers stale the Active
    Challenge's total bids stayed stale in the public cache for PUBLIC_CACHE_SECONDS."""
    from config.public_cache import public_answer

    builds = []

    def answer():
        builds.append(1)
        return {"build": len(builds)}

    def probe():
        public_answer("probe", answer)
        return len(builds)

    d = draft()
    assert probe() == probe() == 1  # cached
    snapshot = chain.snapshot()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)  # a pending claim changes no public answer
    assert probe() == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    assert probe() == 2

    chain.revert(snapshot)
    chain.mine(4)
    with django_capture_on_commit_callbacks(execute=True):
        assert confirmed_recheck() == [response.pk]
    assert probe() == 3


def test_a_real_claim_on_a_demo_challenge_is_rechecked_for_reorgs(chain, draft, make_challenge):
    """`make run`'s active challenge is a demo challenge, but what players stake on it is real:
    only the claims seed_demo made are skipped (Response.is_demo), not every claim of a demo challenge."""
    d = draft(challenge=make_challenge(is_demo=True))
    snapshot = chain.snapshot()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    response.refresh_from_db()
    assert response.is_demo is False

    chain.revert(snapshot)
    chain.mine(4)
    assert confirmed_recheck() == [response.pk]
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING


def test_two_payments_in_one_block_keep_their_own_transaction_indexes(chain, draft, settings):
    # Anvil mines one transaction per block unless told otherwise; a real block holds many, and the
    # chain order of equal blocks is the transaction index (docs/protocol.md section 4).
    start_index_here(chain, settings)
    first, second = draft(), draft(stake="3.5")
    w3 = chain.w3
    nonce = w3.eth.get_transaction_count(chain.player, "pending")
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        hashes = [
            "0x"
            + bytes(
                w3.eth.send_transaction(
                    {
                        "from": chain.player,
                        "to": chain.usdc,
                        "data": chain.stake_calldata(d),
                        "gas": 200_000,
                        "nonce": nonce + i,
                    }
                )
            ).hex()
            for i, d in enumerate((first, second))
        ]
        chain.mine(1)
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    receipts = [w3.eth.get_transaction_receipt(h) for h in hashes]
    assert receipts[0]["blockNumber"] == receipts[1]["blockNumber"]

    result = payments_index()
    assert result is not None and result.recorded == 2
    indexes = dict(Payment.objects.values_list("transaction_hash", "transaction_index"))
    assert indexes == {hashes[0]: 0, hashes[1]: 1}


def test_the_first_index_run_without_a_start_block_reads_the_recent_blocks(chain, draft, settings):
    # A new deployment with no CHAIN_INDEX_START_BLOCK and no cursor yet starts
    # CHAIN_REORG_DEPTH_BLOCKS below the head: a payment mined just before is recorded.
    settings.CHAIN_INDEX_START_BLOCK = 0
    assert not ChainCursor.objects.filter(name=INDEX_CURSOR).exists()
    tx = chain.pay(chain.stake_calldata(draft()))
    chain.mine(1)
    payments_index()
    assert Payment.objects.filter(transaction_hash=tx).exists()
    assert ChainCursor.objects.get(name=INDEX_CURSOR).block_number >= chain.w3.eth.block_number - 1
