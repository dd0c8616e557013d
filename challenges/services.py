"""Writes to challenges: creation with a salted commitment, publishing (which queues the pot's `open`),
the opening's transitions that the chain app decides (chain/pot/opening.py), and the pot's state and
the chain's clock that its follower writes (chain/pot/follow.py)."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.public_cache import public_answers_mark_stale

from .commitments import new_salt, solution_commitment
from .coordinates import micro_degrees, parse_coordinates
from .models import ChainClock, Challenge, ChallengeStatus, OpeningStatus, PotOpening, PotState
from .ports import chain_port
from .terms import TermsError, challenge_terms, terms_digest

logger = logging.getLogger(__name__)


class ChallengeStateError(Exception):
    """A lifecycle step that the challenge's state does not allow. The message says why."""


def _commit_solution(challenge: Challenge) -> None:
    """The solution commitment for the pot configured now (docs/protocol.md section 1): the chain
    and the pot are bound in, so a draft is committed again at publish."""
    lat_e6, lon_e6 = micro_degrees(challenge.solution)
    challenge.solution_sha256 = solution_commitment(
        chain_id=settings.CHAIN_ID,
        pot=settings.POT_ADDRESS or "0x" + "00" * 20,
        challenge_id=challenge.pk,
        lat_e6=lat_e6,
        lon_e6=lon_e6,
        salt=challenge.solution_salt,
    )


def challenge_set_solution(*, challenge: Challenge, solution: str) -> Challenge:
    """Set (or, on a draft, change) the solution: canonical text, a new salt, the commitment."""
    if challenge.status != ChallengeStatus.DRAFT:
        raise ChallengeStateError("The solution of a published challenge cannot change.")
    challenge.solution = parse_coordinates(solution).text
    challenge.solution_salt = new_salt()
    _commit_solution(challenge)
    challenge.save(update_fields=["solution", "solution_salt", "solution_sha256", "updated_at"])
    return challenge


def challenge_create(
    *,
    poem_title: str,
    poem_text: str,
    instructions_text: str = "",
    proximity_threshold_m: int | None,
    solution: str,
    **terms,
) -> Challenge:
    """A draft with its solution canonicalised and committed to under a fresh salt. The id is part
    of the commitment, so the row is written first and the hash set in the same transaction. `terms`:
    min_stake, bond, closes_at, solution_deadline, guess_window_seconds (defaults from settings)."""
    with transaction.atomic():
        challenge = Challenge.objects.create(
            poem_title=poem_title,
            poem_text=poem_text,
            instructions_text=instructions_text,
            proximity_threshold_m=proximity_threshold_m,
            solution=parse_coordinates(solution).text,
            solution_salt=new_salt(),
            solution_sha256="",
            bond=terms.pop("bond", settings.POT_BOND_USDC),
            guess_window_seconds=terms.pop("guess_window_seconds", settings.POT_GUESS_WINDOW_SECONDS),
            **terms,
        )
        challenge_set_solution(challenge=challenge, solution=challenge.solution)
    return challenge


def challenge_save(*, challenge: Challenge, solution: str = "") -> Challenge:
    """Staff's save of a challenge's form (responses/admin/challenge.py). A new one is written first
    (the commitment binds the id), then committed to `solution`; an existing draft gets a new salt
    and commitment when a different solution was typed. One transaction."""
    with transaction.atomic():
        if challenge.pk is None:
            challenge.solution = parse_coordinates(solution).text
            challenge.solution_salt = new_salt()
            challenge.solution_sha256 = ""
            challenge.save()
            challenge_set_solution(challenge=challenge, solution=challenge.solution)
        else:
            challenge.save()
            if solution and parse_coordinates(solution).text != challenge.solution:
                challenge_set_solution(challenge=challenge, solution=solution)
        public_answers_mark_stale()
    return challenge


def challenge_publish(*, challenge: Challenge, now: datetime | None = None) -> Challenge:
    """Draft to published: the opening time is now, the close and the deadlines fixed from what staff
    chose (or the settings' defaults), the solution committed for the configured pot, and the pot's
    `open` queued for the worker with exactly these terms. Players can stake once the open is on
    chain CHAIN_CONFIRMATIONS deep. Terms the pot would refuse are refused here, by name."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if challenge.status != ChallengeStatus.DRAFT:
            raise ChallengeStateError(f"Only a draft can be published; this challenge is {challenge.status}.")
        if not settings.POT_ADDRESS:
            raise ChallengeStateError("No pot is configured (POT_ADDRESS), so no challenge can open.")
        challenge.opens_at = now.replace(microsecond=0)
        if challenge.closes_at is None:
            challenge.closes_at = challenge.opens_at + timedelta(seconds=settings.POT_DEFAULT_OPEN_SECONDS)
        if challenge.solution_deadline is None:
            challenge.solution_deadline = challenge.closes_at + timedelta(seconds=settings.POT_SOLUTION_DELAY_SECONDS)
        _commit_solution(challenge)
        try:
            terms = challenge_terms(challenge=challenge, now=now)
        except TermsError as exc:
            raise ChallengeStateError(str(exc)) from exc
        challenge.status = ChallengeStatus.PUBLISHED
        challenge.save()
        PotOpening.objects.create(
            challenge=challenge,
            pot_address=settings.POT_ADDRESS,
            terms=terms.as_json(),
            terms_digest=terms_digest(challenge.pk, terms),
            terms_sha256=terms.terms_hash,
        )
        PotState.objects.get_or_create(challenge=challenge)
        _announce_opening(challenge.pk)
        public_answers_mark_stale()
    return challenge


def challenge_create_published(**fields) -> Challenge:
    """challenge_create, then challenge_publish: the one way a ready-to-play challenge is made outside
    the admin (the local game: responses/management/commands/seed_demo.py; the tests; the bench)."""
    now = fields.pop("now", None)
    return challenge_publish(challenge=challenge_create(**fields), now=now)


# --- The opening (docs/protocol.md section 2, "Terms, opened once") -----------------------------
# Each transition is one conditional UPDATE on the current status, so a task run twice cannot move
# an opening backwards. The chain app decides them (chain/pot/opening.py); the admin calls
# opening_retry.


def _announce_opening(challenge_id: int) -> None:
    def send() -> None:
        try:
            chain_port().opening_queued(challenge_id=challenge_id)
        except Exception:  # noqa: BLE001 - the broker being down must not undo the publish
            # The opening stays queued; the beat's sweep (chain/tasks.py, sweep_openings) queues it again.
            logger.warning("could not queue the opening of challenge %s", challenge_id)

    transaction.on_commit(send)


def opening_sent(*, challenge_id: int, transaction_hash: str, sender_address: str, nonce: int) -> bool:
    return bool(
        PotOpening.objects.filter(
            challenge_id=challenge_id, status__in=[OpeningStatus.QUEUED, OpeningStatus.SENT]
        ).update(
            status=OpeningStatus.SENT,
            transaction_hash=transaction_hash.lower(),
            sender_address=sender_address,
            nonce=nonce,
            sent_at=timezone.now(),
            attempts=F("attempts") + 1,
            last_error="",
            updated_at=timezone.now(),
        )
    )


def opening_confirmed(*, challenge_id: int, transaction_hash: str, block_number: int) -> bool:
    """The Opened event with these terms is CHAIN_CONFIRMATIONS deep: players may stake."""
    changed = PotOpening.objects.filter(
        challenge_id=challenge_id, status__in=[OpeningStatus.QUEUED, OpeningStatus.SENT, OpeningStatus.FAILED]
    ).update(
        status=OpeningStatus.CONFIRMED,
        transaction_hash=transaction_hash.lower(),
        block_number=block_number,
        confirmed_at=timezone.now(),
        last_error="",
        updated_at=timezone.now(),
    )
    if changed:
        public_answers_mark_stale()
    return bool(changed)


def opening_failed(*, challenge_id: int, error: str) -> bool:
    return bool(
        PotOpening.objects.filter(
            challenge_id=challenge_id, status__in=[OpeningStatus.QUEUED, OpeningStatus.SENT]
        ).update(status=OpeningStatus.FAILED, last_error=error[:2000], updated_at=timezone.now())
    )


def opening_requeue(*, challenge_id: int, error: str) -> bool:
    """Sent back to queued: its transaction was dropped, so the next step sends anew."""
    return bool(
        PotOpening.objects.filter(challenge_id=challenge_id, status=OpeningStatus.SENT).update(
            status=OpeningStatus.QUEUED, last_error=error[:2000], updated_at=timezone.now()
        )
    )


def opening_note(*, challenge_id: int, error: str) -> None:
    """Why a step could not finish (no node answered, ...): shown in the admin; the task tries again."""
    PotOpening.objects.filter(challenge_id=challenge_id, status__in=[OpeningStatus.QUEUED, OpeningStatus.SENT]).update(
        last_error=error[:2000], updated_at=timezone.now()
    )


def openings_stale(*, older_than_seconds: float) -> list[int]:
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        PotOpening.objects.filter(
            status__in=[OpeningStatus.QUEUED, OpeningStatus.SENT], updated_at__lt=cutoff
        ).values_list("challenge_id", flat=True)
    )


def opening_retry(*, challenge: Challenge) -> PotOpening:
    """Staff's "Retry opening": a failed opening goes back to queued with the same terms."""
    with transaction.atomic():
        opening = PotOpening.objects.select_for_update().filter(challenge=challenge).first()
        if opening is None:
            raise ChallengeStateError("This challenge has no opening to retry.")
        if opening.status != OpeningStatus.FAILED:
            raise ChallengeStateError("This challenge's opening has not failed; nothing to retry.")
        opening.status = OpeningStatus.QUEUED
        opening.last_error = ""
        opening.save(update_fields=["status", "last_error", "updated_at"])
        _announce_opening(challenge.pk)
    return opening


# --- What the chain says (chain/pot/follow.py) -------------------------------------------------


def pot_state_write(*, challenge_id: int, values: dict) -> bool:
    """The pot's state of a challenge as the follower rebuilt it; True when it changed. The public
    answers show it, so they go stale when it does."""
    state, _ = PotState.objects.get_or_create(challenge_id=challenge_id)
    changed = [name for name, value in values.items() if getattr(state, name) != value]
    if not changed:
        return False
    for name in changed:
        setattr(state, name, values[name])
    state.save(update_fields=[*changed, "updated_at"])
    public_answers_mark_stale()
    return True


def chain_clock_set(*, block_number: int, block_hash: str, block_time: datetime, confirmed_block: int) -> None:
    ChainClock.objects.update_or_create(
        pk=1,
        defaults={
            "block_number": block_number,
            "block_hash": block_hash.lower(),
            "block_time": block_time,
            "confirmed_block": confirmed_block,
        },
    )
