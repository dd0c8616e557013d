"""Reads of challenges and their scores. Winners are indexed look-ups on the correct responses
(the only rows resolution writes), so their cost does not grow with the number of responses."""

import math
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.db.models import BooleanField, Case, CharField, F, FloatField, Func, Q, QuerySet, Value, When
from django.db.models.functions import ASin, Cast, Coalesce, Cos, Least, NullIf, Power, Radians, Round, Sin, Sqrt

from responses.models import Response, ResponseStatus

from .models import Challenge, ChallengeResolution, ChallengeStatus
from .scoring import EARTH_RADIUS_M, PrizeSplit, prize_split


class CoordinatePart(Func):
    """Latitude (part 1) or longitude (part 2) of a canonical "lat, lon" text, still as text."""

    output_field = CharField()

    def __init__(self, expression, *, part: int) -> None:
        self.part = part
        super().__init__(expression)

    def as_sql(self, compiler, connection, **extra_context):
        text, params = compiler.compile(self.source_expressions[0])
        return f"split_part({text}, ', ', {int(self.part)})", params

    def as_sqlite(self, compiler, connection, **extra_context):  # make run's fallback database
        text, params = compiler.compile(self.source_expressions[0])
        if self.part == 1:
            return f"substr({text}, 1, instr({text}, ', ') - 1)", params * 2
        return f"substr({text}, instr({text}, ', ') + 2)", params * 2


def solution_part_sql(*, field: str, part: int):
    """Latitude (1) or longitude (2) of a canonical "lat, lon" text column, as a double."""
    return Cast(CoordinatePart(F(field), part=part), FloatField())


def solution_value_sql(*, text: str, part: int):
    """The same number as `solution_part_sql`, from the text known in Python: PostgreSQL parses the
    same decimal digits with the same function, so both give the same double to the last bit."""
    return Cast(Value(text.split(", ")[part - 1]), FloatField())


def distance_sql(*, lat, lon):
    """Haversine, in metres, from each row's submission to the point (lat, lon) given as SQL double
    expressions. One expression serves resolution (which decides `is_correct` with it) and every
    read of a distance (which computes it again per page), so what a page shows is exactly what
    decided correctness: same expression, same database, same doubles."""
    phi1 = Radians(Cast(F("submission_lat"), FloatField()))
    lambda1 = Radians(Cast(F("submission_lon"), FloatField()))
    phi2, lambda2 = Radians(lat), Radians(lon)
    half_dphi = (phi1 - phi2) / Value(2.0)
    half_dlambda = (lambda1 - lambda2) / Value(2.0)
    a = Power(Sin(half_dphi), 2) + Cos(phi1) * Cos(phi2) * Power(Sin(half_dlambda), 2)
    return Value(2.0 * EARTH_RADIUS_M) * ASin(Sqrt(Least(Value(1.0), a)))


def distance_to_solution_sql(*, solution: str):
    """Distance to a challenge's solution known in Python (resolution, a one-challenge export)."""
    return distance_sql(lat=solution_value_sql(text=solution, part=1), lon=solution_value_sql(text=solution, part=2))


def latitude_band(*, solution: str, threshold_m: int) -> tuple[Decimal, Decimal]:
    """The latitudes a correct guess can have: a great-circle distance is at least the earth's
    radius times the difference of latitudes, so no response outside (solution latitude ± threshold
    / radius) can be within the threshold. Widened by two micro-degrees (about 0.2 m) so that the
    rounding of the haversine in doubles can never put a correct response outside. Resolution reads
    only this band through the (challenge, submission_lat) index; the haversine still decides."""
    lat = Decimal(solution.split(", ")[0])
    degrees = math.degrees(threshold_m / EARTH_RADIUS_M)
    margin = Decimal(math.ceil(degrees * 1_000_000) + 2) / 1_000_000
    return lat - margin, lat + margin


def distance_to_own_solution_sql():
    """Distance to each row's own challenge's solution (a page that spans challenges): needs the
    challenge joined."""
    return distance_sql(
        lat=solution_part_sql(field="challenge__solution", part=1),
        lon=solution_part_sql(field="challenge__solution", part=2),
    )


def responses_with_scores(queryset: QuerySet[Response]) -> QuerySet[Response]:
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
    text = {"output_field": CharField()}
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
    responses = responses_with_scores(Response.objects.filter(challenge=challenge).select_related("challenge"))
    return (
        responses.annotate(**columns)
        .order_by("block_number", "transaction_index", "log_index", "id")
        .values_list(*columns)
    )


def challenge_resolution(*, challenge: Challenge) -> ChallengeResolution | None:
    return ChallengeResolution.objects.filter(challenge=challenge).first()


def challenge_get_active() -> Challenge | None:
    return Challenge.objects.filter(status=ChallengeStatus.ACTIVE).first()


def challenge_list_resolved() -> QuerySet[Challenge]:
    return Challenge.objects.filter(status=ChallengeStatus.RESOLVED).order_by("-resolved_at", "-id")


@dataclass(frozen=True)
class Winners:
    challenge: Challenge
    earliest: Response | None
    highest: Response | None
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
    ).select_related("challenge")
    earliest = correct.order_by("block_number", "transaction_index", "log_index").first()
    highest = correct.order_by("-submission_stake", "block_number", "transaction_index", "log_index").first()
    return Winners(challenge=challenge, earliest=earliest, highest=highest, split=prize_split(challenge.staked_sum))
