"""Celery task names: each task of the project is named after the app whose module defines it, the
beat schedule names them so, and a task's name before a rename stays registered for one release as
the same task (config/task_aliases.py): a message queued under the old name still runs, in this
process through `celery_app.tasks[old]` and in a real worker that finds it waiting in the broker.
The payout's old name on a real worker and a real chain: chain/tests/test_task_names.py."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

import devtools.workers
from challenges.models import ChallengeResolution, ChallengeStatus, Payout, PayoutStatus, ResolutionStatus
from config.celery_app import app
from devtools.workers import CeleryProcesses
from responses.resolution import challenge_resolve, challenge_resolve_start

SOLUTION = "29.979175, 31.134258"
RENAMED = {
    "challenges.verify_payout": "chain.verify_payout",
    "challenges.sweep_payouts": "chain.sweep_payouts",
    "challenges.resolve": "responses.resolve",
    "challenges.sweep_resolutions": "responses.sweep_resolutions",
}

broker = devtools.workers.broker  # this module's own redis-server, for the real worker


def project_tasks() -> dict:
    app.loader.import_default_modules()  # every app's tasks module, as a worker imports them
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def function_of(task):
    return getattr(task.run, "__func__", task.run)  # a bound task's run is a method of its instance


def test_each_task_is_named_after_the_app_that_defines_it():
    tasks = project_tasks()
    assert set(RENAMED.values()) <= set(tasks)
    for name, task in tasks.items():
        if name not in RENAMED:
            assert name.split(".")[0] == task.__module__.split(".")[0], (name, task.__module__)


def test_the_beat_names_every_task_by_its_current_name():
    tasks = project_tasks()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in tasks and entry["task"] not in RENAMED, entry


def test_the_relayers_tasks_go_to_their_own_queue_and_the_others_to_the_default_one():
    """chain.relay_send and chain.relay_watch (the beat's too) are routed to `relay`, which every
    worker consumes beside the default queue (Procfile: -Q celery,relay)."""
    tasks = project_tasks()
    for name in tasks:
        queue = app.amqp.router.route({}, name)["queue"].name
        assert queue == ("relay" if name in ("chain.relay_send", "chain.relay_watch") else "celery"), name
    watch = settings.CELERY_BEAT_SCHEDULE["chain-relay-watch"]
    assert watch["task"] == "chain.relay_watch" and watch["schedule"] == settings.RELAY_WATCH_INTERVAL_SECONDS


@pytest.mark.parametrize(("old", "new"), RENAMED.items())
def test_an_old_name_is_the_renamed_task(old, new):
    tasks = project_tasks()
    assert function_of(tasks[old]) is function_of(tasks[new])
    for option in ("acks_late", "reject_on_worker_lost", "max_retries", "ignore_result"):
        assert getattr(tasks[old], option) == getattr(tasks[new], option), option


@pytest.mark.django_db
def test_the_resolution_tasks_run_under_their_old_names(make_challenge, make_response):
    challenge = make_challenge(solution=SOLUTION)
    make_response(challenge, SOLUTION, "2")
    challenge_resolve_start(challenge=challenge, enqueue=False, wait_for_late_claims=False)
    # Its worker died long ago: the old sweep's name queues it again.
    ChallengeResolution.objects.filter(challenge=challenge).update(updated_at=timezone.now() - timedelta(hours=1))
    assert project_tasks()["challenges.sweep_resolutions"].apply().get() == 1
    assert project_tasks()["challenges.resolve"].apply(args=[challenge.pk]).get() == ResolutionStatus.DONE
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.RESOLVED


@pytest.mark.django_db
def test_the_payout_sweep_runs_under_its_old_name(make_challenge, make_response):
    challenge = make_challenge(solution=SOLUTION)
    make_response(challenge, SOLUTION, "2")
    payout = Payout.objects.filter(challenge=challenge_resolve(challenge=challenge)).first()
    Payout.objects.filter(pk=payout.pk).update(
        status=PayoutStatus.VERIFYING, transaction_hash="0x" + "34" * 32, updated_at=timezone.now() - timedelta(hours=1)
    )
    assert project_tasks()["challenges.sweep_payouts"].apply().get() == 1
    payout.refresh_from_db()
    assert payout.updated_at > timezone.now() - timedelta(minutes=1)  # touched when queued again


@pytest.mark.integration
@pytest.mark.postgresql  # the worker process must share the test database
@pytest.mark.django_db(transaction=True)
def test_a_message_queued_under_an_old_name_runs_on_a_real_worker(broker, tmp_path, make_challenge, make_response):
    challenge = make_challenge(solution=SOLUTION)
    make_response(challenge, SOLUTION, "2")
    challenge_resolve_start(challenge=challenge, enqueue=False, wait_for_late_claims=False)
    # What a web process of the previous release queued when staff started the resolution.
    app.send_task("challenges.resolve", args=[challenge.pk])
    workers = CeleryProcesses(tmp_path, broker)
    try:
        workers.worker()
        deadline = time.monotonic() + 30
        resolution = ChallengeResolution.objects.get(challenge=challenge)
        while resolution.status != ResolutionStatus.DONE and time.monotonic() < deadline:
            time.sleep(0.1)
            resolution.refresh_from_db()
        assert resolution.status == ResolutionStatus.DONE, workers.logs()
        challenge.refresh_from_db()
        assert challenge.status == ChallengeStatus.RESOLVED
        workers.wait_for_log("Task challenges.resolve[")
    finally:
        workers.stop_all()
