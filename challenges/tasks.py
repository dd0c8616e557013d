"""Celery tasks of the challenges app: verifying a payout transaction that staff recorded."""

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
