"""What the relayer's watcher (chain/relayer/watch.py) does with what was sent, on anvil with blocks
mined only when the test says: a stake stuck in the pool is sent again under its nonce with higher
fees and mined once; one no longer worth sending (its challenge closed, its authorization about to
expire) is replaced by a nonce filler and moves nothing; a transaction the node forgot is sent again
as it was, also after a reorg took it away before it was deep enough; a step of the game someone
else took first is not_needed. The nonces stay gap-free."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from web3.exceptions import TransactionNotFound

from chain.models import PotCall, PotCallStatus, RelayTransaction, RelayTxKind, RelayTxStatus
from chain.pot import abi
from chain.relayer.sender import relay_send
from chain.relayer.watch import relay_watch
from responses.models import Stake

from ..pot_support import follow, post, relay, send_as, settle, sign_stake
from ..relay_support import Mining, assert_gap_free, relay_status

pytestmark = pytest.mark.integration


def posted(chain, challenge, api, **kwargs):
    signed = sign_stake(chain, challenge, **kwargs)
    assert post(api, challenge, signed).status_code == 201
    return signed


def test_a_stuck_stake_is_sent_again_with_higher_fees_and_mined_once(chain, make_challenge, api, settings):
    challenge = make_challenge()
    signed = posted(chain, challenge, api)
    with Mining(chain) as mining:
        assert relay_send().sent == 1
        first = RelayTransaction.objects.get()
        assert relay_watch().resent == 0  # in the pool, not due yet (RELAY_RESEND_SECONDS)
        settings.RELAY_RESEND_SECONDS = 0  # the time passes without a block
        assert relay_watch().resent == 1
        row = RelayTransaction.objects.get()
        assert row.nonce == first.nonce and len(row.attempts) == 2 and row.transaction_hash != first.transaction_hash
        assert row.max_fee_per_gas >= first.max_fee_per_gas * 125 / 100
        assert row.max_priority_fee_per_gas >= first.max_priority_fee_per_gas * 125 / 100
        assert mining.pool() == 1  # the replacement took the first one's place
        settings.RELAY_RESEND_SECONDS = 60
        mining.mine()
    assert relay_watch().shallow == 1  # mined one block deep: watched until CHAIN_CONFIRMATIONS (2)
    assert RelayTransaction.objects.get().status == RelayTxStatus.SENT
    chain.mine(1)
    assert relay_watch().mined == 1
    row.refresh_from_db()
    assert row.status == RelayTxStatus.MINED and row.kind == RelayTxKind.CALL
    with pytest.raises(TransactionNotFound):
        chain.w3.eth.get_transaction(first.transaction_hash)  # replaced: never mined
    chain.mine(1)
    follow()
    assert Stake.objects.filter(challenge=challenge).count() == 1
    assert relay_status(signed) == ("sent", "")
    assert PotCall.objects.get().transaction_hash == row.transaction_hash
    assert_gap_free(chain)


def test_a_stuck_stake_about_to_expire_is_replaced_by_a_filler_when_due(chain, make_challenge, api, settings):
    challenge = make_challenge()
    expiring = posted(chain, challenge, api, valid_before=int(timezone.now().timestamp()) + 200)
    balance = chain.balance(expiring.payer)
    with Mining(chain) as mining:
        assert relay_send().sent == 1
        settings.RELAY_MIN_REMAINING_SECONDS = 300  # the time passes: it expires within the margin
        assert relay_watch().fillers == 0  # not due yet
        settings.RELAY_RESEND_SECONDS = 0
        assert relay_watch().fillers == 1
        row = RelayTransaction.objects.get()
        assert row.kind == RelayTxKind.FILLER and len(row.attempts) == 2 and mining.pool() == 1
        settings.RELAY_RESEND_SECONDS = 60
        mining.mine()
    chain.mine(1)
    relay_watch()
    row.refresh_from_db()
    assert (row.status, row.kind) == (RelayTxStatus.MINED, RelayTxKind.FILLER)
    assert relay_status(expiring) == ("failed", "expired")
    assert chain.balance(expiring.payer) == balance and not Stake.objects.exists()
    assert_gap_free(chain)


def test_a_stuck_stake_whose_challenge_closed_is_replaced_by_a_filler_at_once(chain, make_challenge, api):
    """Dropped from the node's pool while the challenge closes: sent again as it was it would only
    revert after the close, so a filler takes its nonce instead, without waiting RELAY_RESEND_SECONDS."""
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    signed = posted(chain, challenge, api)
    balance = chain.balance(signed.payer)
    with Mining(chain) as mining:
        assert relay_send().sent == 1
        row = RelayTransaction.objects.get()
        chain.rpc("anvil_dropTransaction", [row.transaction_hash])
        chain.rpc("evm_increaseTime", [3_600])
        mining.mine()  # the close, without the stake
        follow()
        watched = relay_watch()
        assert (watched.fillers, watched.rebroadcast) == (1, 0)
        mining.mine()
    chain.mine(1)
    relay_watch()
    row.refresh_from_db()
    assert (row.status, row.kind, row.replaced_because) == (RelayTxStatus.MINED, RelayTxKind.FILLER, "closed")
    assert relay_status(signed) == ("failed", "closed")
    assert chain.balance(signed.payer) == balance and not Stake.objects.exists()
    assert_gap_free(chain)


def test_a_transaction_the_node_forgot_is_sent_again_as_it_was(chain, make_challenge, api):
    challenge = make_challenge()
    signed = posted(chain, challenge, api)
    with Mining(chain) as mining:
        relay_send()
        row = RelayTransaction.objects.get()
        chain.rpc("anvil_dropTransaction", [row.transaction_hash])
        assert mining.pool() == 0
        assert relay_watch().rebroadcast == 1
        assert mining.pool() == 1
        assert chain.w3.eth.get_transaction(row.transaction_hash)["nonce"] == row.nonce  # the same bytes
        mining.mine()
    chain.mine(1)
    assert relay_watch().mined == 1
    follow()
    assert Stake.objects.filter(challenge=challenge).count() == 1 and relay_status(signed) == ("sent", "")
    assert_gap_free(chain)


def test_a_step_someone_else_took_first_is_not_needed(chain, make_challenge, api):
    """finalize is anyone's to call: a stranger calls it before the worker's call is sent."""
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    chain.warp(3_600 + 60)
    settle(chain)
    chain.warp(86_400 + 60)
    follow()  # the worker queues finalize
    call = PotCall.objects.get(challenge=challenge, kind="finalize")
    stranger = chain.players[5][1]
    assert send_as(chain, stranger, to=chain.pot, data=abi.finalize_data(challenge_id=challenge.pk))["status"] == 1
    relay()
    call.refresh_from_db()
    assert (call.status, call.code) == (PotCallStatus.NOT_NEEDED, "already_finalized")
    assert not RelayTransaction.objects.filter(call=call).exists()


def test_a_stake_a_reorg_took_away_before_it_was_deep_is_sent_again(chain, make_challenge, api):
    """Mined, then gone in a reorg with no node keeping it in its pool: the watcher still follows it
    (it was not CHAIN_CONFIRMATIONS deep), finds the node has forgotten it and sends the same bytes
    again, so the stake reaches the pot once without the player having to do anything."""
    challenge = make_challenge()
    signed = posted(chain, challenge, api)
    fork = chain.snapshot()  # a branch without the stake
    assert relay_send().sent == 1  # anvil mines it at once
    row = RelayTransaction.objects.get()
    assert relay_watch().shallow == 1
    chain.revert(fork)  # the block leaves the chain, and the transaction with it
    with pytest.raises(TransactionNotFound):
        chain.w3.eth.get_transaction(row.transaction_hash)
    assert relay_watch().rebroadcast == 1  # anvil mines it again at once, in the new branch
    chain.mine(1)
    assert relay_watch().mined == 1
    row.refresh_from_db()
    assert row.status == RelayTxStatus.MINED and len(row.attempts) == 1  # the same transaction
    follow()
    assert Stake.objects.filter(challenge=challenge).count() == 1
    assert Stake.objects.get().transaction_hash == row.transaction_hash
    assert relay_status(signed) == ("sent", "")
    assert_gap_free(chain)
