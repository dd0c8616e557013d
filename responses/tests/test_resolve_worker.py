"""Resolution through the admin and a real `celery worker` (and `celery beat`), with this module's
own redis-server and the pytest-django PostgreSQL test database shared with those processes. No
chain is needed: the responses are rows as verification leaves them. Every process is started on
a free loopback port and stopped by its own PID, also on failure (devtools/workers.py).

To hold the worker mid-resolution for as long as the test needs, the test itself takes a row lock
(SELECT … FOR UPDATE, on its own connection) on a correct response of the fourth chunk: the
worker's UPDATE of that chunk waits on it, as it would behind any concurrent writer. Nothing is
mocked.

1. Staff start "Resolve and reveal…": the request returns at once, the challenge's page and the
   changelist show "Resolving… N of M" and refresh themselves, a second start is refused (and the
   database refuses a second resolution row); once the lock goes, the worker finishes and the page
   shows the result.
2. The worker is killed with SIGKILL while it waits in the fourth chunk; a new worker and the beat
   resume it (the sweep re-queues a resolution with no progress): it finishes with exactly the
   result an undisturbed resolution gives, every response counted once, each payout created once."""

from __future__ import annotations

import time
from decimal import Decimal

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

import devtools.workers
from challenges.models import Challenge, ChallengeResolution, ChallengeStatus, Payout, PayoutKind, ResolutionStatus
from challenges.scoring import prize_split
from devtools.workers import CeleryProcesses, database_url
from responses.models import Response

pytestmark = [
    pytest.mark.integration,
    pytest.mark.postgresql,  # the worker process must share the test database
    pytest.mark.django_db(transaction=True),  # committed rows, and on-commit hooks that really run
    # Chain-free: the ledger indexer is taken to have read past the close (responses/tests/conftest.py).
    pytest.mark.usefixtures("ledger_read_past_close"),
]

COUNT, CHUNK = 300, 30  # ten chunks; every tenth response is correct
HELD_INDEX = 100  # a correct response of the fourth chunk (indexes 90-119): progress stops at 90
SOLUTION = "29.979175, 31.134258"
WITHIN_SECONDS = 60  # generous: the whole resolution takes well under a second once free


broker = devtools.workers.broker  # this module's own redis-server


@pytest.fixture
def workers(transactional_db, broker, tmp_path):
    """`celery worker` and `celery beat` processes of one test, stopped by PID before pytest-django
    empties the test database."""
    procs = CeleryProcesses(
        tmp_path,
        broker,
        CHALLENGE_RESOLVE_CHUNK=str(CHUNK),
        # The beat's sweeps every second; a resolution with no progress for 2 s is queued again.
        CHAIN_SWEEP_INTERVAL_SECONDS="1",
        CHALLENGE_RESOLVE_STALE_SECONDS="2",
        CHAIN_SWEEP_STALE_SECONDS="3600",
        CHAIN_INDEX_INTERVAL_SECONDS="3600",
    )
    try:
        yield procs
    finally:
        procs.stop_all()


@pytest.fixture
def staff(transactional_db):
    user = get_user_model().objects.create_superuser("poet", "poet@example.org", "long-enough-pass-1")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def challenge(make_challenge, make_response) -> tuple[Challenge, list[Response]]:
    """COUNT confirmed responses in chain order; every tenth at the solution, the others 1 km off."""
    challenge = make_challenge(solution=SOLUTION, threshold=150)
    responses = [
        make_response(
            challenge, SOLUTION if i % 10 == 0 else "29.988175, 31.134258", str(i + 1), block=i + 1, tx_index=0
        )
        for i in range(COUNT)
    ]
    challenge.refresh_from_db()
    return challenge, responses


class RowLock:
    """A FOR UPDATE lock on one response, held on a connection of its own until released."""

    def __init__(self, response_id: int) -> None:
        self.conn = psycopg.connect(database_url())
        self.conn.execute("SELECT id FROM responses_response WHERE id = %s FOR UPDATE", [response_id])

    def release(self) -> None:
        if not self.conn.closed:
            self.conn.rollback()
            self.conn.close()


def wait_for(predicate, what: str, workers: CeleryProcesses, within: float = WITHIN_SECONDS):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {within} s\n{workers.logs()}")


def resolution_of(challenge: Challenge) -> ChallengeResolution | None:
    return ChallengeResolution.objects.filter(challenge=challenge).first()


def held_at_fourth_chunk(challenge: Challenge, workers: CeleryProcesses) -> ChallengeResolution:
    """Waits until the worker committed three chunks and waits on the lock in the fourth; checks
    that it stays there."""
    wait_for(lambda: (r := resolution_of(challenge)) and r.scored == 3 * CHUNK, "three chunks", workers)
    time.sleep(1.0)
    resolution = resolution_of(challenge)
    assert resolution is not None
    assert resolution.scored == 3 * CHUNK and resolution.status == ResolutionStatus.RUNNING
    return resolution


def expected_result(challenge: Challenge, responses: list[Response]) -> dict:
    correct = [r for i, r in enumerate(responses) if i % 10 == 0]
    split = prize_split(challenge.staked_sum)
    return {
        "correct_ids": {r.pk for r in correct},
        "payouts": {
            PayoutKind.EARLIEST: (correct[0].pk, split.earliest),
            PayoutKind.HIGHEST: (correct[-1].pk, split.highest),
            PayoutKind.OPERATIONS: (None, split.operations),
        },
    }


def actual_result(challenge: Challenge) -> dict:
    return {
        "correct_ids": set(Response.objects.filter(challenge=challenge, is_correct=True).values_list("id", flat=True)),
        "payouts": {p.kind: (p.response_id, p.amount) for p in Payout.objects.filter(challenge=challenge)},
    }


def wait_resolved(challenge, what: str, workers) -> None:
    """Until the worker has finished the challenge's resolution; the challenge is then resolved."""
    wait_for(
        lambda: ChallengeResolution.objects.get(challenge=challenge).status == ResolutionStatus.DONE, what, workers
    )
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.RESOLVED


def test_staff_resolve_in_the_worker_see_progress_and_cannot_start_twice(staff, challenge, workers):
    challenge, responses = challenge
    workers.worker()
    lock = RowLock(responses[HELD_INDEX].pk)
    try:
        change = reverse("admin:challenges_challenge_change", args=[challenge.pk])
        resolve = reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "resolve"])
        started = time.monotonic()
        answer = staff.post(resolve)
        assert answer.status_code == 302 and answer["Location"] == change
        assert time.monotonic() - started < 5  # the request only starts it

        held_at_fourth_chunk(challenge, workers)
        page = staff.get(change).content.decode()
        assert f"Resolving… {3 * CHUNK} of {COUNT}" in page
        assert '<meta http-equiv="refresh" content="2">' in page
        assert "Resolve and reveal…" not in page  # no button to start it again
        listing = staff.get(reverse("admin:challenges_challenge_changelist")).content.decode()
        assert f"Resolving… {3 * CHUNK} of {COUNT}" in listing and 'http-equiv="refresh"' in listing
        challenge.refresh_from_db()
        assert challenge.status == ChallengeStatus.CLOSED  # closed at the start, revealed at the end

        # A second start, by the form: refused in words; and by the database itself.
        again = staff.post(resolve, follow=True)
        assert "Resolve and reveal refused: its resolution was already started" in again.content.decode()
        with pytest.raises(IntegrityError), transaction.atomic():
            ChallengeResolution.objects.create(challenge=challenge, total=COUNT)
        assert ChallengeResolution.objects.filter(challenge=challenge).count() == 1
    finally:
        lock.release()

    wait_resolved(challenge, "the end of resolution", workers)
    page = staff.get(change).content.decode()
    assert f"Resolved: {COUNT // 10} correct of {COUNT} scored; 3 payout(s) created." in page
    assert 'http-equiv="refresh"' not in page
    assert actual_result(challenge) == expected_result(challenge, responses)
    resolution = resolution_of(challenge)
    assert resolution is not None
    assert (resolution.scored, resolution.correct, resolution.runs) == (COUNT, COUNT // 10, 1)


def test_a_worker_killed_mid_resolution_is_resumed_and_gives_the_same_result(staff, challenge, workers):
    challenge, responses = challenge
    first = workers.worker()
    lock = RowLock(responses[HELD_INDEX].pk)
    try:
        staff.post(reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "resolve"]))
        held_at_fourth_chunk(challenge, workers)
        first.kill()  # SIGKILL to its PID
        first.wait(timeout=10)
    finally:
        lock.release()
    # Killed mid-way: three chunks committed, nothing revealed, no payout.
    time.sleep(1.0)
    resolution = resolution_of(challenge)
    assert resolution is not None
    assert resolution.scored == 3 * CHUNK and resolution.status == ResolutionStatus.RUNNING
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CLOSED and not Payout.objects.filter(challenge=challenge).exists()

    # A new worker and the beat: the sweep finds no progress for 2 s and queues the task again.
    workers.worker()
    workers.beat()
    wait_resolved(challenge, "the resumed resolution", workers)
    resolution = resolution_of(challenge)
    assert resolution is not None
    assert (resolution.scored, resolution.correct, resolution.payouts) == (COUNT, COUNT // 10, 3)
    assert resolution.runs >= 2
    assert actual_result(challenge) == expected_result(challenge, responses)
    assert Payout.objects.filter(challenge=challenge).count() == 3
    assert sum(p.amount for p in Payout.objects.filter(challenge=challenge)) <= challenge.staked_sum
    assert challenge.staked_sum == Decimal(COUNT * (COUNT + 1) // 2)
