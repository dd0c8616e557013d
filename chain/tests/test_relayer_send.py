"""The relayer's sends on anvil with the EIP-3009 test USDC (docs/protocol.md section 2a, "The
relayer"): arrival order is nonce order, many stakes go into one block with consecutive nonces, and
nothing is sent for an authorization that cannot succeed: a payer without the USDC (a flood of
them), an expired, cancelled or used authorization, a closed challenge. Two senders at once send
each claim once. The gas a relayed stake uses and how long a send of 100 claims takes are printed
(run with -s to see them)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from chain.client import ChainClient
from chain.models import RelayerAccount, RelayTransaction, RelayTxStatus
from chain.relay_reasons import OUTCOMES
from chain.relay_signing import RELAY_GAS
from chain.relay_watch import relay_watch
from chain.relayer import relay_send, relay_send_now
from challenges.services import challenge_close
from devtools.concurrency import at_once

from . import relay_support
from .relay_support import (
    RELAYER,
    Mining,
    authorization_of,
    authorization_used,
    cancel_authorization,
    known,
    new_player,
    relay_status,
    relayed_call,
    relayer_eth,
    relayer_nonce,
    rpc,
    sign,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

relay, open_challenge, claim_for = relay_support.relay, relay_support.open_challenge, relay_support.claim_for


def test_arrival_order_is_nonce_order_and_each_stake_is_mined_once(relay, open_challenge, claim_for):
    chain = relay
    players = [new_player(chain) for _ in range(3)]
    claims = [claim_for(open_challenge, player) for player in players]
    treasury_before = chain.balance(chain.treasury)
    start = relayer_nonce(chain)

    summary = relay_send()

    assert summary.sent == 3 and summary.failed == summary.refused == 0
    rows = {row.response_id: row for row in RelayTransaction.objects.all()}
    assert [rows[claim.pk].nonce for claim in claims] == [start, start + 1, start + 2]
    for claim in claims:
        assert relay_status(claim) == ("sent", "", "")
        assert claim.authorization.relay_transaction_hash == rows[claim.pk].transaction_hash
        assert authorization_used(chain, claim)
    assert chain.balance(chain.treasury) == treasury_before + 3 * 2_500_000
    assert RelayerAccount.objects.get(address=RELAYER).next_nonce == start + 3 == relayer_nonce(chain)

    watched = relay_watch()
    assert watched.mined == 3
    gas = []
    for claim in claims:
        row = RelayTransaction.objects.get(response=claim)
        receipt = chain.w3.eth.get_transaction_receipt(row.transaction_hash)
        assert row.status == RelayTxStatus.MINED and receipt["status"] == 1
        assert row.gas_used == receipt["gasUsed"] and row.effective_gas_price == receipt["effectiveGasPrice"]
        assert row.cost_wei == receipt["gasUsed"] * receipt["effectiveGasPrice"]
        assert receipt["from"] == RELAYER and len(chain.w3.eth.get_transaction(row.transaction_hash)["input"]) == 324
        gas.append(row.gas_used)
        assert known(row.gas_used) < RELAY_GAS
    print(f"\ngas per relayed stake (the first credits a treasury that held no USDC yet): {gas}")
    # Run again: nothing is queued, nothing is in flight; nothing changes.
    assert relay_send().sent == 0 and relay_watch().mined == 0
    assert RelayTransaction.objects.count() == 3


def test_thirty_authorizations_go_out_with_consecutive_nonces_into_one_or_two_blocks(relay, open_challenge, claim_for):
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(30)]
    start = relayer_nonce(chain)
    head = chain.w3.eth.block_number
    client = ChainClient([chain.url], timeout=5)
    with Mining(chain) as mining:
        started = time.monotonic()
        summary = relay_send(client=client)
        elapsed = time.monotonic() - started
        assert summary.sent == 30
        # The 30 claims' facts (the token's state, the payer's USDC, the simulation: 90 calls) and the
        # relayer's own in one JSON-RPC batch, then one request per send.
        assert client.http_requests == 1 + 30
        assert mining.pool() == 30  # no send waited for a receipt
        assert relayer_nonce(chain, "pending") == start + 30
        mining.mine(2)
    blocks = {RelayTransaction.objects.get(response=claim).nonce: claim for claim in claims}
    assert sorted(blocks) == list(range(start, start + 30))
    assert [blocks[start + i].pk for i in range(30)] == [claim.pk for claim in claims]  # arrival order
    assert relay_watch().mined == 30
    mined_in = {known(row.block_number) for row in RelayTransaction.objects.all()}
    assert mined_in <= {head + 1, head + 2} and head + 1 in mined_in
    assert all(authorization_used(chain, claim) for claim in claims)
    assert relayer_nonce(chain) == start + 30
    print(f"\nrelay_send of 30 claims: {elapsed:.2f} s; mined in blocks {sorted(mined_in)}")


def test_a_flood_from_an_address_without_usdc_costs_the_relayer_nothing(relay, open_challenge, claim_for):
    """50 claims stored as if the POST could not read the chain (the balance check did not run):
    the relayer's re-checks find no USDC behind any of them and send nothing."""
    chain = relay
    broke = new_player(chain, usdc_units=0)
    claims = [claim_for(open_challenge, broke, text=f"10.{n:04d}, 20") for n in range(50)]
    nonce, eth = relayer_nonce(chain, "pending"), relayer_eth(chain)

    summary = relay_send()

    assert summary.sent == 0 and summary.failed == 50
    assert relayer_nonce(chain, "pending") == nonce and relayer_eth(chain) == eth
    assert not RelayTransaction.objects.exists()
    assert {relay_status(claim) for claim in claims} == {("failed", OUTCOMES["balance"].reason, "balance")}


def test_expired_cancelled_used_and_closed_authorizations_are_never_sent(relay, open_challenge, claim_for):
    chain = relay
    expiring = claim_for(open_challenge, new_player(chain), valid_for=59)
    payer = new_player(chain)
    cancelled = claim_for(open_challenge, payer)
    used = claim_for(open_challenge, new_player(chain))
    fine = claim_for(open_challenge, new_player(chain))
    # The payer cancels one (cancelAuthorization, signed by the payer, sent by anyone).
    cancel_authorization(chain, payer, cancelled)
    # Someone submits another first (the page's "Send it yourself"): the authorization is used.
    chain.pay(relayed_call(chain, used), sender=chain.other, to=chain.usdc)
    assert authorization_used(chain, used)
    nonce, eth = relayer_nonce(chain, "pending"), relayer_eth(chain)

    summary = relay_send()

    assert summary.sent == 1 and summary.failed == 3
    assert relay_status(expiring) == ("failed", OUTCOMES["expired"].reason, "expired")
    assert relay_status(cancelled) == ("failed", OUTCOMES["cancelled"].reason, "cancelled")
    assert relay_status(used) == ("not_needed", OUTCOMES["used"].reason, "used")
    assert relay_status(fine) == ("sent", "", "")
    assert relayer_nonce(chain, "pending") == nonce + 1
    assert list(RelayTransaction.objects.values_list("response_id", flat=True)) == [fine.pk]
    assert relayer_eth(chain) < eth

    # The challenge closes: a claim queued for it is never sent.
    late = claim_for(open_challenge, new_player(chain))
    challenge_close(challenge=open_challenge)
    assert relay_send().sent == 0
    assert relay_status(late) == ("failed", OUTCOMES["closed"].reason, "closed")
    assert not authorization_used(chain, late)


def test_two_senders_at_once_send_each_claim_once(relay, open_challenge, transactional_db, claim_for):
    """The account row's lock alone (relay_send_now, without the one-sender flag): two runs at once,
    in two threads with their own database connections, interleave and use each nonce once, in
    arrival order."""
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(12)]
    start = relayer_nonce(chain)

    results = at_once([relay_send_now, relay_send_now])

    assert sum(result.sent for result in results) == 12
    rows = list(RelayTransaction.objects.order_by("nonce"))
    assert [row.nonce for row in rows] == list(range(start, start + 12))
    assert [row.response_id for row in rows] == [claim.pk for claim in claims]
    assert relayer_nonce(chain) == start + 12
    assert all(relay_status(claim)[0] == "sent" for claim in claims)
    assert rpc(chain, "txpool_status")["pending"] == "0x0"


def test_a_second_run_leaves_the_queue_to_the_one_sending(relay, open_challenge, transactional_db, claim_for):
    """With the flag (relay_send, as the task runs it): one run sends them all, the other returns at
    once to free its worker process for other work."""
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(12)]

    results = at_once([relay_send, relay_send])

    assert sorted(result.sent for result in results) == [0, 12]
    assert all(relay_status(claim)[0] == "sent" for claim in claims)
    assert RelayTransaction.objects.count() == 12


def test_a_send_of_a_hundred_queued_claims(relay, open_challenge, claim_for):
    """How long one relay_send takes for 100 queued claims against anvil (blocks mined only after
    it: no send waits for one). Asserted only against a generous bound; the figure is printed."""
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(100)]
    start = relayer_nonce(chain)
    with Mining(chain) as mining:
        started = time.monotonic()
        summary = relay_send()
        elapsed = time.monotonic() - started
        assert summary.sent == 100 and mining.pool() == 100
        mining.mine(3)
    assert relay_watch().mined == 100
    assert relayer_nonce(chain) == start + 100
    assert all(relay_status(claim)[0] == "sent" for claim in claims)
    gas = sorted(known(g) for g in RelayTransaction.objects.values_list("gas_used", flat=True))
    print(f"\nrelay_send of 100 queued claims: {elapsed:.2f} s ({elapsed * 10:.0f} ms a claim); gas {gas[0]}-{gas[-1]}")
    assert elapsed < 60


def test_a_nonce_whose_send_the_node_refused_is_used_by_the_next_send(relay, open_challenge, claim_for):
    """The node refuses the first send (its maxFeePerGas under the next block's base fee, which
    jumped): that nonce was not spent, so the stake is signed again under it with fees above the
    next block's, and the following stake takes the next nonce: no gap."""
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(2)]
    start = relayer_nonce(chain)
    latest_base = chain.w3.eth.get_block("latest")["baseFeePerGas"]
    next_base = 10 * latest_base + 10 * 10**9
    with Mining(chain) as mining:
        rpc(chain, "anvil_setNextBlockBaseFeePerGas", hex(next_base))
        summary = relay_send()
        assert summary.sent == 2 and mining.pool() == 2
        rows = list(RelayTransaction.objects.order_by("nonce"))
        assert [(row.nonce, row.response_id) for row in rows] == [(start, claims[0].pk), (start + 1, claims[1].pk)]
        assert all(len(row.attempts) == 1 and row.max_fee_per_gas >= next_base for row in rows)
        mining.mine()
    assert relay_watch().mined == 2
    assert relayer_nonce(chain) == start + 2


def test_a_signature_for_another_amount_is_never_sent(relay, open_challenge, claim_for):
    """The relayer rebuilds the call from the claim (the treasury, the stake, the commitment): a
    stored signature of anything else fails the simulation and costs nothing."""
    chain = relay
    payer = new_player(chain)
    claim = claim_for(open_challenge, payer, stake="2.5")
    cheaper = sign(payer, replace(authorization_of(claim), value=1_000_000))  # 1 USDC, not 2.5
    type(claim.authorization).objects.filter(pk=claim.pk).update(signature=cheaper)
    nonce, eth = relayer_nonce(chain, "pending"), relayer_eth(chain)

    assert relay_send().failed == 1

    assert relay_status(claim) == ("failed", OUTCOMES["refused_by_token"].reason, "refused_by_token")
    assert relayer_nonce(chain, "pending") == nonce and relayer_eth(chain) == eth
    assert not authorization_used(chain, claim)
