"""The calls of the pot the site sends (chain/models.py, PotCall): queued here by the POST of a signed
stake (chain/pot/port.py) and by the game's steps (chain/pot/steps.py), sent in order by the relayer
(chain/relayer/sender.py) and followed to their receipts by its watcher (chain/relayer/watch.py)."""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
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


def _wake_sender() -> None:
    # By name: the tasks sit above the relayer (pyproject.toml, the chain's inner layers).
    try:
        current_app.send_task("chain.relay_send", queue=settings.RELAY_QUEUE)
    except Exception:  # noqa: BLE001 - the broker down: the watcher's sweep sends what is left queued
        logger.warning("could not queue the relayer's sender")
