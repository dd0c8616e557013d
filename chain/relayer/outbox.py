"""The calls of the pot the site sends (chain/models.py, PotCall): queued here by the POST of a signed
stake (chain/pot/port.py) and by the game's steps (chain/pot/steps.py), sent in order by the relayer
(chain/relayer/sender.py) and followed to their receipts by its watcher (chain/relayer/watch.py)."""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction

from ..models import PotCall, PotCallKind

logger = logging.getLogger(__name__)

# The gas limit of each kind of call: the forge measurements behind a proxied token
# (contracts/test/, docs/performance.md) with room to spare, and fixed, so that a call that would
# revert is still sent and its receipt says so rather than failing to estimate. The daily budget and
# the POST's admission reserve this much per call in flight.
CALL_GAS: dict[str, int] = {
    PotCallKind.STAKE: 200_000,
    PotCallKind.REVEAL_SOLUTION: 120_000,
    PotCallKind.REVEAL_GUESS: 90_000,
    PotCallKind.FINALIZE: 90_000,
    PotCallKind.PAY_PRIZE: 120_000,
    PotCallKind.PAY_SHARE: 120_000,
    PotCallKind.REFUND: 120_000,
}


def call_queue(
    *, kind: str, key: str, challenge_id: int, data: str, signed_stake_id: int | None = None, new_key: bool = False
) -> PotCall | None:
    """Queue a call, in the caller's transaction, unless one with the same key is active (then None).
    The relayer's sender is queued once it commits. `new_key`: no call can have this key yet (a
    signed stake's own, inserted in the same transaction), so no savepoint is set to catch a
    duplicate: two statements fewer for the POST of every signed stake."""

    def create() -> PotCall:
        return PotCall.objects.create(
            kind=kind,
            key=key,
            challenge_id=challenge_id,
            signed_stake_id=signed_stake_id,
            data=data,
            gas=CALL_GAS[kind],
        )

    if new_key:
        call = create()
    else:
        try:
            with transaction.atomic():
                call = create()
        except IntegrityError:
            return None
    transaction.on_commit(_wake_sender)
    return call


# The sender's message is published at most once while one is pending, instead of once per call:
# every run of the sender reads every call queued, and kombu's publish cost a POST about 1 ms of CPU
# (docs/performance.md section 2). WAKE_KEY in the shared cache says "a message is on its way". A
# committed call publishes only when it adds the key (SET NX). The key is deleted only by a run of the
# sender, just after it let the sender's flag go and just before it looks at the queue once more
# (chain/relayer/sender.py, relay_send). So a call whose add found the key committed before that
# delete, and the look finds it: that run sends it in another pass, or the run now holding the flag
# does, which looks again the same way once it lets go. A call whose add comes after the delete adds
# the key and publishes its own message. A run that found another holding the flag leaves the key:
# the holder's delete comes later. The key lives at most WAKE_SECONDS, so a key that outlives its
# message (the broker lost it, a worker died holding the flag) holds back later calls' messages no
# longer than that; the beat's chain.relay_watch meanwhile queues the sender for any call left queued
# longer than RELAY_SWEEP_STALE_SECONDS, as it does for a run that stopped with calls left.
WAKE_KEY = "chain:relay:wake"
WAKE_SECONDS = 30


def _wake_sender() -> None:
    try:
        pending = not cache.add(WAKE_KEY, 1, timeout=WAKE_SECONDS)
    except Exception:  # noqa: BLE001 - the cache down: publish, as if no message were pending
        logger.warning("relayer: the cache did not answer; the sender is queued without the pending flag")
        pending = False
    if pending:
        return
    # By name: the tasks sit above the relayer (pyproject.toml, the chain's inner layers).
    try:
        current_app.send_task("chain.relay_send", queue=settings.RELAY_QUEUE)
    except Exception:  # noqa: BLE001 - the broker down: the watcher's sweep sends what is left queued
        logger.warning("could not queue the relayer's sender")
        # No message is on its way: the next call publishes again rather than waiting for the key
        # to expire.
        wake_clear()


def wake_clear() -> None:
    """No message pending any more: the next call queued publishes one. By a run of the sender after
    it let its flag go, before its last look at the queue (see WAKE_KEY)."""
    try:
        cache.delete(WAKE_KEY)
    except Exception:  # noqa: BLE001 - it expires within WAKE_SECONDS; the watcher's sweep covers the gap
        logger.warning("relayer: the cache did not answer; the sender's pending flag expires on its own")
