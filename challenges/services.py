"""Writes to challenges: creation with a salted commitment, the lifecycle, and the sums that
verification moves. Resolution scores the responses, so it sits one layer up, in
responses/resolution.py (docs/architecture.md, "Layers")."""

import logging
from datetime import datetime, timedelta
from typing import TypedDict

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from challenges.coordinates import parse_coordinates
from config.public_cache import public_answers_mark_stale

from . import hooks
from .commitments import new_salt, solution_commitment_v1, terms_commitment
from .models import AnchorStatus, Challenge, ChallengeAnchor, ChallengeStatus

logger = logging.getLogger(__name__)


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
    challenge.solution_sha256 = solution_commitment_v1(
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
        public_answers_mark_stale()
    return challenge


def challenge_publish(*, challenge: Challenge) -> Challenge:
    """Draft to active, with its opening time, and its terms queued to be anchored on chain
    (docs/protocol.md section 6): one action for staff. The challenge accepts claims only once the
    anchor is confirmed deep enough (challenges/selectors.py, challenge_is_open); a demonstration
    challenge is never anchored. The database allows one active challenge; a second is refused by
    name."""
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
        if not challenge.is_demo:
            anchor_queue(challenge=challenge)
        public_answers_mark_stale()
    return challenge


def challenge_create_published(**fields) -> Challenge:
    """challenge_create, then challenge_publish: the one way a ready-to-play challenge is made
    outside the admin (the demo: responses/demo.py; the tests: conftest.py; bench/data.py;
    load/run.py). Takes challenge_create's arguments."""
    return challenge_publish(challenge=challenge_create(**fields))


def challenge_close(*, challenge: Challenge) -> Challenge:
    """Active to closed: payments mined after closed_at are late. Claims for payments mined before it
    are still taken until resolution starts (docs/protocol.md section 4, "Close, grace period and
    resolution")."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status != ChallengeStatus.ACTIVE:
            raise ChallengeStateError(f"Only an active challenge can be closed; this one is {challenge.status}.")
        challenge.status = ChallengeStatus.CLOSED
        challenge.closed_at = timezone.now()
        challenge.save(update_fields=["status", "closed_at"])
        public_answers_mark_stale()
    return challenge


def challenge_stake_moved(*, challenge_id: int, stake, count: int) -> None:
    """Move a challenge's staked sum and response count by a confirmed claim's stake (count +1) or a
    claim that leaves the confirmed ones (its stake negated, count -1), in the caller's transaction.
    F expressions: two claims confirmed at the same moment both count. The public answers
    show the sums: they are made stale here (config/public_cache.py)."""
    Challenge.objects.filter(pk=challenge_id).update(
        staked_sum=F("staked_sum") + stake, response_count=F("response_count") + count
    )
    public_answers_mark_stale()


# --- The anchor of a challenge's terms (docs/protocol.md section 6) ----------------------------
# Each transition is one conditional UPDATE on the current status, so a task run twice (a lost
# acknowledgement, the sweep) cannot move an anchor backwards. The chain app decides them
# (chain/anchors.py); the admin calls anchor_retry.


def _anchor_announce(challenge_id: int) -> None:
    """After commit: the chain app's receiver queues the task (challenges/hooks.py)."""

    def send() -> None:
        try:
            hooks.anchor_queued.send(sender=ChallengeAnchor, challenge_id=challenge_id)
        except Exception:  # noqa: BLE001 - the broker being down must not undo the publish
            # The anchor stays queued; the beat's sweep (chain/tasks.py, sweep_anchors) queues it again.
            logger.warning("could not queue the anchor of challenge %s", challenge_id)

    transaction.on_commit(send)


class AnchorValues(TypedDict):
    solution_sha256: str
    terms_sha256: str
    opens_at: int
    proximity_threshold_m: int


def anchor_values(*, challenge: Challenge) -> AnchorValues:
    """What is anchored for a published challenge: its solution commitment, the terms hash of the
    texts as the API serves them, the opening time floored to the second, the threshold (0: none)."""
    if challenge.start_timestamp is None:
        raise ChallengeStateError("Only a published challenge (one with an opening time) is anchored.")
    return {
        "solution_sha256": challenge.solution_sha256,
        "terms_sha256": terms_commitment(
            challenge_id=challenge.pk,
            poem_title=challenge.poem_title,
            poem_text=challenge.poem_text,
            instructions_text=challenge.instructions_text,
        ),
        "opens_at": int(challenge.start_timestamp.timestamp()),
        "proximity_threshold_m": challenge.proximity_threshold_m or 0,
    }


def anchor_queue(*, challenge: Challenge) -> ChallengeAnchor:
    """The anchor of a just-published challenge, queued for the worker, with the values it will
    send and the registry it goes to (ANCHOR_REGISTRY_ADDRESS, empty when unset: the worker then
    fails it and says so). In the caller's transaction; the task is queued once it commits."""
    if challenge.is_demo:
        raise ChallengeStateError("A demonstration challenge is never anchored.")
    anchor = ChallengeAnchor.objects.create(
        challenge=challenge,
        registry_address=settings.ANCHOR_REGISTRY_ADDRESS or "",
        **anchor_values(challenge=challenge),
    )
    _anchor_announce(challenge.pk)
    return anchor


def anchor_sent(*, challenge_id: int, transaction_hash: str, sender_address: str, nonce: int | None) -> bool:
    """Queued to sent: the worker sent the anchor transaction (or adopted one already on chain,
    nonce None). Also sent to sent, for a re-send that replaced a dropped transaction."""
    return bool(
        ChallengeAnchor.objects.filter(
            challenge_id=challenge_id, status__in=[AnchorStatus.QUEUED, AnchorStatus.SENT]
        ).update(
            status=AnchorStatus.SENT,
            transaction_hash=transaction_hash.lower(),
            sender_address=sender_address,
            nonce=nonce,
            sent_at=timezone.now(),
            attempts=F("attempts") + (0 if nonce is None else 1),
            last_error="",
            updated_at=timezone.now(),
        )
    )


def anchor_confirmed(
    *, challenge_id: int, transaction_hash: str, block_number: int, block_hash: str, block_timestamp: datetime
) -> bool:
    """Sent to confirmed: the anchor's log is CHAIN_CONFIRMATIONS deep and holds this challenge's
    values. The challenge opens to claims; the public answers go stale (the active one shows it now)."""
    changed = ChallengeAnchor.objects.filter(
        challenge_id=challenge_id, status=AnchorStatus.SENT, transaction_hash=transaction_hash.lower()
    ).update(
        status=AnchorStatus.CONFIRMED,
        block_number=block_number,
        block_hash=block_hash.lower(),
        block_timestamp=block_timestamp,
        confirmed_at=timezone.now(),
        last_error="",
        updated_at=timezone.now(),
    )
    if changed:
        public_answers_mark_stale()
    return bool(changed)


def anchor_failed(*, challenge_id: int, error: str) -> bool:
    """Queued or sent to failed: the chain refused it or holds other terms for this id. Staff read
    the error in the admin and retry (anchor_retry) once it is fixed."""
    return bool(
        ChallengeAnchor.objects.filter(
            challenge_id=challenge_id, status__in=[AnchorStatus.QUEUED, AnchorStatus.SENT]
        ).update(status=AnchorStatus.FAILED, last_error=error[:2000], updated_at=timezone.now())
    )


def anchor_requeue(*, challenge_id: int, error: str) -> bool:
    """Sent back to queued: its transaction was dropped (or stuck too long), so the next step checks
    the registry again and sends anew."""
    return bool(
        ChallengeAnchor.objects.filter(challenge_id=challenge_id, status=AnchorStatus.SENT).update(
            status=AnchorStatus.QUEUED, last_error=error[:2000], updated_at=timezone.now()
        )
    )


def anchor_note(*, challenge_id: int, error: str) -> None:
    """Record why a step could not finish (no node answered, ...) without changing the status: the
    admin shows it, and the task tries again."""
    ChallengeAnchor.objects.filter(
        challenge_id=challenge_id, status__in=[AnchorStatus.QUEUED, AnchorStatus.SENT]
    ).update(last_error=error[:2000], updated_at=timezone.now())


def anchor_touch(*, challenge_id: int) -> None:
    """A step ran and found nothing to do yet (the transaction is not deep enough): the sweep leaves
    the anchor alone while its task is alive."""
    ChallengeAnchor.objects.filter(
        challenge_id=challenge_id, status__in=[AnchorStatus.QUEUED, AnchorStatus.SENT]
    ).update(updated_at=timezone.now())


def anchors_stale(*, older_than_seconds: float) -> list[int]:
    """Challenge ids of anchors left queued or sent without a step for that long: a lost message or
    a dead worker. The beat queues them again (chain/tasks.py, sweep_anchors)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        ChallengeAnchor.objects.filter(
            status__in=[AnchorStatus.QUEUED, AnchorStatus.SENT], updated_at__lt=cutoff
        ).values_list("challenge_id", flat=True)
    )


def anchor_is_stuck(*, anchor: ChallengeAnchor) -> bool:
    """Queued or sent and not moved for CHAIN_SWEEP_STALE_SECONDS: staff may retry it."""
    cutoff = timezone.now() - timedelta(seconds=settings.CHAIN_SWEEP_STALE_SECONDS)
    return anchor.status in (AnchorStatus.QUEUED, AnchorStatus.SENT) and anchor.updated_at < cutoff


def anchor_retryable(*, challenge: Challenge) -> bool:
    """Whether staff may retry the challenge's anchor now: it failed, or it is stuck."""
    anchor = ChallengeAnchor.objects.filter(challenge=challenge).first()
    return anchor is not None and (anchor.status == AnchorStatus.FAILED or anchor_is_stuck(anchor=anchor))


def anchor_retry(*, challenge: Challenge) -> ChallengeAnchor:
    """Staff's "Retry anchor": a failed or stuck anchor goes back to queued, for the registry now
    configured, and its task is queued. The values are those of the published challenge, as before;
    the worker first looks for an anchor already on chain and adopts it when it holds the same
    values (so a retry never sends twice what is already there)."""
    with transaction.atomic():
        anchor = ChallengeAnchor.objects.select_for_update().filter(challenge=challenge).first()
        if anchor is None:
            raise ChallengeStateError("This challenge has no anchor to retry.")
        if anchor.status == AnchorStatus.CONFIRMED:
            raise ChallengeStateError("This challenge's anchor is already confirmed on chain.")
        if anchor.status != AnchorStatus.FAILED and not anchor_is_stuck(anchor=anchor):
            raise ChallengeStateError("This challenge's anchor is on its way; retry it only if it fails or is stuck.")
        anchor.status = AnchorStatus.QUEUED
        anchor.registry_address = settings.ANCHOR_REGISTRY_ADDRESS or ""
        anchor.last_error = ""
        anchor.save(update_fields=["status", "registry_address", "last_error", "updated_at"])
        _anchor_announce(challenge.pk)
    return anchor
