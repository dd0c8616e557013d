"""Races with a resolution start, released together (devtools/concurrency.at_once), on anvil and
PostgreSQL: a claim being stored, claims posted in a burst, a confirmation, and a reorg's
re-check. Whatever the order, every paid claim is either counted before the start or recorded as an
exception after it, and the sums the payouts come from never move (responses/barrier.py)."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from functools import partial

import pytest
from django.db import connection, transaction

from chain.contracts import mint
from chain.reorgs import confirmed_recheck
from chain.verification import Outcome, payment_verify
from challenges.models import Challenge, ChallengeResolution
from challenges.services import ChallengeStateError
from devtools.concurrency import at_once
from responses.models import ExceptionKind, ResolutionException, Response, ResponseStatus
from responses.resolution import challenge_resolve_start

from .conftest import post_claim
from .test_resolution_wait import close_after_the_payments, index_a_block_after
from .verifier_support import confirm, pay

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_grace(settings):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 0


def start_or_refusal(challenge_id: int) -> ChallengeResolution | ChallengeStateError:
    try:
        return challenge_resolve_start(challenge=Challenge.objects.get(pk=challenge_id), enqueue=False)
    except ChallengeStateError as refusal:
        return refusal


def hold_until_another_waits(done: threading.Event, *, within: float = 5.0) -> bool:
    """In a thread holding a transaction open: until another session of this database waits on a
    lock (True), or `done` is set or `within` passed (False)."""
    deadline = time.monotonic() + within
    with connection.cursor() as cursor:
        while not done.is_set() and time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # the view is a snapshot per transaction
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


def sums(challenge_id: int) -> tuple[Decimal, int]:
    challenge = Challenge.objects.get(pk=challenge_id)
    return challenge.staked_sum, challenge.response_count


def test_a_start_waits_for_a_claim_being_stored_and_refuses_while_it_is_pending(chain, draft):
    d = draft()
    tx = pay(chain, d)
    challenge = close_after_the_payments(chain, d.challenge)
    index_a_block_after(chain, challenge)
    stored, started = threading.Event(), threading.Event()

    def post():
        with transaction.atomic():  # the claim's insert, not committed yet
            claim = post_claim(d, tx)
            stored.set()
            waited = hold_until_another_waits(started)
        return claim, waited

    def start():
        assert stored.wait(30)
        try:
            return start_or_refusal(challenge.pk)
        finally:
            started.set()

    (claim, waited), refusal = at_once([post, start])

    assert waited, "the start did not wait for the claim being stored"
    assert isinstance(refusal, ChallengeStateError) and "1 claim(s) are still being verified" in str(refusal)
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    resolved = start_or_refusal(challenge.pk)
    assert isinstance(resolved, ChallengeResolution) and resolved.total == 1
    assert sums(challenge.pk) == (Decimal("2.5"), 1)


def test_claims_posted_in_a_burst_while_resolution_starts_are_counted_or_recorded(chain, draft):
    payers = [chain.player, chain.other, *chain.w3.eth.accounts[4:7]]
    for payer in payers[2:]:
        mint(chain.w3, chain.usdc, payer, 100 * 10**6, sender=chain.deployer)
    drafts = [draft(address=payer, stake=str(index + 1)) for index, payer in enumerate(payers)]
    txs = [pay(chain, d) for d in drafts]
    challenge = close_after_the_payments(chain, drafts[0].challenge)
    index_a_block_after(chain, challenge)

    posts = [partial(post_claim, d, tx) for d, tx in zip(drafts, txs, strict=True)]
    results = at_once([*posts, partial(start_or_refusal, challenge.pk)])

    claims, started = results[:-1], results[-1]
    chain.mine(2)
    outcomes = [payment_verify(response_id=claim.pk) for claim in claims]
    counted = [o for o in outcomes if o.status == ResponseStatus.CONFIRMED]
    recorded = [o for o in outcomes if (o.status, o.code) == (ResponseStatus.REJECTED, "after_resolution")]
    assert len(counted) + len(recorded) == len(claims)  # none lost
    assert ResolutionException.objects.filter(kind=ExceptionKind.AFTER_RESOLUTION).count() == len(recorded)
    if isinstance(started, ChallengeStateError):
        assert "still being verified" in str(started) and not recorded
        started = start_or_refusal(challenge.pk)
    confirmed = Response.objects.filter(pk__in=[c.pk for c in claims], status=ResponseStatus.CONFIRMED)
    assert sums(challenge.pk) == (sum((r.submission_stake for r in confirmed), Decimal(0)), len(counted))
    assert isinstance(started, ChallengeResolution) and started.total == len(counted)


def test_a_confirmation_racing_the_start_is_counted_before_it_or_holds_it_off(chain, draft):
    d = draft()
    claim = post_claim(d, pay(chain, d), chain_readable=False)
    challenge = close_after_the_payments(chain, d.challenge)
    index_a_block_after(chain, challenge)  # also makes the payment deep enough

    verified, started = at_once([lambda: payment_verify(response_id=claim.pk), lambda: start_or_refusal(challenge.pk)])

    assert isinstance(verified, Outcome) and verified.status == ResponseStatus.CONFIRMED
    assert sums(challenge.pk) == (Decimal("2.5"), 1)
    if isinstance(started, ChallengeStateError):
        assert "1 claim(s) are still being verified" in str(started)
        started = start_or_refusal(challenge.pk)
    assert isinstance(started, ChallengeResolution) and started.total == 1
    assert not ResolutionException.objects.exists()


def test_a_reorg_recheck_waits_for_a_start_in_progress_and_then_moves_no_sum(chain, draft):
    d = draft()
    before_payment = chain.snapshot()
    claim = post_claim(d, pay(chain, d))
    confirm(chain, claim)
    challenge = close_after_the_payments(chain, d.challenge)
    chain.revert(before_payment)  # the payment's block leaves the chain; the database still counts it
    index_a_block_after(chain, challenge)
    begun, rechecked = threading.Event(), threading.Event()

    def start():
        with transaction.atomic():  # the start, not committed yet
            resolution = challenge_resolve_start(challenge=Challenge.objects.get(pk=challenge.pk), enqueue=False)
            begun.set()
            waited = hold_until_another_waits(rechecked)
        return resolution, waited

    def recheck():
        assert begun.wait(30)
        try:
            return confirmed_recheck()
        finally:
            rechecked.set()

    (resolution, waited), moved = at_once([start, recheck])

    assert waited, "the re-check did not wait for the start"
    assert resolution.total == 1 and moved == []
    assert Response.objects.get(pk=claim.pk).status == ResponseStatus.CONFIRMED
    assert sums(challenge.pk) == (Decimal("2.5"), 1)
    assert ResolutionException.objects.get().kind == ExceptionKind.REORGED
