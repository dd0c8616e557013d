"""Resolution as a barrier, and when it may start (docs/protocol.md section 4, "Close, grace period
and resolution").

Close means that no payment mined after `closed_at` counts, never that no claim posted after it
does: claims are taken until resolution starts. Resolution waits (resolution_waits_for) until
CHALLENGE_CLOSE_GRACE_SECONDS have passed since the close, long enough for a slow page and a slow
chain, and until the ledger indexer has read a block after the close, so that staff see every
payment of the open window that no claim names before they resolve.

Once the ChallengeResolution row exists the challenge's staked_sum and response_count never move:
the scores, the winners and the payouts are computed from them. The row is inserted while the start
holds the challenge's row FOR UPDATE (responses/resolution.py), and every write that could move the
sums first takes a lock on that row that conflicts with it, then looks for the row:

- a claim's insert (response_create) takes FOR KEY SHARE: the start either waits for it and sees it
  pending (and refuses), or has committed and the claim can only end rejected;
- a confirmation and a reorg's unconfirmation (response_confirm, response_unconfirm) take FOR NO
  KEY UPDATE (they update that row's sums anyway) and, when resolution has started, record a
  ResolutionException (responses/exceptions.py) instead of moving anything."""

from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from challenges.models import Challenge, ChallengeResolution

from . import hooks


def claim_insert_lock(*, challenge_id: int) -> None:
    """In the claim's insert transaction: the challenge's row FOR KEY SHARE, which waits for a
    resolution start in progress (FOR UPDATE) and holds the next one off until the claim is
    committed. Claims do not wait for each other, nor for confirmations (FOR NO KEY UPDATE)."""
    if connection.vendor != "postgresql":
        return  # SQLite (make run's fallback database) runs one write transaction at a time
    # Django's select_for_update has no FOR KEY SHARE; the table is Challenge's (its db_table).
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM challenges_challenge WHERE id = %s FOR KEY SHARE", [challenge_id])


def resolution_started_locked(*, challenge_id: int) -> bool:
    """In the caller's transaction: lock the challenge's row against a resolution start, then say
    whether its resolution has started (it then holds until the caller commits)."""
    list(Challenge.objects.select_for_update(no_key=True).filter(pk=challenge_id).values_list("pk", flat=True))
    return ChallengeResolution.objects.filter(challenge_id=challenge_id).exists()


# --- When resolution may start ---------------------------------------------------------------------


def utc_text(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def grace_text() -> str:
    seconds = settings.CHALLENGE_CLOSE_GRACE_SECONDS
    return f"{seconds // 60} minute(s)" if seconds % 60 == 0 and seconds else f"{seconds} second(s)"


STILL_ACTIVE = (
    "It is still active: close it first. Resolution can start {grace} after the close "
    "(CHALLENGE_CLOSE_GRACE_SECONDS), so that claims for payments mined before the close can still arrive."
)


def resolution_opens_at(*, challenge: Challenge) -> datetime | None:
    """When the grace period after the close ends; None while the challenge is not closed."""
    if challenge.closed_at is None:
        return None
    return challenge.closed_at + timedelta(seconds=settings.CHALLENGE_CLOSE_GRACE_SECONDS)


def resolution_waits_for(*, challenge: Challenge, now: datetime | None = None) -> str | None:
    """Why the resolution of this closed challenge cannot start yet, in words for staff; None when
    it can."""
    opens_at = resolution_opens_at(challenge=challenge)
    if challenge.closed_at is None or opens_at is None:
        return STILL_ACTIVE.format(grace=grace_text())
    now = now or timezone.now()
    if now < opens_at:
        return (
            f"Claims for payments mined before the close ({utc_text(challenge.closed_at)}) can still arrive until "
            f"{utc_text(opens_at)} ({grace_text()} after the close, CHALLENGE_CLOSE_GRACE_SECONDS); resolve after that."
        )
    read_until = hooks.ledger_read_until()
    if read_until is None or read_until <= challenge.closed_at:
        read = "has not read any block yet" if read_until is None else f"has read blocks up to {utc_text(read_until)}"
        return (
            f"The ledger indexer {read}, not yet past the close ({utc_text(challenge.closed_at)}), so payments "
            "of the open window may still be missing from the list below; resolve once it has read past it (it "
            "runs every CHAIN_INDEX_INTERVAL_SECONDS on the worker's beat, and needs a block mined after the close)."
        )
    return None


def ledger_state(*, challenge: Challenge) -> str:
    """What the ledger has read, for the challenge's page."""
    read_until = hooks.ledger_read_until()
    if read_until is None:
        return "The ledger indexer has not read any block yet."
    past = challenge.closed_at is not None and read_until > challenge.closed_at
    return f"The ledger indexer has read blocks up to {utc_text(read_until)}" + (", past the close." if past else ".")


def unclaimed_in_window(*, challenge: Challenge) -> list[hooks.UnclaimedPayment]:
    """The payments of the challenge's open window that no claim names (as far as the ledger has
    read): shown to staff before they resolve."""
    if challenge.start_timestamp is None:
        return []
    return hooks.unclaimed_payments(
        challenge_id=challenge.pk, opened_at=challenge.start_timestamp, closed_at=challenge.closed_at
    )
