"""Celery tasks of the challenges app: resolving a challenge that staff started, and verifying a
payout transaction that staff recorded."""

import logging

from celery import shared_task
from django.conf import settings

from chain.client import ChainUnavailable
from chain.tasks import retry_countdown

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="challenges.verify_payout", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def verify_payout(self, payout_id: int) -> str:
    from .payouts import PayoutPending, payout_verify

    try:
        return payout_verify(payout_id=payout_id)
    except (PayoutPending, ChainUnavailable) as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            # Still "verifying": staff can queue it again from the payouts list.
            logger.warning("payout %s: giving up after %s retries: %s", payout_id, self.request.retries, exc)
            return "verifying"
        raise self.retry(countdown=retry_countdown(self.request.retries), exc=exc) from exc


@shared_task(name="challenges.sweep_payouts", ignore_result=True)
def sweep_payouts() -> int:
    """Beat: queue again every payout left verifying without a recent check, so a lost message or
    a dead worker never leaves a paid prize unverified. Verification is idempotent."""
    from django.utils import timezone

    from .models import Payout
    from .payouts import payouts_stale_verifying

    stale = settings.CHAIN_SWEEP_STALE_SECONDS
    ids = payouts_stale_verifying(older_than_seconds=stale)
    for payout_id in ids:
        # Touched first, so the next sweep does not queue it again while this message waits.
        Payout.objects.filter(pk=payout_id).update(updated_at=timezone.now())
        verify_payout.delay(payout_id)
    return len(ids)


@shared_task(bind=True, name="challenges.resolve", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def resolve_challenge(self, challenge_id: int) -> str:
    """Score and reveal a challenge whose resolution staff started (challenges.services). Safe to
    run twice or after a worker died mid-way: it resumes at the last committed chunk."""
    from django.db import DatabaseError

    from .services import challenge_resolve_run

    try:
        return challenge_resolve_run(challenge_id=challenge_id).status
    except DatabaseError as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            logger.warning("resolution of challenge %s: giving up after %s retries", challenge_id, self.request.retries)
            return "running"  # the beat's sweep queues it again
        raise self.retry(countdown=retry_countdown(self.request.retries), exc=exc) from exc


@shared_task(name="challenges.sweep_resolutions", ignore_result=True)
def sweep_resolutions() -> int:
    """Beat: queue again every resolution that made no progress for CHALLENGE_RESOLVE_STALE_SECONDS
    (its worker was killed, or the message was lost). Running it twice is harmless."""
    from django.utils import timezone

    from .models import ChallengeResolution
    from .services import resolutions_stale_running

    ids = resolutions_stale_running(older_than_seconds=settings.CHALLENGE_RESOLVE_STALE_SECONDS)
    for challenge_id in ids:
        # Touched first, so the next sweep does not queue it again while this message waits.
        ChallengeResolution.objects.filter(challenge_id=challenge_id).update(updated_at=timezone.now())
        resolve_challenge.delay(challenge_id)
    return len(ids)
