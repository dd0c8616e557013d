"""POST /api/responses to `confirmed` through the real pieces: the API in this process, a Redis
broker (this module's own redis-server on a free port, so it can be stopped), `celery worker`
and `celery beat` processes, anvil, and the pytest-django PostgreSQL test database shared with
those processes. Every process is started here and stopped by its own PID, also on failure.

1. End to end on anvil with 1-second blocks and CHAIN_CONFIRMATIONS=2: ten claims, the median
   POST→confirmed time printed (docs/chain.md keeps the figure); asserted only against a generous
   bound, never a tight timing.
2. The worker killed with SIGKILL while the claim waits for depth, then restarted: the claim
   confirms once (the head watcher re-checks it at the next block; the stake is counted once).
3. The broker down at POST time: 201 and the claim stored; once Redis is back, the sweeper's
   beat task re-queues it and the worker, reconnected by itself, confirms it."""

from __future__ import annotations

import json
import signal
import socket
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connections
from rest_framework.test import APIClient
from web3 import Web3

from chain.calldata import encode_stake_transfer
from chain.models import Payment
from chain.tasks import sweep_pending
from challenges.commitments import guess_commitment_v1, new_salt
from challenges.coordinates import parse_coordinates
from challenges.models import Challenge
from config.celery_app import app as celery_app
from devtools import workers
from devtools.workers import CeleryProcesses, anvil_chain_settings
from responses.models import Response, ResponseStatus

from .conftest import (
    ANVIL_CHAIN_ID,
    OPERATOR_KEY,
    anvil_mining_every,
    keep_clock,
    wait_anchor_confirmed,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.postgresql,  # the worker process must share the test database: not SQLite's in-memory one
    pytest.mark.django_db(transaction=True),  # committed rows, and on_commit hooks that really run
]

CONFIRM_WITHIN_SECONDS = 30  # generous: a claim takes a few seconds; this only catches "never"


# --- Processes ---------------------------------------------------------------------------------

broker = workers.broker  # this module's own redis-server, which a test stops and starts again


class Processes(CeleryProcesses):
    """celery worker / beat processes of one test, on the chain given by `configure`."""

    # Only the chain's settings, where the base class takes any environment variable.
    def configure(  # type: ignore[override]
        self, *, rpc_url: str = "", usdc: str = "", treasury: str = "", registry: str = "", operator_key: str = ""
    ) -> None:
        super().configure(
            **anvil_chain_settings(
                rpc_url=rpc_url,
                usdc=usdc,
                treasury=treasury,
                rpc_timeout_seconds="5",
                registry=registry,
                operator_key=operator_key,
            )
        )

    def holds_retry(self, proc: subprocess.Popen) -> bool:
        """Whether the worker `proc` holds a task with a countdown (received, not yet run) that is
        still at least half a second from running: a kill right after this answer finds it held."""
        node = self.nodes[proc.pid]
        scheduled = celery_app.control.inspect(destination=[node], timeout=0.5, limit=1).scheduled() or {}
        now = datetime.now(UTC)
        return any(
            datetime.fromisoformat(task["eta"]) - now > timedelta(seconds=0.5) for task in scheduled.get(node) or []
        )


@pytest.fixture
def processes(transactional_db, broker, tmp_path):
    """Requested after the database: stopped before pytest-django empties the test database."""
    procs = Processes(tmp_path, broker)
    try:
        yield procs
    finally:
        procs.stop_all()


# --- Claims ------------------------------------------------------------------------------------


def draft_claim(w3: Web3, *, challenge: Challenge, player: str, treasury: str, usdc: str, stake: str) -> tuple:
    """The extended transfer a player's wallet sends for a guess, and the POST body that claims it."""
    text = parse_coordinates("29.979175, 31.134258").text
    salt = new_salt()
    commitment = guess_commitment_v1(
        chain_id=ANVIL_CHAIN_ID, challenge_id=challenge.pk, submitter_address=player, text=text, salt=salt
    )
    calldata = encode_stake_transfer(
        treasury=treasury,
        amount_units=int(Decimal(stake) * 10**6),
        commitment=commitment,
        challenge_id=challenge.pk,
        timestamp=int(time.time()),
    )
    tx = {"from": player, "to": usdc, "data": calldata, "value": 0, "gas": 200_000}
    body = {
        "challengeId": challenge.pk,
        "submissionText": text,
        "submissionStake": stake,
        "submitterAddress": player,
        "submissionSalt": salt,
    }
    return tx, body


def post(api, body: dict, tx_hash: str):
    return api.post(
        "/api/responses", data=json.dumps({**body, "transactionHash": tx_hash}), content_type="application/json"
    )


def wait_decided(response_id: int, processes: Processes, *, within: float = CONFIRM_WITHIN_SECONDS) -> Response:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        response = Response.objects.get(pk=response_id)
        if response.status != ResponseStatus.PENDING:
            return response
        time.sleep(0.05)
    raise AssertionError(f"response {response_id} still pending after {within} s:\n{processes.logs()}")


def assert_counted_once(challenge: Challenge, stakes: list[Decimal]) -> None:
    challenge.refresh_from_db()
    assert challenge.staked_sum == sum(stakes)
    assert challenge.response_count == len(stakes)


# --- 1. End to end on 1-second blocks ----------------------------------------------------------


@pytest.fixture(scope="module")
def timed_chain():
    """anvil mining a block every second (not on each transaction), with its own TestUSDC and terms
    registry."""
    with anvil_mining_every(1) as chain:
        yield chain


def test_ten_claims_go_from_post_to_confirmed_through_the_worker_on_one_second_blocks(
    timed_chain, processes, make_challenge, settings
):
    """Ten players' claims, one starting each second (about one per block), each on its own thread
    with its own API client and database connection, as ten browsers would."""
    url, w3, treasury, player, usdc, registry = timed_chain
    settings.CHAIN_ID = ANVIL_CHAIN_ID
    settings.ANCHOR_REGISTRY_ADDRESS = registry
    processes.configure(rpc_url=url, usdc=usdc, treasury=treasury, registry=registry, operator_key=OPERATOR_KEY)
    # With beat, as the Procfile runs them: a claim not deep enough at its first check is re-checked
    # by the beat's head watcher at the next block, not by a retry.
    processes.beat()
    processes.worker("e2e")
    # Published: the worker anchors its terms on this chain, and only then does it accept claims.
    challenge = make_challenge(anchored=False)
    wait_anchor_confirmed(challenge, logs=processes.logs)
    began = time.monotonic()

    def one_claim(n: int) -> tuple[float, Decimal]:
        try:
            time.sleep(max(0.0, began + n - time.monotonic()))
            stake = f"{n + 1}.25"
            tx, body = draft_claim(w3, challenge=challenge, player=player, treasury=treasury, usdc=usdc, stake=stake)
            tx_hash = w3.eth.send_transaction(tx)
            # As the page does: POST once the transaction has a receipt (its first confirmation).
            assert w3.eth.wait_for_transaction_receipt(tx_hash, timeout=10, poll_latency=0.05)["status"] == 1
            started = time.monotonic()
            answer = post(APIClient(), body, "0x" + bytes(tx_hash).hex())
            assert answer.status_code == 201, answer.content
            assert answer.json()["status"] == "pending"
            response = wait_decided(answer.json()["id"], processes)
            seconds = time.monotonic() - started
            assert response.status == ResponseStatus.CONFIRMED, (response.rejection_code, processes.logs())
            receipt = w3.eth.get_transaction_receipt(tx_hash)
            assert response.block_number == receipt["blockNumber"]
            # Two confirmations: the block after the transaction's was there when it confirmed.
            assert w3.eth.block_number >= receipt["blockNumber"] + 1
            return seconds, Decimal(stake)
        finally:
            connections.close_all()  # this thread's connection, before the test database is emptied

    with ThreadPoolExecutor(max_workers=10) as pool:
        results = [future.result() for future in [pool.submit(one_claim, n) for n in range(10)]]
    seconds = [s for s, _ in results]
    assert_counted_once(challenge, [stake for _, stake in results])
    assert Payment.objects.filter(response__challenge=challenge).count() == 10
    print(
        f"\nPOST→confirmed, anvil --block-time 1, CHAIN_CONFIRMATIONS=2, median of 10: "
        f"{statistics.median(seconds):.2f} s (min {min(seconds):.2f}, max {max(seconds):.2f})"
    )


# --- 2. The worker killed mid-verification -------------------------------------------------------


def test_a_worker_killed_while_the_claim_waits_for_depth_is_restarted_and_the_claim_confirms_once(
    chain, draft, processes, api
):
    processes.configure(rpc_url=chain.url, usdc=chain.usdc, treasury=chain.treasury)
    first = processes.worker("doomed")
    d = draft(stake="3")
    keep_clock(chain.w3)  # the worker took seconds to start: the next block is no older than the challenge
    # anvil mines it at once and then no further block: one confirmation of the two required.
    tx_hash = chain.pay(chain.stake_calldata(d))
    answer = post(api, {**_body(d)}, tx_hash)
    assert answer.status_code == 201, answer.content
    response_id = answer.json()["id"]
    posted_at = Response.objects.get(pk=response_id).updated_at

    # Wait until the worker has looked (not deep enough: the claim touched; no retry is scheduled
    # for that, the head watcher owns it now), then kill it with SIGKILL.
    # (The worker may have looked before `posted_at` was read: its log line says so then.)
    looked = f"response {response_id}: not deep enough yet"
    deadline = time.monotonic() + 15
    while Response.objects.get(pk=response_id).updated_at == posted_at and looked not in processes.logs():
        assert time.monotonic() < deadline, f"the worker never looked at the claim:\n{processes.logs()}"
        time.sleep(0.05)
    assert not processes.holds_retry(first), "a claim that is only not deep enough got a backoff retry"
    first.kill()  # SIGKILL to its PID
    first.wait(timeout=10)
    assert first.returncode == -signal.SIGKILL
    chain.mine(2)
    assert Response.objects.get(pk=response_id).status == ResponseStatus.PENDING

    # Restarted, with beat: nothing of the dead worker is needed; the head watcher's next round
    # finds the claim among the pending ones and confirms it.
    processes.beat()
    processes.worker("restarted")
    response = wait_decided(response_id, processes)
    assert response.status == ResponseStatus.CONFIRMED, (response.rejection_code, processes.logs())
    processes.wait_for_log("pending claims re-checked, 1 decided")
    assert_counted_once(d.challenge, [Decimal("3")])
    assert Payment.objects.filter(transaction_hash=tx_hash).count() == 1


# --- 3. The broker down at POST time -----------------------------------------------------------


def test_a_claim_posted_while_the_broker_is_down_is_stored_and_confirmed_once_it_is_back(
    chain, draft, processes, broker, api, settings, caplog
):
    processes.configure(rpc_url=chain.url, usdc=chain.usdc, treasury=chain.treasury)
    processes.worker("steady")
    d = draft(stake="4.5")
    keep_clock(chain.w3)
    tx_hash = chain.pay(chain.stake_calldata(d))
    chain.mine(1)  # deep enough already: only the lost message stands between the claim and the worker

    broker.stop()
    try:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", broker.port)) != 0, "the broker is still up"
        started = time.monotonic()
        answer = post(api, _body(d), tx_hash)
        post_seconds = time.monotonic() - started
        assert answer.status_code == 201, answer.content
        assert answer.json()["status"] == "pending"
        stored = Response.objects.get(pk=answer.json()["id"])
        assert stored.status == ResponseStatus.PENDING and stored.transaction_hash == tx_hash
    finally:
        broker.start()  # same port; empty, as a broker that lost its messages would be
    print(f"\nPOST with the broker down answered 201 in {post_seconds:.2f} s")
    # The enqueue failed (and said so): no message for this claim exists anywhere.
    assert f"could not enqueue verification of response {stored.pk}" in caplog.text

    # The sweeper's beat task, run here as beat would have the worker run it (a real beat process
    # runs it in the test above): the claim is the one stale pending claim, queued to the broker
    # that is back; the worker, reconnected by itself, confirms it.
    settings.CHAIN_SWEEP_STALE_SECONDS = 0
    assert sweep_pending() == 1
    response = wait_decided(stored.pk, processes)
    assert response.status == ResponseStatus.CONFIRMED, (response.rejection_code, processes.logs())
    assert_counted_once(d.challenge, [Decimal("4.5")])


def _body(d) -> dict:
    return {
        "challengeId": d.challenge.pk,
        "submissionText": d.text,
        "submissionStake": str(d.stake),
        "submitterAddress": d.address,
        "submissionSalt": d.salt,
    }
