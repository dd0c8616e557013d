"""The sweeper of claims (beat: chain/tasks.py, sweep_pending): a pending claim no check touched for
a while is queued again, so a lost message never leaves a claim waiting for good."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from responses.models import Response, ResponseStatus


def stale_pending_claims(*, limit: int = 500) -> list[int]:
    """Pending claims that no check has touched for CHAIN_SWEEP_STALE_SECONDS: their message was
    lost (broker down at POST time, worker killed mid-task) or their retries ran out. Touched here so
    the next sweep does not queue them again while this round's message is on its way."""
    cutoff = timezone.now() - timedelta(seconds=settings.CHAIN_SWEEP_STALE_SECONDS)
    ids = list(
        Response.objects.filter(status=ResponseStatus.PENDING, updated_at__lt=cutoff)
        .order_by("updated_at")
        .values_list("pk", flat=True)[:limit]
    )
    if ids:
        Response.objects.filter(pk__in=ids, status=ResponseStatus.PENDING).update(updated_at=timezone.now())
    return ids
