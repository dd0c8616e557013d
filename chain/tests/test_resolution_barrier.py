"""Resolution is a barrier (docs/protocol.md section 4, "Close, grace period and resolution"): once
it has started, nothing moves the challenge's staked sum or response count. On anvil and the real
database: a claim whose POST was still reading the chain when staff started resolution, and a
confirmed claim whose block left the chain after resolution."""

from __future__ import annotations

import threading
import time
from decimal import Decimal

import pytest

from chain.client import ChainClient
from chain.indexer import payments_index
from chain.models import Payment
from chain.reorgs import confirmed_recheck
from chain.selectors import payments_unclaimed
from chain.verification import payment_verify
from challenges.models import Challenge, Payout
from devtools.concurrency import at_once
from responses.models import ExceptionKind, ResolutionException, Response, ResponseStatus
from responses.resolution import challenge_resolve_run, challenge_resolve_start
from responses.services import response_create

from .conftest import post_claim
from .test_close_window import body
from .verifier_support import confirm, mine_at, pay, resolve, wait_for_wall_clock_past_head


class ReadHeldUntil(ChainClient):
    """The POST's one chain read (chain/checks.py, claim_check_at_post) held until `release` is
    set, then sent to anvil as usual: a slow node (up to CHAIN_POST_CHECK_TIMEOUT_SECONDS per node)
    made deterministic. `reading` is set once the POST is waiting on it."""

    def __init__(self, url: str) -> None:
        super().__init__([url], timeout=5)
        self.reading = threading.Event()
        self.release = threading.Event()

    def get_transaction(self, tx_hash: str):
        self.reading.set()
        assert self.release.wait(30), "never released"
        return super().get_transaction(tx_hash)


def ledger_read_past_now(chain, *, ahead: int = 30) -> None:
    """The indexer has read a block whose time is after any close made in the next `ahead` seconds
    (resolution waits for it: responses/barrier.py)."""
    mine_at(chain, int(time.time()) + ahead)
    payments_index()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_claim_whose_post_read_the_chain_while_resolution_started_moves_no_sum(chain, draft, settings):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 0
    counted = draft(stake="5", address=chain.other)
    confirm(chain, post_claim(counted, pay(chain, counted)))
    late = draft()
    tx = pay(chain, late)  # mined in the open window
    wait_for_wall_clock_past_head(chain)
    ledger_read_past_now(chain)
    slow = ReadHeldUntil(chain.url)

    def post():
        return response_create(
            challenge_id=late.challenge.pk,
            submission_text=late.text,
            submission_stake=late.stake,
            transaction_hash=tx,
            submitter_address=late.address,
            submission_salt=late.salt,
            client=slow,
        ).response

    def start():
        assert slow.reading.wait(30)  # the POST has passed its checks and waits on the node
        try:
            return challenge_resolve_start(challenge=Challenge.objects.get(pk=late.challenge.pk), enqueue=False)
        finally:
            slow.release.set()

    claim, resolution = at_once([post, start])

    assert resolution.total == 1
    chain.mine(2)
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, "after_resolution")
    challenge = Challenge.objects.get(pk=late.challenge.pk)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("5"), 1)
    challenge_resolve_run(challenge_id=challenge.pk)
    assert sum(p.amount for p in Payout.objects.filter(challenge=challenge)) == Decimal("5")
    # Staff are told, and the payment is its payer's: in the ledger, linked, not "unclaimed".
    exception = ResolutionException.objects.get()
    assert (exception.response_id, exception.kind, exception.stake) == (claim.pk, ExceptionKind.AFTER_RESOLUTION, 2.5)
    assert Payment.objects.get(transaction_hash=tx).response_id == claim.pk
    assert not payments_unclaimed().filter(transaction_hash=tx).exists()
    # Verified again (the sweeper, the head watcher): nothing more is recorded or moved.
    assert payment_verify(response_id=claim.pk).code == "after_resolution"
    assert ResolutionException.objects.count() == 1


@pytest.mark.django_db
def test_a_reorg_after_resolution_leaves_the_claim_confirmed_and_the_sums_unmoved(chain, draft):
    d = draft()
    before_payment = chain.snapshot()
    claim = post_claim(d, pay(chain, d))
    confirm(chain, claim)
    challenge = resolve(chain, d.challenge)
    payouts = {p.kind: p.amount for p in Payout.objects.filter(challenge=challenge)}

    chain.revert(before_payment)  # the payment's block leaves the chain
    chain.mine(5)

    assert confirmed_recheck() == []
    claim.refresh_from_db()
    assert claim.status == ResponseStatus.CONFIRMED
    challenge.refresh_from_db()
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)
    assert {p.kind: p.amount for p in Payout.objects.filter(challenge=challenge)} == payouts
    assert Response.objects.filter(status=ResponseStatus.PENDING).count() == 0
    exception = ResolutionException.objects.get()
    assert (exception.response_id, exception.kind, exception.stake) == (claim.pk, ExceptionKind.REORGED, 2.5)
    assert confirmed_recheck() == []  # the next beat finds it again: recorded once
    assert ResolutionException.objects.count() == 1


@pytest.mark.django_db
def test_a_claim_posted_after_resolution_is_stored_and_recorded_and_the_outcome_says_so(
    chain, draft, api, django_capture_on_commit_callbacks
):
    counted = draft(stake="5", address=chain.other)
    confirm(chain, post_claim(counted, pay(chain, counted)))
    late = draft()
    tx = pay(chain, late)  # mined in the open window; the page posts only after resolution
    challenge = resolve(chain, late.challenge)
    before = api.get(f"/api/challenges/{challenge.pk}/winners").json()

    answer = api.post("/api/responses", body(late, tx), format="json")

    assert answer.status_code == 201, answer.content  # stored: nothing paid is lost
    chain.mine(2)
    with django_capture_on_commit_callbacks(execute=True):  # the winners answer goes stale on commit
        outcome = payment_verify(response_id=answer.json()["id"])
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, "after_resolution")
    status = api.get(f"/api/responses/{tx}", {"commitment": late.commitment}).json()
    assert status["rejectionReason"] == (
        "This payment reached Geopoem after the challenge was resolved, so it does not count toward the "
        "prizes; staff have been told."
    )
    after = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    recorded = ResolutionException.objects.get()
    assert after["exceptions"] == [
        {
            "responseId": answer.json()["id"],
            "transactionHash": tx,
            "submitterAddress": late.address,
            "submissionStake": "2.500000",
            "kind": "after_resolution",
            "recordedAt": int(recorded.created_at.timestamp()),
        }
    ]
    assert {k: v for k, v in after.items() if k != "exceptions"} == {
        k: v for k, v in before.items() if k != "exceptions"
    }
    assert after["totalStaked"] == "5.000000"


@pytest.mark.django_db
def test_a_claim_posted_after_resolution_that_fails_a_check_is_rejected_for_it_and_not_recorded(chain, draft, api):
    d = draft()
    challenge = resolve(chain, d.challenge)
    wait_for_wall_clock_past_head(chain)
    tx = pay(chain, d)  # mined after the close (resolution closed it)

    answer = api.post("/api/responses", body(d, tx), format="json")

    assert answer.status_code == 201
    chain.mine(2)
    outcome = payment_verify(response_id=answer.json()["id"])
    assert (outcome.status, outcome.code) == (ResponseStatus.REJECTED, "late")
    assert not ResolutionException.objects.exists()
    assert Challenge.objects.get(pk=challenge.pk).staked_sum == 0
