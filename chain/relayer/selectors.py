"""Reads of the relayer's state (docs/protocol.md section 2a, "The relayer"): the claims waiting for
it in arrival order, what it has in flight, what it spent and relayed in the last 24 hours (its
limits), and the summary staff see in the admin (Chain -> Relayer)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from responses.models import RelayStatus, StakeAuthorization

from .models import RelayerAccount, RelayTransaction, RelayTxStatus

DAY = timedelta(hours=24)


@dataclass(frozen=True)
class QueuedClaim:
    """A claim whose authorization waits for the relayer, with what its send needs."""

    response_id: int
    challenge_id: int
    submitter_address: str
    commitment: str
    stake_units: int
    valid_after: int
    valid_before: int
    signature: str
    search_from_block: int | None
    created_at: datetime


def _queued():
    # Only claims paid by authorization have a StakeAuthorization (responses/models.py): no join.
    return StakeAuthorization.objects.filter(relay_status=RelayStatus.QUEUED).order_by("created_at", "response_id")


def _claim(row: StakeAuthorization) -> QueuedClaim:
    return QueuedClaim(
        response_id=row.response_id,
        challenge_id=row.response.challenge_id,
        submitter_address=row.response.submitter_address,
        commitment=row.response.commitment,
        stake_units=int(row.response.submission_stake * 10**6),
        valid_after=row.valid_after,
        valid_before=row.valid_before,
        signature=row.signature,
        search_from_block=row.search_from_block,
        created_at=row.created_at,
    )


def relay_queued_claims(*, limit: int) -> list[QueuedClaim]:
    """The oldest `limit` claims whose relay is queued, in arrival order (the order the relayer
    sends them in: docs/protocol.md section 2a, "The relayer decides when")."""
    return [_claim(row) for row in _queued().select_related("response")[:limit]]


def relay_claims_of(*, response_ids: list[int]) -> dict[int, QueuedClaim]:
    """The claims (whatever their relay status) the relayer's transactions carry, by response id."""
    rows = StakeAuthorization.objects.filter(response_id__in=response_ids).select_related("response")
    return {row.response_id: _claim(row) for row in rows}


def relay_oldest_queued() -> int | None:
    """The response id of the claim the relayer must take next, or None."""
    return _queued().values_list("response_id", flat=True).first()


def relay_queued_ids() -> list[int]:
    return list(_queued().values_list("response_id", flat=True))


def relay_queued_count() -> int:
    return StakeAuthorization.objects.filter(relay_status=RelayStatus.QUEUED).count()


def relay_queued_since(*, older_than_seconds: float) -> bool:
    """Whether a claim has waited queued longer than this (its message was lost, or no worker
    consumed the `relay` queue)."""
    before = timezone.now() - timedelta(seconds=older_than_seconds)
    return StakeAuthorization.objects.filter(relay_status=RelayStatus.QUEUED, created_at__lt=before).exists()


def relay_account(*, address: str) -> RelayerAccount | None:
    return RelayerAccount.objects.filter(address=address).first()


def relay_in_flight(*, account: RelayerAccount) -> list[RelayTransaction]:
    return list(RelayTransaction.objects.filter(account=account, status=RelayTxStatus.SENT).order_by("nonce"))


@dataclass(frozen=True)
class Spending:
    mined_wei: int  # what was mined in the last 24 hours cost
    in_flight_wei: int  # the most that what is in flight may cost

    @property
    def day_wei(self) -> int:
        """The relayer's spending of the last 24 hours as its daily limit counts it."""
        return self.mined_wei + self.in_flight_wei


def relay_spending(*, account: RelayerAccount, now: datetime | None = None) -> Spending:
    """What the relayer spent in the last 24 hours and what it has in flight, in one query."""
    since = (now or timezone.now()) - DAY
    mined = Q(status__in=[RelayTxStatus.MINED, RelayTxStatus.REVERTED], mined_at__gte=since)
    in_flight = Q(status=RelayTxStatus.SENT)
    sums = (
        RelayTransaction.objects.filter(account=account)
        .filter(mined | in_flight)
        .aggregate(mined=Sum("cost_wei", filter=mined), in_flight=Sum("max_cost_wei", filter=in_flight))
    )
    return Spending(mined_wei=int(sums["mined"] or 0), in_flight_wei=int(sums["in_flight"] or 0))


def relay_sent_for_payer(*, address: str, now: datetime | None = None) -> int:
    """The payer's claims the relayer sent a transaction for in the last 24 hours."""
    since = (now or timezone.now()) - DAY
    return (
        RelayTransaction.objects.filter(
            created_at__gte=since,
            response__submitter_address__iexact=address,
            response__sent_by_submitter=True,  # authorization claims are; the address index needs it
        )
        .values("response_id")
        .distinct()
        .count()
    )


def relay_taken_for_payer(*, address: str, now: datetime | None = None) -> int:
    """The payer's claims of the last 24 hours the relayer has taken on: queued or sent."""
    since = (now or timezone.now()) - DAY
    return StakeAuthorization.objects.filter(
        response__submitter_address__iexact=address,
        response__sent_by_submitter=True,
        created_at__gte=since,
        relay_status__in=[RelayStatus.QUEUED, RelayStatus.SENT],
    ).count()


@dataclass(frozen=True)
class RelaySummary:
    """What staff see of the relayer (the admin's Chain -> Relayer)."""

    in_flight: int
    spent_wei: int  # the last 24 hours, in flight counted at its most
    mined_cost_wei: int  # the last 24 hours, mined only
    relayed: int  # claims sent in the last 24 hours
    refused: int  # claims refused in the last 24 hours
    failed: int
    not_needed: int
    queued: int


def relay_summary(*, account: RelayerAccount) -> RelaySummary:
    now = timezone.now()
    since = now - DAY
    rows = RelayTransaction.objects.filter(account=account).aggregate(
        in_flight=Count("pk", filter=Q(status=RelayTxStatus.SENT)),
        mined=Sum("cost_wei", filter=Q(status__in=[RelayTxStatus.MINED, RelayTxStatus.REVERTED], mined_at__gte=since)),
        relayed=Count("response", distinct=True, filter=Q(created_at__gte=since)),
    )
    claims = StakeAuthorization.objects.filter(updated_at__gte=since).aggregate(
        refused=Count("pk", filter=Q(relay_status=RelayStatus.REFUSED)),
        failed=Count("pk", filter=Q(relay_status=RelayStatus.FAILED)),
        not_needed=Count("pk", filter=Q(relay_status=RelayStatus.NOT_NEEDED)),
    )
    return RelaySummary(
        in_flight=rows["in_flight"],
        spent_wei=relay_spending(account=account, now=now).day_wei,
        mined_cost_wei=int(rows["mined"] or 0),
        relayed=rows["relayed"],
        refused=claims["refused"],
        failed=claims["failed"],
        not_needed=claims["not_needed"],
        queued=relay_queued_count(),
    )


def wei_as_eth(value: int | Decimal | None) -> str:
    """A wei amount as ETH with 6 decimals, for staff."""
    if value is None:
        return "-"
    return f"{Decimal(value).scaleb(-18):.6f} ETH"
