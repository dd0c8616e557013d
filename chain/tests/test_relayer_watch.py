"""What the relayer's watcher does with what it sent (docs/protocol.md section 2a, "The relayer"),
on anvil with blocks mined only when the test says: a stake stuck under a base fee that rose is sent
again under the same nonce with higher fees and mined once; a transaction the node forgot, or one
whose send timed out, is sent again as it was; a stake someone else front-ran reverts, is
`not_needed`, and nothing moves twice; a stuck stake whose challenge closed is replaced by a
nonce filler, and the nonces stay gap-free throughout."""

from __future__ import annotations

import threading
import time
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from eth_utils import to_checksum_address
from web3.exceptions import TransactionNotFound

from chain.authorization import AUTHORIZATION_USED_TOPIC, address_topic, nonce_topic
from chain.client import ChainClient
from chain.models import RelayerAccount, RelayTransaction, RelayTxKind, RelayTxStatus
from chain.relay_reasons import OUTCOMES
from chain.relay_watch import relay_watch
from chain.relayer import relay_send
from challenges.services import challenge_close
from devtools.processes import free_port

from . import relay_support
from .relay_support import (
    RELAYER,
    Mining,
    authorization_used,
    known,
    new_player,
    relay_status,
    relayed_call,
    relayer_nonce,
    rpc,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

relay, open_challenge, claim_for = relay_support.relay, relay_support.open_challenge, relay_support.claim_for


def uses_of(chain, response) -> int:
    """AuthorizationUsed logs of the claim's authorization on chain: the times it moved money."""
    logs = chain.w3.eth.get_logs(
        {
            "address": to_checksum_address(chain.usdc),
            "topics": [
                AUTHORIZATION_USED_TOPIC,
                address_topic(response.submitter_address),
                nonce_topic(response.commitment),
            ],
            "fromBlock": 0,
            "toBlock": "latest",
        }
    )
    return len(logs)


def assert_gap_free(chain) -> None:
    """Every nonce the relayer used has one row, in order, and the chain has used exactly those."""
    nonces = list(RelayTransaction.objects.order_by("nonce").values_list("nonce", flat=True))
    assert nonces == list(range(nonces[0], nonces[0] + len(nonces)))
    assert RelayerAccount.objects.get(address=RELAYER).next_nonce == nonces[-1] + 1 == relayer_nonce(chain)


def test_a_stuck_stake_is_sent_again_with_higher_fees_and_mined_once(relay, open_challenge, settings, claim_for):
    chain = relay
    settings.RELAY_RESEND_SECONDS = 1.0
    claim = claim_for(open_challenge, new_player(chain))
    treasury = chain.balance(chain.treasury)
    with Mining(chain) as mining:
        assert relay_send().sent == 1
        first = RelayTransaction.objects.get()
        assert relay_watch().resent == 0  # not due yet: in the node's pool, not mined
        time.sleep(1.1)  # no block for longer than RELAY_RESEND_SECONDS

        assert relay_watch().resent == 1

        row = RelayTransaction.objects.get()
        assert row.nonce == first.nonce and len(row.attempts) == 2 and row.transaction_hash != first.transaction_hash
        assert row.max_fee_per_gas >= first.max_fee_per_gas * 125 / 100
        assert row.max_priority_fee_per_gas >= first.max_priority_fee_per_gas * 125 / 100
        assert relay_status(claim) == ("sent", "", "")
        assert claim.authorization.relay_transaction_hash == row.transaction_hash
        assert mining.pool() == 1  # the replacement took the first one's place
        mining.mine()
    assert relay_watch().mined == 1
    row.refresh_from_db()
    assert row.status == RelayTxStatus.MINED and row.kind == RelayTxKind.STAKE
    assert chain.w3.eth.get_transaction_receipt(row.transaction_hash)["status"] == 1
    assert known(row.effective_gas_price) <= row.max_fee_per_gas
    with pytest.raises(TransactionNotFound):
        chain.w3.eth.get_transaction(first.transaction_hash)  # replaced: never mined
    assert uses_of(chain, claim) == 1 and chain.balance(chain.treasury) == treasury + 2_500_000
    assert_gap_free(chain)


def test_a_stake_priced_out_by_a_rising_base_fee_is_sent_again_at_the_market(relay, open_challenge, claim_for):
    """The base fee jumps past the stake's maxFeePerGas; anvil then drops it from its pool (geth
    would keep it waiting: the re-send after RELAY_RESEND_SECONDS covers that). The watcher finds it
    forgotten, cannot send it again as it was, and replaces it at once with fees above the market's."""
    chain = relay
    claim = claim_for(open_challenge, new_player(chain))
    with Mining(chain) as mining:
        relay_send()
        first = RelayTransaction.objects.get()
        rpc(chain, "anvil_setNextBlockBaseFeePerGas", hex(int(first.max_fee_per_gas) * 3))
        mining.mine()
        assert mining.pool() == 0

        assert relay_watch().resent == 1

        row = RelayTransaction.objects.get()
        latest_base = chain.w3.eth.get_block("latest")["baseFeePerGas"]
        assert row.nonce == first.nonce and row.max_fee_per_gas >= 2 * latest_base
        assert row.max_fee_per_gas >= first.max_fee_per_gas * 125 / 100
        mining.mine()
    assert relay_watch().mined == 1
    assert uses_of(chain, claim) == 1 and relay_status(claim) == ("sent", "", "")
    assert_gap_free(chain)


def test_a_transaction_the_node_forgot_is_sent_again_as_it_was(relay, open_challenge, claim_for):
    chain = relay
    claim = claim_for(open_challenge, new_player(chain))
    with Mining(chain) as mining:
        relay_send()
        row = RelayTransaction.objects.get()
        rpc(chain, "anvil_dropTransaction", row.transaction_hash)
        assert mining.pool() == 0
        with pytest.raises(TransactionNotFound):
            chain.w3.eth.get_transaction(row.transaction_hash)

        assert relay_watch().rebroadcast == 1

        assert mining.pool() == 1
        assert chain.w3.eth.get_transaction(row.transaction_hash)["nonce"] == row.nonce  # the same bytes
        mining.mine()
    assert relay_watch().mined == 1
    assert RelayTransaction.objects.get().status == RelayTxStatus.MINED
    assert authorization_used(chain, claim) and relay_status(claim) == ("sent", "", "")
    assert_gap_free(chain)


class _SwallowSends(BaseHTTPRequestHandler):
    """A node's gateway that forwards every request but eth_sendRawTransaction, which it receives
    and never passes on nor answers in time: the relayer's send times out, the transaction is not
    in the node's pool (the fault a timeout can hide)."""

    upstream = ""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if b"eth_sendRawTransaction" in body:
            time.sleep(3)  # past the client's 1 s timeout
            self.send_response(504)
            self.end_headers()
            return
        request = urllib.request.Request(self.upstream, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            data = answer.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def swallowing_gateway(upstream: str):
    handler = type("Gateway", (_SwallowSends,), {"upstream": upstream})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_send_that_timed_out_is_kept_as_sent_and_sent_again_by_the_watcher(relay, open_challenge, claim_for):
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(2)]
    nonce = relayer_nonce(chain)
    with swallowing_gateway(chain.url) as gateway:
        summary = relay_send(client=ChainClient([gateway], timeout=1))
    # The first send's answer never came: kept as sent under its hash; the second waits queued.
    assert summary.sent == 1 and "no node answered" in summary.stopped
    row = RelayTransaction.objects.get()
    assert row.nonce == nonce and row.status == RelayTxStatus.SENT
    with pytest.raises(TransactionNotFound):  # it never reached the node
        chain.w3.eth.get_transaction(row.transaction_hash)
    assert relay_status(claims[0]) == ("sent", "", "") and relay_status(claims[1]) == ("queued", "", "")

    assert relay_watch().rebroadcast == 1  # automine: mined at once
    assert relay_watch().mined == 1
    assert relay_send().sent == 1  # the second, after the first: nonce + 1
    assert relay_watch().mined == 1
    assert all(authorization_used(chain, claim) for claim in claims)
    assert_gap_free(chain)


def test_a_front_run_stake_reverts_is_not_needed_and_moves_no_money_twice(relay, open_challenge, claim_for):
    chain = relay
    claim = claim_for(open_challenge, new_player(chain))
    treasury = chain.balance(chain.treasury)
    with Mining(chain) as mining:
        relay_send()
        ours = RelayTransaction.objects.get()
        # Someone saw the authorization (in the pool) and submits it first, paying more for gas.
        theirs = chain.w3.eth.send_transaction(
            {
                "from": chain.other,
                "to": chain.usdc,
                "data": relayed_call(chain, claim),
                "gas": 200_000,
                "maxPriorityFeePerGas": int(ours.max_priority_fee_per_gas) * 10,
                "maxFeePerGas": int(ours.max_fee_per_gas) * 10,
            }
        )
        mining.mine()
    assert chain.w3.eth.get_transaction_receipt(theirs)["status"] == 1
    assert chain.w3.eth.get_transaction_receipt(ours.transaction_hash)["status"] == 0

    summary = relay_watch()

    assert summary.reverted == 1 and summary.mined == 0
    ours.refresh_from_db()
    assert ours.status == RelayTxStatus.REVERTED and ours.gas_used and ours.cost_wei
    assert relay_status(claim) == ("not_needed", OUTCOMES["used"].reason, "used")
    assert uses_of(chain, claim) == 1 and chain.balance(chain.treasury) == treasury + 2_500_000
    assert_gap_free(chain)  # the nonce is filled (by the reverted stake)


def test_a_stake_in_flight_when_its_challenge_closes_is_replaced_by_a_filler_at_once(relay, open_challenge, claim_for):
    """Never one for a challenge that is no longer open (docs/protocol.md section 2a): mined after
    the close, the stake would count as `late` and its USDC stay in the treasury. The watcher does
    not wait RELAY_RESEND_SECONDS (60 s here) for it."""
    chain = relay
    claim = claim_for(open_challenge, new_player(chain))
    player_usdc = chain.balance(claim.submitter_address)
    with Mining(chain) as mining:
        relay_send()
        assert relay_watch().fillers == 0  # open: left alone
        challenge_close(challenge=open_challenge)

        assert relay_watch().fillers == 1

        row = RelayTransaction.objects.get()
        assert row.kind == RelayTxKind.FILLER and row.replaced_because == "closed" and row.gas_limit == 21_000
        assert relay_status(claim)[0] == "sent"  # until the chain says which of the two was mined
        mining.mine()
    assert relay_watch().mined == 1
    row.refresh_from_db()
    mined = chain.w3.eth.get_transaction(row.transaction_hash)
    assert row.status == RelayTxStatus.MINED and mined["to"] == RELAYER and mined["value"] == 0
    assert relay_status(claim) == ("failed", OUTCOMES["closed"].reason, "closed")
    assert not authorization_used(chain, claim) and chain.balance(claim.submitter_address) == player_usdc
    assert_gap_free(chain)


def test_the_watcher_reads_nothing_when_idle_within_its_balance_period(relay, open_challenge):
    chain = relay
    client = ChainClient([chain.url], timeout=5)
    assert relay_watch(client=client).mined == 0
    assert client.http_requests == 1  # one batch: the balance, the fees, the nonces
    account = RelayerAccount.objects.get(address=RELAYER)
    assert account.balance_wei == chain.w3.eth.get_balance(RELAYER) and known(account.stake_cost_wei) > 0
    relay_watch(client=client)  # nothing in flight, the balance read just now: nothing read
    assert client.http_requests == 1
