"""Writes to challenges: creation with a salted commitment, the lifecycle, and the sums that
verification moves. Resolution scores the responses, so it sits one layer up, in
responses/resolution.py (docs/architecture.md, "Layers")."""

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from challenges.coordinates import parse_coordinates

from .cache import invalidate_public_challenge_cache
from .commitments import new_salt, solution_commitment
from .models import Challenge, ChallengeStatus


class ChallengeStateError(Exception):
    """A lifecycle step that the challenge's state does not allow. The message says why."""


RESOLUTION_STARTED = "its resolution was already started; its progress is on the challenge's page."


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


def challenge_save(*, challenge: Challenge, solution: str = "") -> Challenge:
    """Staff's save of a challenge's form (responses/admin/challenge.py). A new one is written first
    (the commitment binds the id), then committed to `solution`; an existing one is saved and, when
    a different solution was typed (a draft: the admin refuses any change to a published one), gets
    a new salt and commitment. One transaction."""
    with transaction.atomic():
        if challenge.pk is None:
            challenge.solution = solution
            challenge.solution_salt = new_salt()
            challenge.solution_sha256 = ""
            challenge.save()
            challenge_set_solution(challenge=challenge, solution=solution)
        else:
            challenge.save()
            if solution and solution != challenge.solution:
                challenge_set_solution(challenge=challenge, solution=solution)
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


def challenge_create_published(**fields) -> Challenge:
    """challenge_create, then challenge_publish: the one way a ready-to-play challenge is made
    outside the admin (the demo: responses/demo.py; the tests: conftest.py; bench/data.py;
    load/run.py). Takes challenge_create's arguments."""
    return challenge_publish(challenge=challenge_create(**fields))


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


def challenge_stake_moved(*, challenge_id: int, stake, count: int) -> None:
    """Move a challenge's staked sum and response count by a confirmed claim's stake (count +1) or a
    claim that leaves the confirmed ones (its stake negated, count -1), in the caller's transaction.
    F expressions: two claims confirmed at the same moment both count. update() fires no signal, so
    the public answers are made stale here (challenges/cache.py)."""
    Challenge.objects.filter(pk=challenge_id).update(
        staked_sum=F("staked_sum") + stake, response_count=F("response_count") + count
    )
    invalidate_public_challenge_cache()
