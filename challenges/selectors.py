"""Reads of challenges, and the SQL distance every score is computed with (resolution decides
`is_correct` with it; responses/selectors.py computes it again on read)."""

import math
from decimal import Decimal

from django.db.models import CharField, F, FloatField, Func, Q, QuerySet, Value
from django.db.models.functions import ASin, Cast, Cos, Least, Power, Radians, Sin, Sqrt

from .models import AnchorStatus, Challenge, ChallengeAnchor, ChallengeResolution, ChallengeStatus
from .scoring import EARTH_RADIUS_M


class CoordinatePart(Func):
    """Latitude (part 1) or longitude (part 2) of a canonical "lat, lon" text, still as text."""

    output_field = CharField()

    def __init__(self, expression, *, part: int) -> None:
        self.part = part
        super().__init__(expression)

    def as_sql(self, compiler, connection, function=None, template=None, arg_joiner=None, **extra_context):
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


def challenge_resolution(*, challenge: Challenge) -> ChallengeResolution | None:
    return ChallengeResolution.objects.filter(challenge=challenge).first()


# Open: active, and its terms anchored on chain deep enough (docs/protocol.md section 6), or a
# demonstration challenge (never anchored). The anchor is `confirmed` only once it is
# CHAIN_CONFIRMATIONS deep and holds the challenge's values (chain/anchors.py).
OPEN = Q(status=ChallengeStatus.ACTIVE) & (Q(is_demo=True) | Q(anchor__status=AnchorStatus.CONFIRMED))


def challenge_is_open(*, challenge_id: int) -> bool:
    """Whether the challenge accepts claims now."""
    return Challenge.objects.filter(OPEN, pk=challenge_id).exists()


# Claims are taken for a challenge that was open at some time: close means that no payment mined
# after it counts, not that no claim posted after it does (docs/protocol.md section 4, "Close, grace
# period and resolution"). A claim posted once resolution started is stored too, and can only end
# rejected (responses/barrier.py). A draft, or a challenge whose terms never reached the chain, was
# never open: no payment for it can count.
WAS_OPENED = Q(status__in=[ChallengeStatus.ACTIVE, ChallengeStatus.CLOSED, ChallengeStatus.RESOLVED]) & (
    Q(is_demo=True) | Q(anchor__status=AnchorStatus.CONFIRMED)
)


def challenge_accepts_claims(*, challenge_id: int) -> bool:
    """Whether a claim for the challenge is stored (and verified) now."""
    return Challenge.objects.filter(WAS_OPENED, pk=challenge_id).exists()


def challenge_get_active() -> Challenge | None:
    """The open challenge shown to players: active and anchored (or a demonstration). An active
    challenge whose anchor is still on its way is not shown."""
    return Challenge.objects.filter(OPEN).select_related("anchor").first()


def challenge_anchor(*, challenge: Challenge) -> ChallengeAnchor | None:
    return ChallengeAnchor.objects.filter(challenge=challenge).first()


def challenge_list_resolved() -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(status=ChallengeStatus.RESOLVED)
        .select_related("anchor")
        .order_by("-resolved_at", "-id")
    )
