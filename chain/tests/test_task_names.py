"""A payout's check on chain, queued both ways a worker may find it after the task was renamed
(chain/tasks.py, verify_payout): staff's record sends `payout_recorded` (challenges/hooks.py) and
the chain's receiver queues `chain.verify_payout`; a message the previous release queued under
`challenges.verify_payout` waits in the broker. A real `celery worker` (this module's own
redis-server, the session anvil, the PostgreSQL test database) pays both. Every process is
stopped by its own PID (devtools/workers.py)."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from chain.contracts import mint
from challenges.models import Payout, PayoutKind, PayoutStatus
from challenges.payouts import payout_record_transaction
from config.celery_app import app
from devtools import workers
from devtools.workers import CeleryProcesses, anvil_chain_settings
from responses.resolution import challenge_resolve

from .verifier_support import treasury_transfer

pytestmark = [
    pytest.mark.integration,
    pytest.mark.postgresql,  # the worker process must share the test database
    pytest.mark.django_db(transaction=True),  # committed rows, and on_commit hooks that really run
]

SOLUTION = "29.979175, 31.134258"

broker = workers.broker  # this module's own redis-server


def test_a_recorded_payout_and_one_queued_under_the_old_name_are_both_paid_by_a_real_worker(
    chain, make_challenge, make_response, broker, tmp_path
):
    mint(chain.w3, chain.usdc, chain.treasury, 1_000 * 10**6, sender=chain.deployer)
    challenge = make_challenge(solution=SOLUTION)
    make_response(challenge, SOLUTION, "10", address=chain.player)
    make_response(challenge, "0, 0", "2.5", address=chain.other)
    challenge = challenge_resolve(challenge=challenge)
    earliest = Payout.objects.get(challenge=challenge, kind=PayoutKind.EARLIEST)
    highest = Payout.objects.get(challenge=challenge, kind=PayoutKind.HIGHEST)
    paid = {p.pk: treasury_transfer(chain, to=p.address, units=int(p.amount * 10**6)) for p in (earliest, highest)}
    chain.mine(2)

    # Recorded now: queued on commit through the hook, under the new name.
    payout_record_transaction(payout=earliest, transaction_hash=paid[earliest.pk], user=None)
    # Recorded by the previous release, its check queued under the old name.
    Payout.objects.filter(pk=highest.pk).update(
        status=PayoutStatus.VERIFYING, transaction_hash=paid[highest.pk], recorded_at=timezone.now()
    )
    app.send_task("challenges.verify_payout", args=[highest.pk])

    processes = CeleryProcesses(
        tmp_path,
        broker,
        **anvil_chain_settings(rpc_url=chain.url, usdc=chain.usdc, treasury=chain.treasury, rpc_timeout_seconds="5"),
    )
    try:
        processes.worker()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            statuses = set(Payout.objects.filter(pk__in=paid).values_list("status", flat=True))
            if statuses == {PayoutStatus.PAID}:
                break
            time.sleep(0.2)
        assert statuses == {PayoutStatus.PAID}, processes.logs()
        processes.wait_for_log("Task chain.verify_payout[")
        processes.wait_for_log("Task challenges.verify_payout[")
    finally:
        processes.stop_all()
