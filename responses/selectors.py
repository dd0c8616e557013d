"""Reads of claims: the public lists, a player's own claims, and the scores and winners computed
from the correct responses (the only rows resolution writes), so their cost does not grow with
the number of responses."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

from django.db import connection
from django.db.models import BooleanField, Case, CharField, F, FloatField, Func, Q, QuerySet, Value, When
from django.db.models.functions import Cast, Coalesce, NullIf, Round

from challenges.models import Challenge, ChallengeStatus, Payout, PayoutStatus
from challenges.scoring import PrizeSplit, prize_split
from challenges.selectors import distance_to_own_solution_sql

from .models import PaymentMethod, Response, ResponseStatus

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class ResponseScores(TypedDict):
    """What responses_with_scores annotates on each row."""

    distance_meters: float | None
    correct: bool | None


if TYPE_CHECKING:
    ScoredResponse = WithAnnotations[Response, ResponseScores]


def response_list_public(*, challenge_id: int | None = None, after_id: int = 0) -> QuerySet[Response]:
    """Confirmed responses of resolved challenges only: nothing of an open challenge is public."""
    responses = Response.objects.filter(
        status=ResponseStatus.CONFIRMED, challenge__status=ChallengeStatus.RESOLVED, id__gt=after_id
    )
    if challenge_id is not None:
        responses = responses.filter(challenge_id=challenge_id)
    # Distance and correctness are computed for the page's rows only (LIMIT applies first).
    return responses_with_scores(responses.select_related("challenge", "authorization")).order_by("id")


def response_list_rejected(*, challenge_id: int | None = None, after_id: int = 0) -> QuerySet[Response]:
    """Rejected claims of resolved challenges, oldest first: after resolution every claim is public
    so that a verifier can account for every payment naming the challenge (docs/protocol.md
    section 6, "Completeness"). Before resolution nothing, as for the confirmed list."""
    claims = Response.objects.filter(
        status=ResponseStatus.REJECTED, challenge__status=ChallengeStatus.RESOLVED, id__gt=after_id
    )
    if challenge_id is not None:
        claims = claims.filter(challenge_id=challenge_id)
    return claims.select_related("challenge", "authorization").order_by("id")


def response_list_by_address(
    *, address: str, challenge_id: int | None = None, before_id: int | None = None
) -> QuerySet[Response]:
    """The claims `address` made, any status, newest first (My submissions on another device):
    the confirmed claims naming it, and the others only once a read of their transaction showed the
    payer's own claim (Response.sent_by_submitter: sent from this address, carrying the claim's
    guess). Anyone can write any address into a claim, on a made-up hash or on a transaction the
    address sent for something else; none of those is ever listed, at any status, so nobody can put
    claims into someone else's list. The serializer hides coordinates until the challenge is resolved."""

    # The very condition of the partial index response_submitter_listed (responses/models.py).
    claims = Response.objects.filter(submitter_address__iexact=address).filter(
        Q(status=ResponseStatus.CONFIRMED) | Q(sent_by_submitter=True)
    )
    if challenge_id is not None:
        claims = claims.filter(challenge_id=challenge_id)
    if before_id is not None:
        claims = claims.filter(id__lt=before_id)
    # The distance is computed for the page's rows only (LIMIT applies first): the claim's outcome.
    return responses_with_scores(claims.select_related("challenge", "authorization")).order_by("-id")


def response_get_by_hash(*, transaction_hash: str, commitment: str | None = None) -> Response | None:
    """The claim a player asks about. With its commitment (the page computes it from the guess it
    kept): that claim, whatever its status. Without (links made before several claims could name a
    hash): the confirmed claim; else the only claim; else None, since which of several waiting
    claims is the asker's cannot be told."""
    claims = responses_with_scores(
        Response.objects.select_related("challenge", "authorization").filter(transaction_hash=transaction_hash.lower())
    )
    if commitment is not None:
        return claims.filter(commitment=commitment.lower()).first()
    confirmed = claims.filter(status=ResponseStatus.CONFIRMED).first()
    if confirmed is not None:
        return confirmed
    first_two = list(claims.order_by("id")[:2])
    return first_two[0] if len(first_two) == 1 else None


def response_get_by_authorization(*, commitment: str) -> Response | None:
    """The claim paid by authorization whose commitment (its authorization's nonce) this is: there is
    at most one (responses/models.py, response_one_claim_per_authorization)."""
    return (
        responses_with_scores(Response.objects.select_related("challenge", "authorization"))
        .filter(commitment=commitment.lower(), payment_method=PaymentMethod.AUTHORIZATION)
        .first()
    )


def responses_with_scores(queryset: QuerySet[Response]) -> QuerySet[ScoredResponse]:
    """Annotate `distance_meters` and `correct` (the public contract of a scored response): both
    None unless the response is confirmed and its challenge resolved. The distance is computed per
    row read (a page is at most a thousand), `correct` is the flag resolution wrote on the correct
    responses (False for every other confirmed response of a resolved challenge)."""
    scored = Q(status=ResponseStatus.CONFIRMED, challenge__status=ChallengeStatus.RESOLVED)
    return queryset.annotate(
        distance_meters=Case(
            When(scored, then=distance_to_own_solution_sql()), default=None, output_field=FloatField()
        ),
        correct=Case(
            When(scored, then=Coalesce(F("is_correct"), Value(False))), default=None, output_field=BooleanField()
        ),
    )


def response_export_rows(*, challenge: Challenge):
    """Every response of a challenge in chain order as the staff CSV shows it (after the record
    and id columns of the export header): text-ready columns, so PostgreSQL can write the CSV."""
    text: dict[str, CharField] = {"output_field": CharField()}
    timestamp = Func(
        F("submission_timestamp"),
        template="to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')",
        **text,
    )
    if connection.vendor != "postgresql":
        timestamp = Cast(F("submission_timestamp"), CharField())
    columns = {
        "c_record": Value("response", **text),
        "c_id": F("id"),
        "c_challenge": F("challenge_id"),
        "c_kind": Value(None, **text),
        "c_status": F("status"),
        "c_reason": NullIf(F("rejection_code"), Value("")),
        "c_address": F("submitter_address"),
        "c_text": F("submission_text"),
        "c_amount": F("submission_stake"),
        "c_hash": F("transaction_hash"),
        "c_block": F("block_number"),
        "c_tx_index": F("transaction_index"),
        "c_log_index": F("log_index"),
        "c_time": timestamp,
        "c_distance": Case(
            When(distance_meters__isnull=False, then=Cast(Round(F("distance_meters"), 2), CharField())),
            default=None,
            **text,
        ),
        "c_correct": Case(
            When(correct=True, then=Value("True")), When(correct=False, then=Value("False")), default=None, **text
        ),
    }
    responses = responses_with_scores(
        Response.objects.filter(challenge=challenge).select_related("challenge", "authorization")
    )
    return (
        responses.annotate(**columns)
        .order_by("block_number", "transaction_index", "log_index", "id")
        .values_list(*columns)
    )


@dataclass(frozen=True)
class Winners:
    challenge: Challenge
    earliest: ScoredResponse | None
    highest: ScoredResponse | None
    split: PrizeSplit

    @property
    def earliest_prize(self) -> Decimal | None:
        return self.split.earliest if self.earliest else None

    @property
    def highest_prize(self) -> Decimal | None:
        return self.split.highest if self.highest else None

    @property
    def operations(self) -> Decimal:
        """The 20 % share; with no correct response nothing is allocated at all."""
        return self.split.operations if self.earliest else Decimal("0")

    @property
    def unallocated(self) -> Decimal:
        """What nobody is due: the rounding dust, or the whole pot when no response is correct."""
        return self.split.total - self.operations - (self.earliest_prize or 0) - (self.highest_prize or 0)


def challenge_winners(*, challenge: Challenge) -> Winners:
    correct = responses_with_scores(
        Response.objects.filter(challenge=challenge, status=ResponseStatus.CONFIRMED, is_correct=True)
    ).select_related("challenge", "authorization")
    earliest = correct.order_by("block_number", "transaction_index", "log_index").first()
    highest = correct.order_by("-submission_stake", "block_number", "transaction_index", "log_index").first()
    return Winners(challenge=challenge, earliest=earliest, highest=highest, split=prize_split(challenge.staked_sum))


# How far along a payout is, least first: a response that won both prizes shows the one less far along.
_PAYOUT_PROGRESS: list[str] = [
    PayoutStatus.FAILED,
    PayoutStatus.DUE,
    PayoutStatus.VERIFYING,
    PayoutStatus.PAID,
    PayoutStatus.KEPT,
]


def response_outcomes(*, responses: list[Response]) -> dict[int, dict]:
    """The outcome of each confirmed claim of a resolved challenge among `responses` (rows of
    responses_with_scores), by id: {isCorrect, distanceMeters, prize, payoutStatus,
    payoutTransactionHash} (docs/protocol.md section 6, "What the player sees"). Claims not
    confirmed, or of a challenge not resolved, have none. One query for the payouts of the page.
    A response that won both prizes shows their sum, the status of the one less far along, and the
    transaction of the earliest prize once paid (else of the highest)."""
    scored = [r for r in responses if r.status == ResponseStatus.CONFIRMED and r.challenge.is_resolved]
    payouts: dict[int | None, list[Payout]] = {}
    if scored:
        rows = Payout.objects.filter(response_id__in=[r.pk for r in scored]).order_by("kind")
        for payout in rows:
            payouts.setdefault(payout.response_id, []).append(payout)
    outcomes = {}
    for response in scored:
        won = payouts.get(response.pk, [])
        status = min((p.status for p in won), key=_PAYOUT_PROGRESS.index, default=None)
        paid = [p.transaction_hash for p in won if p.status == PayoutStatus.PAID]
        distance = getattr(response, "distance_meters", None)
        outcomes[response.pk] = {
            "isCorrect": bool(response.is_correct),
            "distanceMeters": distance,
            "prize": f"{sum((p.amount for p in won), Decimal(0)):.6f}",
            "payoutStatus": status,
            "payoutTransactionHash": paid[0] if paid else None,
        }
    return outcomes
