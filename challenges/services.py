"""Writes to challenges: creation with a salted commitment, the lifecycle, and resolution."""

import math

from django.db import IntegrityError, transaction
from django.db.models import F, FloatField, Value
from django.db.models.functions import ASin, Cast, Cos, Least, Power, Radians, Sin, Sqrt
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone

from responses.coordinates import parse_coordinates
from responses.models import Response, ResponseStatus

from .commitments import new_salt, solution_commitment
from .models import Challenge, ChallengeStatus
from .scoring import EARTH_RADIUS_M


class ChallengeStateError(Exception):
    """A lifecycle step that the challenge's state does not allow. The message says why."""


def challenge_create(
    *,
    poem_title: str,
    poem_text: str,
    instructions_text: str = "",
    proximity_threshold_m: int | None,
    solution: str,
    is_demo: bool = False,
) -> Challenge:
    """A draft with its solution canonicalised and committed to under a fresh salt. The id is
    part of the commitment, so the row is written first and the hash set in the same transaction."""
    text = parse_coordinates(solution).text
    with transaction.atomic():
        challenge = Challenge.objects.create(
            poem_title=poem_title,
            poem_text=poem_text,
            instructions_text=instructions_text,
            proximity_threshold_m=proximity_threshold_m,
            solution=text,
            solution_salt=new_salt(),
            solution_sha256="",
            is_demo=is_demo,
        )
        challenge_set_solution(challenge=challenge, solution=text)
    return challenge


def challenge_set_solution(*, challenge: Challenge, solution: str) -> Challenge:
    """Set (or, on a draft, change) the solution: canonical text, a new salt, the commitment."""
    if challenge.status != ChallengeStatus.DRAFT:
        raise ChallengeStateError("The solution of a published challenge cannot change.")
    challenge.solution = parse_coordinates(solution).text
    challenge.solution_salt = new_salt()
    challenge.solution_sha256 = solution_commitment(
        challenge_id=challenge.pk, text=challenge.solution, salt=challenge.solution_salt
    )
    challenge.save(update_fields=["solution", "solution_salt", "solution_sha256"])
    return challenge


def challenge_publish(*, challenge: Challenge) -> Challenge:
    """Draft to active. The database allows one active challenge; a second is refused by name."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status != ChallengeStatus.DRAFT:
            raise ChallengeStateError(f"Only a draft can be published; this challenge is {challenge.status}.")
        active = Challenge.objects.filter(status=ChallengeStatus.ACTIVE).first()
        if active is not None:
            raise ChallengeStateError(f"{active} is already active; close it before publishing another.")
        challenge.status = ChallengeStatus.ACTIVE
        challenge.start_timestamp = timezone.now()
        try:
            with transaction.atomic():
                challenge.save(update_fields=["status", "start_timestamp"])
        except IntegrityError as exc:  # another publish won the race
            raise ChallengeStateError("Another challenge was published at the same moment.") from exc
    return challenge


def challenge_close(*, challenge: Challenge) -> Challenge:
    """Active to closed: no new claims; payments mined after closed_at are late."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status != ChallengeStatus.ACTIVE:
            raise ChallengeStateError(f"Only an active challenge can be closed; this one is {challenge.status}.")
        challenge.status = ChallengeStatus.CLOSED
        challenge.closed_at = timezone.now()
        challenge.save(update_fields=["status", "closed_at"])
    return challenge


def distance_expression(*, lat: float, lon: float):
    """Haversine from each row's submission to (lat, lon), in metres, as one SQL expression."""
    phi2, lambda2 = math.radians(lat), math.radians(lon)
    phi1 = Radians(Cast(F("submission_lat"), FloatField()))
    lambda1 = Radians(Cast(F("submission_lon"), FloatField()))
    half_dphi = (phi1 - Value(phi2)) / Value(2.0)
    half_dlambda = (lambda1 - Value(lambda2)) / Value(2.0)
    a = Power(Sin(half_dphi), 2) + Cos(phi1) * Value(math.cos(phi2)) * Power(Sin(half_dlambda), 2)
    return Value(2.0 * EARTH_RADIUS_M) * ASin(Sqrt(Least(Value(1.0), a)))


def challenge_resolve(*, challenge: Challenge) -> Challenge:
    """Score every confirmed response in the database in bulk (one UPDATE statement whatever
    the count), then reveal the solution and its salt. An active challenge is closed first.
    Refused while claims are still being verified: a late confirmation would go unscored."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status not in (ChallengeStatus.ACTIVE, ChallengeStatus.CLOSED):
            raise ChallengeStateError(
                f"Only an active or closed challenge can be resolved; this one is {challenge.status}."
            )
        pending = Response.objects.filter(challenge=challenge, status=ResponseStatus.PENDING).count()
        if pending:
            raise ChallengeStateError(
                f"{pending} claim(s) are still being verified; resolve once they are confirmed or rejected."
            )
        now = timezone.now()
        solution = parse_coordinates(challenge.solution)
        distance = distance_expression(lat=float(solution.lat), lon=float(solution.lon))
        threshold = challenge.proximity_threshold_m or 0
        # One UPDATE writes both columns: every row is rewritten once, not three times (a million
        # rows per rewrite). distance_m is a double, the same type as the expression, so comparing
        # the expression is comparing the stored value.
        Response.objects.filter(challenge=challenge, status=ResponseStatus.CONFIRMED).update(
            distance_m=distance,
            is_correct=LessThanOrEqual(distance, Value(float(threshold))),
        )
        if challenge.status == ChallengeStatus.ACTIVE:
            challenge.closed_at = now
        challenge.status = ChallengeStatus.RESOLVED
        challenge.resolved_at = now
        challenge.save(update_fields=["status", "closed_at", "resolved_at"])
    return challenge
