"""Verification driven by blocks (docs/chain.md "Verification driven by blocks"), on real anvil.

1. The head watcher's round, run here against the session node: a claim not deep enough stays
   pending; the block that makes it deep enough confirms it. The RPC requests of a round are
   counted at 1 and at 200 pending claims: bounded by the batch size, not by the claims.
2. A real worker and beat on anvil mining a block every 3 seconds with CHAIN_CONFIRMATIONS=2: a
   claim posted after its first confirmation is confirmed within about a second of the block that
   makes it deep enough, and no backoff retry is ever scheduled for it.
3. A worker whose only RPC node refuses every connection still retries the claim on backoff.
4. The watcher's lock: a round while another holds it does nothing; a round that found no node
   records no head (the next beat tries the same block) and releases the lock."""

from __future__ import annotations

import math
import time
from decimal import Decimal

import pytest
from django.db import connection

from chain.client import get_client
from chain.heads import pending_claims_on_head
from responses.models import Response, ResponseStatus

from . import test_worker
from .conftest import (
    OPERATOR_KEY,
    UNREACHABLE_RPC,
    anvil_mining_every,
    keep_clock,
    post_claim,
    wait_anchor_confirmed,
)
from .test_worker import _body, draft_claim, post

# Fixtures of test_worker, used here as they are: the module's own redis-server and the test's
# worker and beat processes, each stopped by its PID.
broker = test_worker.broker
processes = test_worker.processes

# --- 1. One round per block, requests bounded ------------------------------------------------


def _claims_in_one_block(chain, draft, n: int) -> list[Response]:
    """n claims whose n payments anvil mines together in one block (one confirmation)."""
    drafts = [draft(stake=f"{1 + i % 7}.5") for i in range(n)]
    keep_clock(chain.w3)
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        hashes = [
            "0x"
            + bytes(
                chain.w3.eth.send_transaction(
                    {"from": chain.player, "to": chain.usdc, "data": chain.stake_calldata(d), "gas": 200_000}
                )
            ).hex()
            for d in drafts
        ]
        chain.mine(1)
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])
    receipts = [chain.w3.eth.get_transaction_receipt(h) for h in hashes]
    assert {r["blockNumber"] for r in receipts} == {chain.w3.eth.block_number}
    assert all(r["status"] == 1 for r in receipts)
    return [post_claim(d, h) for d, h in zip(drafts, hashes, strict=True)]


@pytest.mark.integration
@pytest.mark.django_db
@pytest.mark.parametrize("claims", [1, 200])
def test_one_round_per_block_confirms_every_pending_claim_with_requests_bounded_by_the_batch_size(
    chain, draft, settings, claims
):
    settings.CHAIN_RPC_BATCH_SIZE = 100
    posted = _claims_in_one_block(chain, draft, claims)
    assert all(r.status == ResponseStatus.PENDING for r in posted)
    batches = math.ceil(claims / 100)

    # One confirmation of two: every receipt read, nothing decided, no block or transaction read.
    posted_at = max(r.updated_at for r in Response.objects.all())
    first = pending_claims_on_head(client=get_client(), last_head=None)
    assert first is not None and first.claims == claims and first.decided == 0
    assert first.http_requests == 1 + batches
    assert Response.objects.filter(status=ResponseStatus.PENDING).count() == claims
    # Each claim recorded as checked, so the sweeper leaves it to the watcher.
    assert not Response.objects.filter(updated_at__lte=posted_at).exists()

    # The same head again: one eth_blockNumber, nothing else.
    client = get_client()
    assert pending_claims_on_head(client=client, last_head=first.head) is None
    assert client.http_requests == 1
    # A lower head than the last one seen (a lagging node, a chain started afresh) is checked too.
    behind = pending_claims_on_head(client=get_client(), last_head=first.head + 100)
    assert behind is not None and behind.claims == claims

    # The block that makes them deep enough: all confirmed in one round; the block and the
    # transactions ride in the same batches (claims + 1 calls).
    chain.mine(1)
    second = pending_claims_on_head(client=get_client(), last_head=first.head)
    assert second is not None and second.decided == claims
    assert second.http_requests == 1 + batches + math.ceil((claims + 1) / 100)
    assert Response.objects.filter(status=ResponseStatus.CONFIRMED).count() == claims
    challenge = posted[0].challenge
    challenge.refresh_from_db()
    assert challenge.staked_sum == sum(Decimal(r.submission_stake) for r in posted)
    assert challenge.response_count == claims
    print(
        f"\nhead watcher, {claims} pending claims: {first.http_requests} RPC requests for a block that "
        f"decides none, {second.http_requests} for the block that confirms all"
    )


# --- 2. A real worker and beat on 3-second blocks ----------------------------------------------

BLOCK_SECONDS = 3
AFTER_DEEP_ENOUGH_SECONDS = 2.5  # the beat's 1 s interval plus a round on a loaded machine


@pytest.fixture(scope="module")
def slow_chain():
    """anvil mining a block every BLOCK_SECONDS, with its own TestUSDC and registry."""
    with anvil_mining_every(BLOCK_SECONDS) as chain:
        yield chain


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_claim_is_confirmed_within_a_second_or_so_of_the_block_that_makes_it_deep_enough(
    slow_chain, processes, make_challenge, settings, api
):
    url, w3, treasury, player, usdc, registry = slow_chain
    settings.CHAIN_ID = 31337
    settings.ANCHOR_REGISTRY_ADDRESS = registry
    processes.configure(rpc_url=url, usdc=usdc, treasury=treasury, registry=registry, operator_key=OPERATOR_KEY)
    # The sweeper out of the way: only the head watcher may bring a claim back after the POST's check.
    processes.env["CHAIN_SWEEP_STALE_SECONDS"] = "3600"
    processes.beat()
    processes.worker("heads")
    challenge = make_challenge(anchored=False)  # the worker anchors it on this chain
    wait_anchor_confirmed(challenge, within=60, logs=processes.logs)
    lags = []
    for n in range(4):
        tx, body = draft_claim(w3, challenge=challenge, player=player, treasury=treasury, usdc=usdc, stake=f"{n + 1}")
        tx_hash = w3.eth.send_transaction(tx)
        receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=20, poll_latency=0.02)
        answer = post(api, body, "0x" + bytes(tx_hash).hex())
        assert answer.status_code == 201, answer.content
        response_id = answer.json()["id"]
        deep_seen = confirmed_seen = None
        deadline = time.monotonic() + 30
        while confirmed_seen is None:
            assert time.monotonic() < deadline, f"response {response_id} never confirmed:\n{processes.logs()}"
            now = time.monotonic()
            if deep_seen is None and w3.eth.block_number >= receipt["blockNumber"] + 1:
                deep_seen = now
            status = Response.objects.values_list("status", flat=True).get(pk=response_id)
            if status != ResponseStatus.PENDING:
                assert status == ResponseStatus.CONFIRMED, processes.logs()
                confirmed_seen = now
            time.sleep(0.02)
        assert deep_seen is not None and confirmed_seen >= deep_seen, "confirmed before its second block"
        lags.append(confirmed_seen - deep_seen)
    connection.close()
    logs = "".join(log.read_text(errors="replace") for _, _, log in processes.procs)  # in full
    assert "the head watcher re-checks it at the next block" in logs
    assert "retry in" not in logs, "a claim that was only not deep enough got a backoff retry"
    figures = ", ".join(f"{s:.2f}" for s in lags)
    print(f"\nthe block that makes a claim deep enough → confirmed, anvil --block-time {BLOCK_SECONDS}: {figures} s")
    assert max(lags) <= AFTER_DEEP_ENOUGH_SECONDS, (lags, logs)


# --- 3. RPC failures keep the backoff -----------------------------------------------------------


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_rpc_node_refuses_every_connection_retries_the_claim_on_backoff(chain, draft, processes, api):
    processes.configure(rpc_url=UNREACHABLE_RPC, usdc=chain.usdc, treasury=chain.treasury)
    worker = processes.worker("no-node")
    d = draft(stake="2")
    keep_clock(chain.w3)
    tx_hash = chain.pay(chain.stake_calldata(d))
    chain.mine(1)  # deep enough: only the missing node stands between the claim and its verdict
    answer = post(api, _body(d), tx_hash)
    assert answer.status_code == 201, answer.content
    response_id = answer.json()["id"]
    deadline = time.monotonic() + 20
    while not processes.holds_retry(worker):
        assert time.monotonic() < deadline, f"the worker never scheduled a retry:\n{processes.logs()}"
        time.sleep(0.05)
    assert f"response {response_id}: eth_getTransactionReceipt: no RPC node answered" in processes.logs()
    assert "retry in" in processes.logs()
    assert Response.objects.get(pk=response_id).status == ResponseStatus.PENDING


# --- 4. One watcher at a time; a failed round keeps its block ---------------------------------


@pytest.mark.integration
@pytest.mark.django_db
def test_one_head_watcher_runs_at_a_time_and_a_failed_round_leaves_the_head_to_the_next(chain, settings):
    from django.core.cache import cache

    from chain.heads import HEAD_SEEN_KEY
    from chain.tasks import HEAD_LOCK_KEY, watch_head

    cache.delete(HEAD_SEEN_KEY)
    # Another round holds the lock (another worker of the deployment): this one does nothing.
    assert cache.add(HEAD_LOCK_KEY, "another round", timeout=60)
    watch_head()
    assert cache.get(HEAD_SEEN_KEY) is None
    cache.delete(HEAD_LOCK_KEY)

    # No node answers: the round fails and records no head, so the next beat tries the same block.
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    watch_head()
    assert cache.get(HEAD_SEEN_KEY) is None
    assert cache.get(HEAD_LOCK_KEY) is None  # released on failure too

    settings.CHAIN_RPC_URLS = [chain.url]
    watch_head()
    assert cache.get(HEAD_SEEN_KEY) == chain.w3.eth.block_number
    assert cache.get(HEAD_LOCK_KEY) is None
