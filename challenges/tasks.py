"""Celery tasks of the challenges app: verifying a payout transaction that staff recorded."""

import logging
import random

from celery import shared_task
from django.conf import settings

logger = logging.getLogger(__name__)


def _countdown(retries: int) -> float:
    base = getattr(settings, "CHAIN_VERIFY_RETRY_BASE_SECONDS", 2.0)
    cap = getattr(settings, "CHAIN_VERIFY_RETRY_MAX_SECONDS", 60.0)
    ceiling = min(cap, base * (2 ** min(retries, 32)))
    return random.uniform(ceiling / 2, ceiling)


@shared_task(bind=True, name="challenges.verify_payout", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def verify_payout(self, payout_id: int) -> str:
    from chain.client import ChainUnavailable

    from .payouts import PayoutPending, payout_verify

    try:
        return payout_verify(payout_id=payout_id)
    except (PayoutPending, ChainUnavailable) as exc:
        if self.request.retries >= getattr(settings, "CHAIN_VERIFY_MAX_RETRIES", 500):
            # Still "verifying": staff can queue it again from the payouts list.
            logger.warning("payout %s: giving up after %s retries: %s", payout_id, self.request.retries, exc)
            return "verifying"
        raise self.retry(countdown=_countdown(self.request.retries), exc=exc) from exc


@shared_task(name="challenges.sweep_payouts", ignore_result=True)
def sweep_payouts() -> int:
    """Beat: queue again every payout left verifying without a recent check, so a lost message or
    a dead worker never leaves a paid prize unverified. Verification is idempotent."""
    from django.utils import timezone

    from .models import Payout
    from .payouts import payouts_stale_verifying

    stale = getattr(settings, "CHAIN_SWEEP_STALE_SECONDS", 120.0)
    ids = payouts_stale_verifying(older_than_seconds=stale)
    for payout_id in ids:
        # Touched first, so the next sweep does not queue it again while this message waits.
        Payout.objects.filter(pk=payout_id).update(updated_at=timezone.now())
        verify_payout.delay(payout_id)
    return len(ids)
