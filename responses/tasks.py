"""Celery tasks of the responses app: resolving a challenge that staff started. The tasks were
named `challenges.resolve` and `challenges.sweep_resolutions` before; those names stay registered
for one release (config/task_aliases.py), so messages queued under them still run."""

import logging

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from challenges.models import ChallengeResolution
from config.retries import RETRYING_TASK, retry_countdown
from config.task_aliases import shared_task_renamed

from .resolution import challenge_resolve_run, resolutions_stale_running

logger = logging.getLogger(__name__)


@shared_task_renamed(name="responses.resolve", old_name="challenges.resolve", **RETRYING_TASK)
def resolve_challenge(self, challenge_id: int) -> str:
    """Score and reveal a challenge whose resolution staff started (responses/resolution.py). Safe to
    run twice or after a worker died mid-way: it resumes at the last committed chunk."""
    try:
        return challenge_resolve_run(challenge_id=challenge_id).status
    except DatabaseError as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            logger.warning("resolution of challenge %s: giving up after %s retries", challenge_id, self.request.retries)
            return "running"  # the beat's sweep queues it again
        raise self.retry(countdown=retry_countdown(self.request.retries), exc=exc) from exc


@shared_task_renamed(name="responses.sweep_resolutions", old_name="challenges.sweep_resolutions", ignore_result=True)
def sweep_resolutions() -> int:
    """Beat: queue again every resolution that made no progress for CHALLENGE_RESOLVE_STALE_SECONDS
    (its worker was killed, or the message was lost). Running it twice is harmless."""
    ids = resolutions_stale_running(older_than_seconds=settings.CHALLENGE_RESOLVE_STALE_SECONDS)
    for challenge_id in ids:
        # Touched first, so the next sweep does not queue it again while this message waits.
        ChallengeResolution.objects.filter(challenge_id=challenge_id).update(updated_at=timezone.now())
        resolve_challenge.delay(challenge_id)
    return len(ids)
