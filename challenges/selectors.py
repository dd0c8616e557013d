"""Reads of challenges: the chain's clock, a challenge's phase (docs/protocol.md 3.6), and the
challenges the public answers show."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from .models import ChainClock, Challenge, ChallengeStatus, OpeningStatus, PotState


class Phase:
    OPENING = "opening"  # published; its open not yet on chain deep enough (never shown to players)
    OPEN = "open"
    CLOSED = "closed"
    REVEALING = "revealing"
    FINAL = "final"
    PAID = "paid"
    ABORTED = "aborted"


def chain_clock() -> ChainClock | None:
    return ChainClock.objects.filter(pk=1).first()


def chain_now(clock: ChainClock | None = None) -> datetime:
    """The time the pot judges by: the latest block the follower read (the wall clock until it read
    one)."""
    clock = clock if clock is not None else chain_clock()
    return clock.block_time if clock is not None else timezone.now()


def _state(challenge: Challenge) -> PotState | None:
    try:
        return challenge.pot
    except PotState.DoesNotExist:
        return None


def _opened(challenge: Challenge) -> bool:
    try:
        return challenge.opening.status == OpeningStatus.CONFIRMED
    except Challenge.opening.RelatedObjectDoesNotExist:
        return False


def challenge_phase(challenge: Challenge, *, now: datetime) -> str:
    """The phase of docs/protocol.md 3.6 at the chain's time `now`."""
    state = _state(challenge)
    if challenge.status != ChallengeStatus.PUBLISHED or not _opened(challenge) or state is None:
        return Phase.OPENING
    assert challenge.closes_at is not None and challenge.solution_deadline is not None  # set at publish
    if state.solution_block is not None:
        if state.guess_deadline is not None and now < state.guess_deadline:
            return Phase.REVEALING
        return Phase.PAID if state.settled else Phase.FINAL
    if now < challenge.closes_at:
        return Phase.OPEN
    if now < challenge.solution_deadline:
        return Phase.CLOSED
    return Phase.ABORTED


def challenge_takes_stakes(*, challenge: Challenge, now: datetime | None = None) -> bool:
    """Open, and not so close to the close that a relayed stake would arrive after it."""
    now = now or max(chain_now(), timezone.now())
    margin = timedelta(seconds=settings.STAKE_CLOSE_MARGIN_SECONDS / 2)
    return challenge_phase(challenge, now=now) == Phase.OPEN and (
        challenge.closes_at is not None and now < challenge.closes_at - margin
    )


def _published() -> QuerySet[Challenge]:
    return Challenge.objects.filter(
        status=ChallengeStatus.PUBLISHED, opening__status=OpeningStatus.CONFIRMED
    ).select_related("pot", "opening")


def challenge_get_active(*, now: datetime | None = None) -> Challenge | None:
    """The challenge shown on the Active tab: the open one (the newest, if several are), else the
    newest that is closed or revealing (players see its phase and what comes next), else None."""
    now = now or chain_now()
    waiting = None
    for challenge in _published().order_by("-closes_at", "-id")[:20]:
        phase = challenge_phase(challenge, now=now)
        if phase == Phase.OPEN:
            return challenge
        if waiting is None and phase in (Phase.CLOSED, Phase.REVEALING):
            waiting = challenge
    return waiting


def challenge_list_resolved() -> QuerySet[Challenge]:
    """Challenges whose solution is on chain, or that aborted (their solution deadline passed without
    it), newest first. The abort is a matter of time, so the deadline is compared with the chain's."""
    now = chain_now()
    revealed = _published().filter(pot__solution_block__isnull=False)
    aborted = _published().filter(pot__solution_block__isnull=True, solution_deadline__lte=now)
    return (revealed | aborted).order_by("-closes_at", "-id")


def challenge_published(*, challenge_id: int) -> Challenge | None:
    return _published().filter(pk=challenge_id).first()
