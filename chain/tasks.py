"""Celery tasks of the chain app: verifying claims and payouts on chain, anchoring terms. Each takes
ids, calls one service, and is safe to run twice: the services change a claim, a payout or an
anchor only through conditional UPDATEs on its current status. The payout tasks were named
`challenges.verify_payout` and `challenges.sweep_payouts` before; those names stay registered for
one release (config/task_aliases.py), so messages queued under them still run.

acks_late + prefetch 1 (settings) + reject_on_worker_lost: a message is acknowledged only after its
task finished, so a worker killed mid-task leaves the message to the broker; and whatever the broker
does with it, the beat sweeper re-queues every claim left pending without a recent check.

Verification follows the chain, not a timer (docs/chain.md "Verification driven by blocks"): a
claim that is merely not deep enough (or whose transaction the node does not know yet) is left to
the head watcher, which re-checks every pending claim once per new block in one round of batched
RPC requests. The per-claim backoff is kept only for RPC failures."""

from __future__ import annotations

import logging
import uuid

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from challenges.models import Payout
from challenges.services import anchor_touch, anchors_stale
from config.retries import RETRYING_TASK, retry_countdown
from config.task_aliases import shared_task_renamed

from . import relay_selectors, relayer
from . import relay_watch as relay_watcher
from .anchors import AnchorPending, anchor_step_noting
from .client import ChainUnavailable
from .heads import HEAD_SEEN_KEY, pending_claims_on_head
from .indexer import payments_index
from .payouts import PayoutPending, payout_verify, payouts_stale_verifying
from .reorgs import confirmed_recheck
from .sweeper import stale_pending_claims
from .verification import VerificationPending, payment_verify

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name="chain.verify_response",
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # bounded below by CHAIN_VERIFY_MAX_RETRIES; the deadline ends unknown transactions
    ignore_result=True,
)
def verify_response(self, response_id: int) -> str:
    try:
        outcome = payment_verify(response_id=response_id)
    except VerificationPending as exc:
        # Not a failure: the chain has not said yet. The head watcher re-checks it at each block.
        logger.info("response %s: %s; the head watcher re-checks it at the next block", response_id, exc)
        return "pending"
    except ChainUnavailable as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            # Left pending: the sweeper picks it up again once it is stale.
            logger.warning(
                "response %s: giving up this round after %s retries: %s", response_id, self.request.retries, exc
            )
            return "pending"
        countdown = retry_countdown(self.request.retries)
        logger.info("response %s: %s; retry in %.1fs", response_id, exc, countdown)
        raise self.retry(countdown=countdown, exc=exc) from exc
    return outcome.status


def enqueue_verification(sender, *, response_id: int, **kwargs) -> None:
    """Receiver of responses.hooks.claim_stored (connected in chain/apps.py): a committed new claim
    is queued for verification. A broker error propagates to the sender, which logs it."""
    verify_response.delay(response_id)


@shared_task(name="chain.sweep_pending", acks_late=True, ignore_result=True)
def sweep_pending() -> int:
    ids = stale_pending_claims()
    for response_id in ids:
        verify_response.delay(response_id)
    if ids:
        logger.info("sweeper re-queued %s pending claims", len(ids))
    return len(ids)


@shared_task(name="chain.index_payments", acks_late=True, ignore_result=True)
def index_payments() -> int:
    try:
        result = payments_index()
    except ChainUnavailable as exc:
        logger.warning("indexer: %s; next beat tries again", exc)
        return 0
    if result is None:
        return 0
    for response_id in result.pending_claims:
        verify_response.delay(response_id)
    return result.recorded


@shared_task(name="chain.recheck_confirmed", acks_late=True, ignore_result=True)
def recheck_confirmed() -> int:
    try:
        moved = confirmed_recheck()
    except ChainUnavailable as exc:
        logger.warning("reorg re-check: %s; next beat tries again", exc)
        return 0
    for response_id in moved:
        verify_response.delay(response_id)
    return len(moved)


HEAD_LOCK_KEY = "chain:head-watcher:lock"


@shared_task(name="chain.watch_head", ignore_result=True)
def watch_head() -> int:
    """The head watcher, on beat every CHAIN_HEAD_INTERVAL_SECONDS. One runs at a time per
    deployment: a lock in the shared cache (Redis), taken with an atomic add and held at most
    HEAD_LOCK_SECONDS, so a round that died with its worker does not stop the next ones for long.
    The last head a round completed is kept in the cache: a round that failed (no node answered)
    leaves it, so the next beat tries the same block again. Returns the claims re-checked."""
    token = uuid.uuid4().hex
    if not cache.add(HEAD_LOCK_KEY, token, timeout=HEAD_LOCK_SECONDS):
        return 0
    try:
        try:
            result = pending_claims_on_head(last_head=cache.get(HEAD_SEEN_KEY))
        except ChainUnavailable as exc:
            logger.warning("head watcher: %s; next beat tries again", exc)
            return 0
        if result is None:
            return 0
        cache.set(HEAD_SEEN_KEY, result.head, timeout=None)
        if result.claims:
            logger.info(
                "head %s: %s pending claims re-checked, %s decided, %s RPC requests",
                result.head,
                result.claims,
                result.decided,
                result.http_requests,
            )
        return result.claims
    finally:
        if cache.get(HEAD_LOCK_KEY) == token:
            cache.delete(HEAD_LOCK_KEY)


HEAD_LOCK_SECONDS = 60


@shared_task_renamed(name="chain.verify_payout", old_name="challenges.verify_payout", **RETRYING_TASK)
def verify_payout(self, payout_id: int) -> str:
    try:
        return payout_verify(payout_id=payout_id)
    except (PayoutPending, ChainUnavailable) as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            # Still "verifying": staff can queue it again from the payouts list.
            logger.warning("payout %s: giving up after %s retries: %s", payout_id, self.request.retries, exc)
            return "verifying"
        raise self.retry(countdown=retry_countdown(self.request.retries), exc=exc) from exc


def enqueue_payout_verification(sender, *, payout_id: int, **kwargs) -> None:
    """Receiver of challenges.hooks.payout_recorded (connected in chain/apps.py): a recorded payout
    transaction, committed, is queued for its check on chain. A broker error propagates to the
    sender (staff's request); the payout stays verifying and the beat's payout sweep queues it."""
    verify_payout.delay(payout_id)


@shared_task_renamed(name="chain.sweep_payouts", old_name="challenges.sweep_payouts", ignore_result=True)
def sweep_payouts() -> int:
    """Beat: queue again every payout left verifying without a recent check, so a lost message or
    a dead worker never leaves a paid prize unverified. Verification is idempotent."""
    stale = settings.CHAIN_SWEEP_STALE_SECONDS
    ids = payouts_stale_verifying(older_than_seconds=stale)
    for payout_id in ids:
        # Touched first, so the next sweep does not queue it again while this message waits.
        Payout.objects.filter(pk=payout_id).update(updated_at=timezone.now())
        verify_payout.delay(payout_id)
    return len(ids)


# --- The anchor of a challenge's terms (docs/protocol.md section 6; chain/anchors.py) ---------


@shared_task(
    bind=True,
    name="chain.anchor_challenge",
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # bounded below by CHAIN_VERIFY_MAX_RETRIES; the sweep picks up what is left
    ignore_result=True,
)
def anchor_challenge(self, challenge_id: int) -> str:
    """Send a published challenge's anchor, then follow it until it is deep enough (confirmed: the
    challenge opens) or the chain refuses it (failed: the admin shows why and offers a retry)."""
    try:
        return anchor_step_noting(challenge_id=challenge_id)
    except (AnchorPending, ChainUnavailable) as exc:
        if self.request.retries >= settings.CHAIN_VERIFY_MAX_RETRIES:
            logger.warning("anchor of challenge %s: giving up this round: %s", challenge_id, exc)
            return "pending"
        if isinstance(exc, AnchorPending):
            countdown = settings.ANCHOR_POLL_SECONDS  # the next block, not a failure
        else:
            countdown = retry_countdown(self.request.retries)
            logger.info("anchor of challenge %s: %s; retry in %.1fs", challenge_id, exc, countdown)
        raise self.retry(countdown=countdown, exc=exc) from exc


def enqueue_anchor(sender, *, challenge_id: int, **kwargs) -> None:
    """Receiver of challenges.hooks.anchor_queued (connected in chain/apps.py)."""
    anchor_challenge.delay(challenge_id)


@shared_task(name="chain.sweep_anchors", ignore_result=True)
def sweep_anchors() -> int:
    """Beat: queue again every anchor left queued or sent without a step for
    CHAIN_SWEEP_STALE_SECONDS (a lost message, a dead worker, retries given up)."""
    ids = anchors_stale(older_than_seconds=settings.CHAIN_SWEEP_STALE_SECONDS)
    for challenge_id in ids:
        anchor_touch(challenge_id=challenge_id)  # the next sweep leaves it while this message waits
        anchor_challenge.delay(challenge_id)
    if ids:
        logger.info("anchor sweep re-queued %s anchors", len(ids))
    return len(ids)


# --- The relayer (docs/protocol.md section 2a; chain/relayer.py, chain/relay_watch.py) ---------
# Both run on the `relay` queue (CELERY_TASK_ROUTES). The sends of one relayer are serialized by
# its account row's lock, so any number of these may run at once in any number of workers.

RELAY_SWEEP_KEY = "chain:relay:swept"


@shared_task(name="chain.relay_send", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def relay_send(response_id: int | None = None) -> int:
    """Send every queued authorization in arrival order (the claim that queued this message among
    them). A node that does not answer leaves the claims queued: the watcher's sweep queues this again."""
    try:
        summary = relayer.relay_send()
    except ChainUnavailable as exc:
        logger.warning("relayer: %s; the claims stay queued for the next run", exc)
        return 0
    return summary.sent


def enqueue_relay(sender, *, response_id: int, **kwargs) -> None:
    """Receiver of responses.hooks.relay_queued (connected in chain/apps.py): a committed claim whose
    authorization the relayer is to send. A broker error propagates to the sender, which logs it; the
    watcher's sweep queues the sender for a claim left queued."""
    relay_send.delay(response_id)


@shared_task(name="chain.relay_watch", ignore_result=True)
def relay_watch() -> int:
    """Beat, every RELAY_WATCH_INTERVAL_SECONDS: the relayer's transactions followed and its balance
    read (chain/relay_watch.py); and the sender queued again when a claim has waited queued longer
    than RELAY_SWEEP_STALE_SECONDS (a lost message), at most once per that period."""
    if relay_selectors.relay_queued_since(older_than_seconds=settings.RELAY_SWEEP_STALE_SECONDS):
        if cache.add(RELAY_SWEEP_KEY, 1, timeout=settings.RELAY_SWEEP_STALE_SECONDS):
            logger.info("relayer: claims left queued; the sender is queued again")
            relay_send.delay()
    try:
        summary = relay_watcher.relay_watch()
    except ChainUnavailable as exc:
        logger.warning("relayer watcher: %s; next beat tries again", exc)
        return 0
    return summary.mined + summary.reverted
