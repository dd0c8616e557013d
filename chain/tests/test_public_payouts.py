"""The winners answer lists the payouts (docs/protocol.md section 6, "Payouts"), so it is cached
(config/public_cache.py) only until a payout changes: staff recording a transaction (a save), and the
chain's verdict on it (chain/payouts.py, an UPDATE and the explicit invalidation)."""

import pytest

from challenges.models import Payout, PayoutKind
from challenges.payouts import payout_record_transaction
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
PAYER = "0x" + "ab" * 20


def resolved_with_prizes(make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=100)
    make_response(challenge, GIZA, "10", address=PAYER)
    make_response(challenge, "0, 0", "2.5", address=PAYER)
    challenge_resolve(challenge=challenge)
    return challenge, None, None


def test_a_recorded_and_a_paid_payout_make_the_cached_winners_stale(
    api, make_challenge, make_response, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        challenge, _, _ = resolved_with_prizes(make_challenge, make_response)
    url = f"/api/challenges/{challenge.pk}/winners"
    assert api.get(url).json()["payouts"][0]["status"] == "due"  # now cached
    payout = Payout.objects.get(challenge=challenge, kind=PayoutKind.EARLIEST)
    tx_hash = "0x" + "12" * 32
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        payout = payout_record_transaction(payout=payout, transaction_hash=tx_hash, user=None)
    # Run what the commit runs, except queueing the verification task (no worker here).
    for callback in callbacks:
        if "payout_enqueue_verification" not in callback.__qualname__:
            callback()
    recorded = api.get(url).json()["payouts"][0]
    assert (recorded["status"], recorded["transactionHash"]) == ("verifying", None)
    # Failed the way chain/payouts.py decides it: an UPDATE, then the explicit invalidation.
    from chain.payouts import _fail

    with django_capture_on_commit_callbacks(execute=True):
        _fail(payout, "amount_mismatch")
    assert api.get(url).json()["payouts"][0]["status"] == "failed"
