"""Reads of the payment ledger (for staff pages and the admin)."""

from django.db.models import Exists, OuterRef, QuerySet

from responses.models import Response

from .models import Payment


def payments_unclaimed() -> QuerySet[Payment]:
    """Payments to the treasury that no claim names: the player's POST never arrived. Matched by
    transaction hash, so a claim posted after the payment was indexed takes it off this list at once."""
    claimed = Response.objects.filter(transaction_hash=OuterRef("transaction_hash"))
    return (
        Payment.objects.filter(removed=False)
        .annotate(claimed=Exists(claimed))
        .filter(claimed=False)
        .order_by("-block_number", "-log_index")
    )


def payments_for_response(*, response: Response) -> QuerySet[Payment]:
    return Payment.objects.filter(transaction_hash=response.transaction_hash).order_by("log_index")
