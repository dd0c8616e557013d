"""Reads of the payment ledger (for staff pages, the admin, and the unclaimed payments a verifier
accounts for)."""

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet

from responses.hooks import UnclaimedPayment
from responses.models import PaymentMethod, Response, ResponseStatus
from responses.reasons import NOT_THE_PAYERS_CLAIM

from .ledger import RELAYED_PAYMENT
from .models import Payment


def payer_claims() -> QuerySet[Response]:
    """Claims that may be the payer's own: every claim but a stranger's that verification already
    told apart (rejected for another sender or another guess's commitment)."""
    return Response.objects.exclude(status=ResponseStatus.REJECTED, rejection_code__in=NOT_THE_PAYERS_CLAIM)


def payment_is_claimed() -> Q:
    """A ledger row that a claim of its payer names (to filter Payment rows; the admin's list of
    unclaimed payments uses it too).

    - A direct transfer: a claim paid by transfer on its hash, matched by hash alone, so a claim
      posted after the payment was indexed takes it off the unclaimed list at once; a stranger's
      claim on the hash, once rejected as not the payer's, does not.
    - A relayed stake (chain/ledger.py, RELAYED_PAYMENT): the claim paid by the authorization of its
      payer whose nonce it used (docs/protocol.md section 5), whatever its status. A claim paid by
      transfer naming a relayed transaction (a stranger's, any commitment) never does."""
    by_hash = payer_claims().filter(
        payment_method=PaymentMethod.TRANSFER, transaction_hash=OuterRef("transaction_hash")
    )
    by_authorization = Response.objects.filter(
        payment_method=PaymentMethod.AUTHORIZATION,
        commitment=OuterRef("commitment"),
        submitter_address__iexact=OuterRef("from_address"),
    )
    return (~RELAYED_PAYMENT & Q(Exists(by_hash))) | (RELAYED_PAYMENT & Q(Exists(by_authorization)))


def payments_unclaimed() -> QuerySet[Payment]:
    """Payments to the treasury that no claim of the payer names (payment_is_claimed): the player's
    POST never arrived."""
    return Payment.objects.filter(removed=False).exclude(payment_is_claimed()).order_by("-block_number", "-log_index")


def payments_unclaimed_for_challenge(*, challenge_id: int, after_id: int = 0) -> QuerySet[Payment]:
    """The unclaimed payments whose calldata names `challenge_id` (a direct stake's fourth word, a
    relayed stake's word after the nine of transferWithAuthorization), by ledger id:
    what `GET /api/challenges/N/unclaimed` lists once the challenge is resolved, so that a verifier
    can account for every transfer to the treasury that names it (docs/protocol.md section 6)."""
    return payments_unclaimed().filter(challenge_id_word=challenge_id, id__gt=after_id).order_by("id")


# Staff's page lists at most this many (a flood of tiny payments naming the challenge must not make
# the admin page unusable); the ledger's own admin lists them all (chain/admin.py, "Unclaimed").
MAX_UNCLAIMED_SHOWN = 200


def payments_unclaimed_in_window(
    *, challenge_id: int, opened_at: datetime, closed_at: datetime | None
) -> list[UnclaimedPayment]:
    """What staff see before they resolve (registered in responses/hooks.py by chain/apps.py): the
    unclaimed payments naming the challenge mined in its open window (from `opened_at`, floored to
    the second as verification floors it, to `closed_at` inclusive; None: to now), oldest first.
    A row whose block time the indexer could not read is listed too: it may be in the window."""
    in_window = Q(block_timestamp__gte=opened_at.replace(microsecond=0))
    if closed_at is not None:
        in_window &= Q(block_timestamp__lte=closed_at)
    rows = (
        payments_unclaimed()
        .filter(challenge_id_word=challenge_id)
        .filter(in_window | Q(block_timestamp__isnull=True))
        .order_by("block_number", "log_index")
    )
    return [
        UnclaimedPayment(
            transaction_hash=p.transaction_hash,
            from_address=p.from_address,
            amount=Decimal(p.amount_units).scaleb(-settings.TOKEN_DECIMALS),
            block_number=p.block_number,
            block_time=p.block_timestamp,
        )
        for p in rows[:MAX_UNCLAIMED_SHOWN]
    ]
