"""A node that lags, or a fail-over to one, is no verdict (docs/chain.md, "A node that lags").

Built for real in front of the session anvil (chain/tests/node_support.py, node_behind): a node
whose chain stops some blocks below the real head, and a node that answers the head but fails one
method, so that the client fails over to the lagging one for that call. What such a node does not
have yet is not gone: the reorg re-check must not unconfirm a claim, the head watcher and a single
check must not reject a claim `not_found`, and the indexer must not mark a payment removed."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.client import ChainClient, get_client
from chain.heads import pending_claims_on_head
from chain.heights import HIGHEST_HEAD
from chain.indexer import payments_index
from chain.models import ChainCursor, Payment
from chain.reorgs import confirmed_recheck
from chain.verification import VerificationPending, payment_verify
from challenges.models import Challenge
from responses.models import Response, ResponseStatus

from .conftest import post_claim
from .node_support import node_behind

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def _client(*urls: str) -> ChainClient:
    return ChainClient(list(urls), timeout=5)


def _confirmed(chain, draft) -> Response:
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    response.refresh_from_db()
    return response


def _still_counted(response: Response) -> None:
    response.refresh_from_db()
    assert response.status == ResponseStatus.CONFIRMED and response.reorged_at is None
    challenge = Challenge.objects.get(pk=response.challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)


# --- The reorg re-check --------------------------------------------------------------------------


def test_a_node_behind_the_claims_block_does_not_unconfirm_it(chain, draft):
    response = _confirmed(chain, draft)
    assert response.block_number is not None
    with node_behind(chain.url, head=response.block_number - 1) as behind:
        assert confirmed_recheck(client=_client(behind.url)) == []
        assert "eth_blockNumber" in behind.calls
    _still_counted(response)


def test_a_fail_over_to_a_lagging_node_in_the_middle_of_the_recheck_does_not_unconfirm(chain, draft):
    """The first node answers the head and fails the block read; the client asks the second node,
    which has not reached the claim's block. A head from one node and a missing block from another
    are no reorg."""
    response = _confirmed(chain, draft)
    assert response.block_number is not None
    with (
        node_behind(chain.url, refuse=("eth_getBlockByNumber",)) as flaky,
        node_behind(chain.url, head=response.block_number - 1) as behind,
    ):
        assert confirmed_recheck(client=_client(flaky.url, behind.url)) == []
        assert "eth_getBlockByNumber" in flaky.calls
    _still_counted(response)


def test_a_real_reorg_is_still_seen_after_a_fail_over(chain, draft):
    snapshot = chain.snapshot()
    response = _confirmed(chain, draft)
    chain.revert(snapshot)  # the block with the payment leaves the chain
    chain.mine(4)
    with node_behind(chain.url, refuse=("eth_getBlockByNumber",)) as flaky:
        assert confirmed_recheck(client=_client(flaky.url, chain.url)) == [response.pk]
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING and response.reorged_at is not None


# --- Verification: a lagging node's "unknown" is not `not_found` ---------------------------------


def _pending_mined_once(chain, draft, settings) -> Response:
    """A claim whose payment is mined (one confirmation of two) and whose not-found deadline has
    passed; the head watcher saw the real head once (it does, every beat)."""
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0
    d = draft()
    response = post_claim(d, chain.pay(chain.stake_calldata(d)))
    seen = pending_claims_on_head(client=get_client(), last_head=None)
    assert seen is not None and seen.decided == 0
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING
    return response


def _mined_at(chain, response: Response) -> int:
    return chain.w3.eth.get_transaction_receipt(response.transaction_hash)["blockNumber"]


@pytest.mark.parametrize("fail_over", [False, True])
def test_the_head_watcher_on_a_lagging_node_rejects_nothing_as_not_found(chain, draft, settings, fail_over):
    response = _pending_mined_once(chain, draft, settings)
    head = chain.w3.eth.block_number
    with (
        node_behind(chain.url, refuse=("eth_getTransactionReceipt",)) as flaky,
        node_behind(chain.url, head=_mined_at(chain, response) - 1) as behind,
    ):
        client = _client(flaky.url, behind.url) if fail_over else _client(behind.url)
        round_ = pending_claims_on_head(client=client, last_head=head if not fail_over else None)
        assert round_ is not None and round_.claims == 1 and round_.decided == 0
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING, response.rejection_code

    chain.mine(1)  # deep enough, on the real node
    done = pending_claims_on_head(client=get_client(), last_head=head)
    assert done is not None and done.decided == 1
    response.refresh_from_db()
    assert response.status == ResponseStatus.CONFIRMED


@pytest.mark.parametrize("fail_over", [False, True])
def test_a_single_check_on_a_lagging_node_rejects_nothing_as_not_found(chain, draft, settings, fail_over):
    response = _pending_mined_once(chain, draft, settings)
    with (
        node_behind(chain.url, refuse=("eth_getTransactionReceipt",)) as flaky,
        node_behind(chain.url, head=_mined_at(chain, response) - 1) as behind,
    ):
        client = _client(flaky.url, behind.url) if fail_over else _client(behind.url)
        with pytest.raises(VerificationPending):
            payment_verify(response_id=response.pk, client=client)
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING, response.rejection_code
    chain.mine(1)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED


def test_a_node_as_high_as_any_seen_still_decides_not_found(chain, draft, settings):
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0
    claim = post_claim(draft(), "0x" + "0f" * 32)
    assert payment_verify(response_id=claim.pk).code == "not_found"


def test_a_highest_head_nobody_showed_again_for_long_is_forgotten(chain, draft, settings):
    """A development chain started afresh is far below the last head seen: once no node has shown
    that height for a while, the new chain's head is the reference and unknown claims end."""
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0
    ChainCursor.objects.create(name=HIGHEST_HEAD, block_number=10**9)
    claim = post_claim(draft(), "0x" + "0e" * 32)
    with pytest.raises(VerificationPending):
        payment_verify(response_id=claim.pk)
    ChainCursor.objects.filter(name=HIGHEST_HEAD).update(updated_at=timezone.now() - timedelta(hours=1))
    assert payment_verify(response_id=claim.pk).code == "not_found"


# --- The indexer ----------------------------------------------------------------------------------


def test_a_fail_over_to_a_lagging_node_does_not_mark_indexed_payments_removed(chain, draft, settings):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    mined_at = chain.w3.eth.block_number
    chain.mine(1)
    first = payments_index()
    assert first is not None and first.recorded == 1
    with (
        node_behind(chain.url, refuse=("eth_getLogs",)) as flaky,
        node_behind(chain.url, head=mined_at - 1) as behind,
    ):
        payments_index(client=_client(flaky.url, behind.url))
    assert Payment.objects.get(transaction_hash=tx).removed is False
