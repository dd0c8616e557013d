"""Resolution: scoring every confirmed response of a challenge, the reveal, and the payouts.

Started by staff (a row that refuses a second start) and run by the worker in a few set-based
chunks that write only the correct responses; it ends with the reveal and the payouts in one
transaction. docs/architecture.md, "Resolution", says why it is shaped so. It reads and writes
responses, so it lives here, above challenges (docs/architecture.md, "Layers")."""

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Value
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone

from challenges.coordinates import parse_coordinates
from challenges.models import (
    Challenge,
    ChallengeResolution,
    ChallengeStatus,
    Payout,
    PayoutKind,
    PayoutStatus,
    ResolutionStatus,
)
from challenges.payouts import PayoutError
from challenges.selectors import distance_to_solution_sql, latitude_band
from challenges.services import RESOLUTION_STARTED, ChallengeStateError
from config.public_cache import public_answers_mark_stale

from .barrier import STILL_ACTIVE, grace_text, resolution_waits_for
from .models import Response, ResponseStatus
from .selectors import challenge_winners


def challenge_resolve_start(
    *, challenge: Challenge, user=None, enqueue: bool = True, wait_for_late_claims: bool = True
) -> ChallengeResolution:
    """Staff start resolution: the checks, the close of an active challenge, and the resolution
    row; the scoring runs in the worker (responses.tasks.resolve_challenge), queued on commit.

    Refused while claims are still being verified (a late confirmation would go unscored), until
    the grace period after the close has passed and the ledger has read past the close
    (responses/barrier.py, resolution_waits_for), and when a resolution of this challenge was
    already started: the one-to-one row is the guard, so two starts at the same moment cannot both
    pass. From the row on, the challenge's sums never move (responses/barrier.py). An active
    challenge is closed here only when there is no grace period to wait for.

    wait_for_late_claims=False skips the grace period and the ledger: for challenge_resolve alone
    (the seeding command, tests and benchmarks resolve in one process, with no late claim to wait for)."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status not in (ChallengeStatus.ACTIVE, ChallengeStatus.CLOSED):
            raise ChallengeStateError(
                f"Only an active or closed challenge can be resolved; this one is {challenge.status}."
            )
        if ChallengeResolution.objects.filter(challenge=challenge).exists():
            raise ChallengeStateError(RESOLUTION_STARTED)
        pending = Response.objects.filter(challenge=challenge, status=ResponseStatus.PENDING).count()
        if pending:
            raise ChallengeStateError(
                f"{pending} claim(s) are still being verified; resolve once they are confirmed or rejected."
            )
        if challenge.status == ChallengeStatus.ACTIVE:
            if wait_for_late_claims and settings.CHALLENGE_CLOSE_GRACE_SECONDS > 0:
                raise ChallengeStateError(STILL_ACTIVE.format(grace=grace_text()))
            # Closed at once, in this transaction: a claim stored from now on cannot move the sums.
            challenge.status = ChallengeStatus.CLOSED
            challenge.closed_at = timezone.now()
            challenge.save(update_fields=["status", "closed_at"])
            public_answers_mark_stale()
        if wait_for_late_claims and (why := resolution_waits_for(challenge=challenge)):
            raise ChallengeStateError(why)
        total = Response.objects.filter(challenge=challenge, status=ResponseStatus.CONFIRMED).count()
        try:
            with transaction.atomic():
                resolution = ChallengeResolution.objects.create(challenge=challenge, total=total, started_by=user)
        except IntegrityError as exc:  # the same start from another request, committed first
            raise ChallengeStateError(RESOLUTION_STARTED) from exc
        if enqueue:
            challenge_id = challenge.pk
            transaction.on_commit(lambda: _enqueue_resolution(challenge_id))
    return resolution


def _enqueue_resolution(challenge_id: int) -> None:
    from .tasks import resolve_challenge

    resolve_challenge.delay(challenge_id)


def challenge_resolve_run(*, challenge_id: int, chunk_size: int | None = None) -> ChallengeResolution:
    """The worker's part: score the confirmed responses in chunks of `chunk_size` by id, then
    reveal. Each chunk is one UPDATE that writes `is_correct = true` on the correct responses only
    (every other row is read, not written) and moves the resolution's progress in the same
    transaction. Safe to run again after a worker died (it resumes at the last committed chunk) and
    side by side with itself (each chunk locks the resolution row)."""
    chunk_size = chunk_size or settings.CHALLENGE_RESOLVE_CHUNK
    ChallengeResolution.objects.filter(challenge_id=challenge_id).update(runs=F("runs") + 1)
    while True:
        with transaction.atomic():
            resolution = ChallengeResolution.objects.select_for_update().get(challenge_id=challenge_id)
            if resolution.status == ResolutionStatus.DONE:
                return resolution
            if not _resolve_next_chunk(resolution, chunk_size=chunk_size):
                break
    return _resolve_finish(challenge_id=challenge_id)


def _resolve_next_chunk(resolution: ChallengeResolution, *, chunk_size: int) -> bool:
    """Score the next chunk (the caller holds the resolution row locked). False when none is left."""
    challenge = resolution.challenge
    remaining = Response.objects.filter(
        challenge=challenge, status=ResponseStatus.CONFIRMED, id__gt=resolution.last_response_id
    )
    # The id `chunk_size` rows on (an index-only look-up on response_challenge_status), or the last.
    ids = remaining.order_by("id").values_list("id", flat=True)
    upper = next(iter(ids[chunk_size - 1 : chunk_size]), None)
    count = chunk_size
    if upper is None:
        upper = remaining.aggregate(last=Max("id"))["last"]
        if upper is None:
            return False
        count = remaining.count()
    solution = parse_coordinates(challenge.solution).text
    threshold_m = challenge.proximity_threshold_m or 0
    distance = distance_to_solution_sql(solution=solution)
    # Only the latitude band that can hold a correct guess is read (an index range), and only the
    # correct responses are written: `is_correct` is in the winner indexes' predicates, so each
    # write costs every index of the table; writing a million rows was the old 50 s.
    band = latitude_band(solution=solution, threshold_m=threshold_m)
    correct = (
        remaining.filter(id__lte=upper, submission_lat__range=band)
        .filter(LessThanOrEqual(distance, Value(float(threshold_m))))
        .update(is_correct=True)
    )
    resolution.last_response_id = upper
    resolution.scored += count
    resolution.correct += correct
    resolution.save(update_fields=["last_response_id", "scored", "correct", "updated_at"])
    return True


def _resolve_finish(*, challenge_id: int) -> ChallengeResolution:
    """Reveal and create the payouts in one transaction: the public sees the challenge resolved
    with every score and every prize, or not resolved at all. Exactly once: the resolution row is
    locked and marked done here, and the payouts are one per prize in the database."""
    with transaction.atomic():
        resolution = ChallengeResolution.objects.select_for_update().get(challenge_id=challenge_id)
        if resolution.status == ResolutionStatus.DONE:
            return resolution
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        now = timezone.now()
        challenge.status = ChallengeStatus.RESOLVED
        challenge.resolved_at = now
        challenge.save(update_fields=["status", "resolved_at"])
        payouts = payouts_create(challenge=challenge)
        public_answers_mark_stale()  # the reveal, every score and every prize, at once
        resolution.status = ResolutionStatus.DONE
        resolution.finished_at = now
        resolution.payouts = len(payouts)
        resolution.save(update_fields=["status", "finished_at", "payouts", "updated_at"])
    return resolution


def challenge_resolve(*, challenge: Challenge, user=None) -> Challenge:
    """Resolve in this process, start to finish (the seeding command, tests, the benchmark): the
    same steps the worker runs after staff start it from the admin, payouts included, without the
    wait for late claims (the grace period and the ledger: responses/barrier.py)."""
    challenge_resolve_start(challenge=challenge, user=user, enqueue=False, wait_for_late_claims=False)
    challenge_resolve_run(challenge_id=challenge.pk)
    challenge.refresh_from_db()
    return challenge


def resolutions_stale_running(*, older_than_seconds: float) -> list[int]:
    """Challenges whose resolution made no progress for a while: its worker died or its message
    was lost. Queued again by the beat (responses.tasks.sweep_resolutions)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        ChallengeResolution.objects.filter(status=ResolutionStatus.RUNNING, updated_at__lt=cutoff).values_list(
            "challenge_id", flat=True
        )
    )


def payouts_create(*, challenge: Challenge) -> list[Payout]:
    """The payout rows of a resolved challenge: earliest and highest to their winners' addresses
    (one response may win both, as two prizes), operations to OPERATIONS_ADDRESS. With no correct
    response nothing is due. Idempotent: existing rows are kept as they are."""
    if challenge.status != ChallengeStatus.RESOLVED:
        raise PayoutError("Payouts exist only for a resolved challenge.")
    winners = challenge_winners(challenge=challenge)
    # Both are picked from the same correct responses: both or neither (the check narrows the types).
    if winners.earliest is None or winners.highest is None:
        return []
    prizes: list[tuple[str, object, str, Decimal, str]] = [
        (PayoutKind.EARLIEST, winners.earliest, winners.earliest.submitter_address, winners.split.earliest, ""),
        (PayoutKind.HIGHEST, winners.highest, winners.highest.submitter_address, winners.split.highest, ""),
    ]
    operations_address = settings.OPERATIONS_ADDRESS
    prizes.append(
        (
            PayoutKind.OPERATIONS,
            None,
            operations_address or settings.TREASURY_ADDRESS,
            winners.split.operations,
            # No separate operations wallet: the share simply stays where the stakes are.
            "" if operations_address else PayoutStatus.KEPT,
        )
    )
    rows = []
    with transaction.atomic():
        for kind, response, address, amount, status in prizes:
            if amount <= 0:
                continue
            row, _ = Payout.objects.get_or_create(
                challenge=challenge,
                kind=kind,
                defaults={
                    "response": response,
                    "address": address,
                    "amount": amount,
                    "status": status or PayoutStatus.DUE,
                },
            )
            rows.append(row)
    return rows
