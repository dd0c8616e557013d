"""The exceptions of a resolved challenge (responses/models.py, ResolutionException): recorded by
the barrier (responses/barrier.py, through responses/services.py) when the chain changes a claim
after resolution started, published in the winners answer, and settled by staff in the admin."""

import logging

from django.db.models import QuerySet
from django.utils import timezone

from challenges.models import Challenge
from config.public_cache import public_answers_mark_stale

from .models import ResolutionException, Response

logger = logging.getLogger(__name__)


def exception_record(*, response: Response, kind: str) -> bool:
    """Record that `response` changed on chain after its challenge's resolution started (`kind`:
    ExceptionKind), once per claim and kind; True when this call recorded it. In the caller's
    transaction, which holds the challenge's row (responses/barrier.py, resolution_started_locked).
    The winners answer lists the exceptions: it goes stale with the commit."""
    _, created = ResolutionException.objects.get_or_create(
        response_id=response.pk,
        kind=kind,
        defaults={
            "challenge_id": response.challenge_id,
            "stake": response.submission_stake,
            "transaction_hash": response.transaction_hash,
        },
    )
    if created:
        public_answers_mark_stale()
        logger.warning(
            "response %s of challenge %s: %s after resolution started; recorded for staff",
            response.pk,
            response.challenge_id,
            kind,
        )
    return created


def exceptions_of(*, challenge: Challenge) -> QuerySet[ResolutionException]:
    """A challenge's exceptions in the order they were recorded, with their claims."""
    return ResolutionException.objects.filter(challenge=challenge).select_related("response").order_by("id")


def exception_settle(*, exception: ResolutionException, note: str, settled: bool, user=None) -> ResolutionException:
    """Staff's note on an exception (what they did: a refund, nothing), and whether it is settled;
    the time and the staff member are kept from the first time it was marked settled."""
    exception.staff_note = note
    fields = ["staff_note"]
    if settled and exception.settled_at is None:
        exception.settled_at = timezone.now()
        exception.settled_by = user
        fields += ["settled_at", "settled_by"]
    elif not settled and exception.settled_at is not None:
        exception.settled_at = None
        exception.settled_by = None
        fields += ["settled_at", "settled_by"]
    exception.save(update_fields=fields)
    return exception
