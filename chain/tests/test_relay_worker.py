"""The relayer end to end through real processes: a `celery worker` consuming the `relay` queue as
the Procfile's does (-Q celery,relay), `celery beat`, a Redis broker of this module's own, the
session anvil and the test database shared with them. A claim committed with its relay queued
(responses/hooks.py, queue_relay, as the POST does on commit) is sent by the worker and mined; a
claim whose message was lost is found by the beat's watcher and sent too."""

from __future__ import annotations

import time

import pytest

from chain.models import RelayTransaction, RelayTxStatus
from devtools import workers
from devtools.workers import CeleryProcesses, anvil_chain_settings
from responses import hooks

from . import relay_support
from .relay_support import RELAYER_KEY, authorization_used, new_player

pytestmark = [
    pytest.mark.integration,
    pytest.mark.postgresql,  # the worker process shares the test database
    pytest.mark.django_db(transaction=True),  # committed rows, as the worker reads them
]

broker = workers.broker  # this module's own redis-server
relay, open_challenge, claim_for = relay_support.relay, relay_support.open_challenge, relay_support.claim_for


@pytest.fixture
def processes(transactional_db, broker, tmp_path):
    procs = CeleryProcesses(tmp_path, broker)
    try:
        yield procs
    finally:
        procs.stop_all()


def wait_mined(response, processes: CeleryProcesses, *, within: float = 30.0) -> RelayTransaction:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        row = RelayTransaction.objects.filter(response=response, status=RelayTxStatus.MINED).first()
        if row is not None:
            return row
        time.sleep(0.1)
    raise AssertionError(f"response {response.pk} not relayed and mined within {within} s:\n{processes.logs()}")


def test_a_queued_claim_is_sent_by_a_worker_on_the_relay_queue_and_mined(relay, open_challenge, processes, claim_for):
    chain = relay
    processes.configure(
        **anvil_chain_settings(rpc_url=chain.url, usdc=chain.usdc, treasury=chain.treasury, rpc_timeout_seconds="5"),
        RELAYER_KEY=RELAYER_KEY,
        RELAY_WATCH_INTERVAL_SECONDS="0.5",
        RELAY_SWEEP_STALE_SECONDS="1",
    )
    processes.worker("relayer")
    processes.beat()
    claim = claim_for(open_challenge, new_player(chain))

    hooks.queue_relay(claim.pk)  # what the POST does once the claim is committed

    row = wait_mined(claim, processes)
    receipt = chain.w3.eth.get_transaction_receipt(row.transaction_hash)
    assert receipt["status"] == 1 and row.gas_used == receipt["gasUsed"]
    assert authorization_used(chain, claim)
    claim.authorization.refresh_from_db()
    assert (claim.authorization.relay_status, claim.authorization.relay_transaction_hash) == (
        "sent",
        row.transaction_hash,
    )
    processes.wait_for_log("Task chain.relay_send[")
    processes.wait_for_log("Task chain.relay_watch[")  # the beat's watcher recorded the receipt

    # A claim whose message never reached the broker: the watcher's sweep queues the sender.
    lost = claim_for(open_challenge, new_player(chain))
    wait_mined(lost, processes)
    assert authorization_used(chain, lost)
    processes.wait_for_log("claims left queued; the sender is queued again")
    nonces = sorted(RelayTransaction.objects.values_list("nonce", flat=True))
    assert nonces == [nonces[0], nonces[0] + 1]
