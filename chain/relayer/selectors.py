"""Reads of the relayer's state: the calls waiting for it in order, what it has in flight, what it
spent and relayed in the last 24 hours (its limits), and the summary staff see (Chain -> Relayer)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import connection
from django.db.models import Count, Q, Sum
from django.utils import timezone

from config.rows import convert
from responses.models import RelayStatus, SignedStake

from ..models import PotCall, PotCallKind, PotCallStatus, RelayerAccount, RelayTransaction, RelayTxStatus

DAY = timedelta(hours=24)


def relay_queued_calls(*, limit: int) -> list[PotCall]:
    """The oldest `limit` queued calls, in the order they were queued (the order they are sent in)."""
    return list(
        PotCall.objects.filter(status=PotCallStatus.QUEUED)
        .select_related("signed_stake", "challenge")
        .order_by("id")[:limit]
    )


def relay_oldest_queued() -> int | None:
    return PotCall.objects.filter(status=PotCallStatus.QUEUED).order_by("id").values_list("id", flat=True).first()


def relay_queued_ids() -> list[int]:
    return list(PotCall.objects.filter(status=PotCallStatus.QUEUED).order_by("id").values_list("id", flat=True))


def relay_queued_since(*, older_than_seconds: float) -> bool:
    """Whether a call has waited queued longer than this (its message was lost, or no worker consumed
    the `relay` queue)."""
    before = timezone.now() - timedelta(seconds=older_than_seconds)
    return PotCall.objects.filter(status=PotCallStatus.QUEUED, created_at__lt=before).exists()


def relay_calls_of(*, call_ids: list[int]) -> dict[int, PotCall]:
    rows = PotCall.objects.filter(pk__in=call_ids).select_related("signed_stake", "challenge")
    return {row.pk: row for row in rows}


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


@dataclass(frozen=True)
class AdmissionReads:
    """What the relayer's admission of a new signed stake decides by (chain/relayer/admission.py)."""

    balance_wei: int | None  # as last read; None before the first read, or without an account row
    stake_cost_wei: int | None  # what one stake cost, as last measured; None before the first
    queued_stakes: int  # stake calls queued for the relayer
    spending: Spending  # relay_spending of the relayer's account (nothing without one)
    taken_for_payer: int  # the payer's signed stakes of the last 24 hours queued or sent (0 without a payer)


_COST = RelayTransaction._meta.get_field("cost_wei")
# The relayer's account, the stake calls queued, relay_spending and the payer's signed stakes of the last
# 24 hours as one statement: the POST of every signed stake asks them, and the ORM spent about a
# millisecond of CPU composing each of the four (docs/performance.md section 2). Names from the
# models' metadata; every value a parameter.
_ADMISSION = f"""
SELECT a.id, a.balance_wei, a.stake_cost_wei,
    (SELECT COUNT(*) FROM {PotCall._meta.db_table} q WHERE q.status = %s AND q.kind = %s),
    (SELECT SUM(t.cost_wei) FROM {RelayTransaction._meta.db_table} t
        WHERE t.account_id = a.id AND t.status IN (%s, %s) AND t.mined_at >= %s),
    (SELECT SUM(t.max_cost_wei) FROM {RelayTransaction._meta.db_table} t WHERE t.account_id = a.id AND t.status = %s),
    (SELECT COUNT(*) FROM {SignedStake._meta.db_table} x
        WHERE x.payer = %s AND x.created_at >= %s AND x.relay_status IN (%s, %s))
FROM (SELECT 1 AS one) one LEFT JOIN {RelayerAccount._meta.db_table} a ON a.address = %s
"""  # noqa: S608


def relay_admission_reads(*, address: str, payer: str | None) -> AdmissionReads:
    """What the admission decides by, for the relayer `address` and `payer` (None: the relay as a
    whole), in one statement."""
    since = connection.ops.adapt_datetimefield_value(timezone.now() - DAY)
    params: list[str | None] = [PotCallStatus.QUEUED.value, PotCallKind.STAKE.value, RelayTxStatus.MINED.value]
    params += [RelayTxStatus.REVERTED.value, since, RelayTxStatus.SENT.value, (payer or "").lower(), since]
    params += [RelayStatus.QUEUED.value, RelayStatus.SENT.value, address]
    with connection.cursor() as cursor:
        cursor.execute(_ADMISSION, params)
        account_id, balance, cost, queued, mined, in_flight, taken = cursor.fetchone()
    account = RelayerAccount._meta
    balance = convert(account.get_field("balance_wei"), balance)
    cost = convert(account.get_field("stake_cost_wei"), cost)
    return AdmissionReads(
        balance_wei=int(balance) if account_id is not None and balance is not None else None,
        stake_cost_wei=int(cost) if account_id is not None and cost is not None else None,
        queued_stakes=int(queued),
        spending=Spending(mined_wei=int(convert(_COST, mined) or 0), in_flight_wei=int(convert(_COST, in_flight) or 0)),
        taken_for_payer=int(taken) if payer else 0,
    )


def relay_sent_for_payer(*, address: str, now: datetime | None = None) -> int:
    """The payer's signed stakes the relayer sent a transaction for in the last 24 hours."""
    since = (now or timezone.now()) - DAY
    return (
        RelayTransaction.objects.filter(created_at__gte=since, call__signed_stake__payer=address.lower())
        .values("call_id")
        .distinct()
        .count()
    )


@dataclass(frozen=True)
class RelaySummary:
    """What staff see of the relayer (the admin's Chain -> Relayer)."""

    in_flight: int
    spent_wei: int  # the last 24 hours, in flight counted at its most
    mined_cost_wei: int  # the last 24 hours, mined only
    relayed: int  # calls sent in the last 24 hours
    refused: int  # signed stakes refused in the last 24 hours
    failed: int
    not_needed: int
    queued: int


def relay_summary(*, account: RelayerAccount) -> RelaySummary:
    now = timezone.now()
    since = now - DAY
    rows = RelayTransaction.objects.filter(account=account).aggregate(
        in_flight=Count("pk", filter=Q(status=RelayTxStatus.SENT)),
        mined=Sum("cost_wei", filter=Q(status__in=[RelayTxStatus.MINED, RelayTxStatus.REVERTED], mined_at__gte=since)),
        relayed=Count("call", distinct=True, filter=Q(created_at__gte=since)),
    )
    calls = PotCall.objects.filter(updated_at__gte=since).aggregate(
        refused=Count("pk", filter=Q(status=PotCallStatus.REFUSED)),
        failed=Count("pk", filter=Q(status=PotCallStatus.FAILED)),
        not_needed=Count("pk", filter=Q(status=PotCallStatus.NOT_NEEDED)),
    )
    return RelaySummary(
        in_flight=rows["in_flight"],
        spent_wei=relay_spending(account=account, now=now).day_wei,
        mined_cost_wei=int(rows["mined"] or 0),
        relayed=rows["relayed"],
        refused=calls["refused"],
        failed=calls["failed"],
        not_needed=calls["not_needed"],
        queued=len(relay_queued_ids()),
    )


def wei_as_eth(value: int | Decimal | None) -> str:
    """A wei amount as ETH with 6 decimals, for staff."""
    if value is None:
        return "-"
    return f"{Decimal(value).scaleb(-18):.6f} ETH"
