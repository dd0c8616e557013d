"""Celery tasks of the chain app. Each takes ids (or nothing), calls one service, and is safe to run
twice: every write is a conditional UPDATE, an upsert, or a replacement of the rows the chain says.

acks_late + prefetch 1 (settings) + reject_on_worker_lost: a message is acknowledged only after its
task finished, so a worker killed mid-task leaves the message to the broker; and the beat's sweeps
pick up what a lost message left behind."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.cache import cache

from challenges.services import opening_note, openings_stale
from config.retries import retry_countdown

from .node.client import ChainUnavailable
from .pot.follow import pot_follow
from .pot.opening import OpeningPending, opening_advance
from .pot.steps import pot_steps
from .relayer import selectors as relay_selectors
from .relayer import sender as relayer
from .relayer import watch as relay_watcher

logger = logging.getLogger(__name__)

FOLLOW_LOCK_KEY = "chain:follow:lock"
FOLLOW_LOCK_SECONDS = 60
OPEN_POLL_SECONDS = 1.0
OPEN_MAX_POLLS = 600


@shared_task(name="chain.follow_pot", ignore_result=True)
def follow_pot() -> int:
    """Beat, every CHAIN_HEAD_INTERVAL_SECONDS: the pot's events up to the head (chain/pot/follow.py),
    then the game's next steps queued for the relayer (chain/pot/steps.py). One round at a time per
    deployment (a flag in the shared cache; the follower's transaction serialises them anyway)."""
    try:
        if not cache.add(FOLLOW_LOCK_KEY, 1, timeout=FOLLOW_LOCK_SECONDS):
            return 0
    except Exception:  # noqa: BLE001 - the cache down: the clock row's lock still serialises rounds
        logger.warning("follower: the cache did not answer; following without the one-round flag")
    try:
        result = pot_follow()
        if result.skipped:
            logger.info("follower: %s", result.skipped)
        pot_steps()
    except ChainUnavailable as exc:
        logger.warning("follower: %s; the next beat tries again", exc)
        return 0
    finally:
        try:
            cache.delete(FOLLOW_LOCK_KEY)
        except Exception:  # noqa: BLE001 - it expires by itself
            logger.info("follower: the cache did not answer; the one-round flag expires by itself")
    return result.added + result.removed


@shared_task(
    bind=True,
    name="chain.open_challenge",
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    ignore_result=True,
)
def open_challenge(self, challenge_id: int) -> str:
    """Send a published challenge's `open`, then look again each second until the follower confirms
    it (or the chain refuses it: failed, with the reason staff read)."""
    try:
        return opening_advance(challenge_id=challenge_id)
    except (OpeningPending, ChainUnavailable) as exc:
        if self.request.retries >= OPEN_MAX_POLLS:
            logger.warning("opening of challenge %s: giving up this round: %s", challenge_id, exc)
            return "pending"
        if isinstance(exc, ChainUnavailable):
            opening_note(challenge_id=challenge_id, error=f"No node answered: {exc}")
            countdown = retry_countdown(self.request.retries)
        else:
            countdown = OPEN_POLL_SECONDS
        raise self.retry(countdown=countdown, exc=exc) from exc


@shared_task(name="chain.sweep_openings", ignore_result=True)
def sweep_openings() -> int:
    """Beat: queue again every opening left queued or sent without a step for a while."""
    ids = openings_stale(older_than_seconds=settings.CHAIN_SWEEP_STALE_SECONDS)
    for challenge_id in ids:
        opening_note(challenge_id=challenge_id, error="")
        open_challenge.delay(challenge_id)
    return len(ids)


# --- The relayer (chain/relayer/). Both run on the `relay` queue (CELERY_TASK_ROUTES). The sends are
# serialized by the relayer's account row's lock, so any number of these may run at once.

RELAY_SWEEP_KEY = "chain:relay:swept"


@shared_task(name="chain.relay_send", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def relay_send() -> int:
    """Send every queued call of the pot in order. A node that does not answer leaves them queued:
    the watcher's sweep queues this again."""
    try:
        summary = relayer.relay_send()
    except ChainUnavailable as exc:
        logger.warning("relayer: %s; the calls stay queued for the next run", exc)
        return 0
    return summary.sent


@shared_task(name="chain.relay_watch", ignore_result=True)
def relay_watch() -> int:
    """Beat, every RELAY_WATCH_INTERVAL_SECONDS: the relayer's transactions followed and its balance
    read (chain/relayer/watch.py); and the sender queued again when a call has waited queued longer
    than RELAY_SWEEP_STALE_SECONDS (a lost message), at most once per that period."""
    if relay_selectors.relay_queued_since(older_than_seconds=settings.RELAY_SWEEP_STALE_SECONDS):
        if cache.add(RELAY_SWEEP_KEY, 1, timeout=settings.RELAY_SWEEP_STALE_SECONDS):
            logger.info("relayer: calls left queued; the sender is queued again")
            relay_send.delay()
    try:
        summary = relay_watcher.relay_watch()
    except ChainUnavailable as exc:
        logger.warning("relayer watcher: %s; next beat tries again", exc)
        return 0
    return summary.mined + summary.reverted
