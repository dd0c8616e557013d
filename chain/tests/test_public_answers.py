"""The public answers after a real confirmation: a claim paid on anvil and confirmed by verification
(chain/verification.py, payment_verify), committed for real, then the Active Challenge read through its
API. The total bids and the response count are the new ones, and the ETag the page sent no longer
matches; a reorg that takes the payment away takes them back. With the test settings' local-memory
cache, and with Redis and this process's copy of the answers (config/public_copy.py) as in
production. The only thing that makes the answers stale here is the confirmation's own call
(challenges/services.py, challenge_stake_moved)."""

import time

import pytest

from chain.reorgs import confirmed_recheck
from chain.verification import payment_verify
from config import public_cache
from responses.models import ResponseStatus

from .conftest import post_claim

pytestmark = pytest.mark.django_db(transaction=True)  # committed for real: the on-commit bump runs


@pytest.fixture(params=["local memory", pytest.param("redis", marks=pytest.mark.integration)])
def cache_kind(request):
    """With Redis, this process's copy is subscribed before the first read, so that what is cached
    is also in memory (what a web process serves without I/O)."""
    if request.param == "redis":
        request.getfixturevalue("redis_cache")
        copy = public_cache.copy_for_process()
        assert copy is not None
        copy.get("warm-up")  # starts the subscriber
        deadline = time.monotonic() + 5
        while not copy.live:
            assert time.monotonic() < deadline, "the subscriber did not subscribe"
            time.sleep(0.01)
    return request.param


def active(api, etag=None):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return api.get("/api/challenges/active", **headers)


def totals(answer) -> tuple[str, int]:
    data = answer.json()
    return data["stakedSum"], data["responseCount"]


def test_a_claim_confirmed_by_verification_shows_in_the_active_answer_at_once(api, chain, draft, cache_kind):
    d = draft(stake="2.5")
    first = active(api)
    assert totals(first) == ("0.000000", 0)
    etag = first["ETag"]
    snapshot = chain.snapshot()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)
    assert active(api, etag).status_code == 304  # a pending claim changes no public answer
    if cache_kind == "redis":
        copy = public_cache.copy_for_process()
        assert copy is not None and len(copy) == 1  # the answer is in this process's memory

    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    confirmed = active(api, etag)
    assert confirmed.status_code == 200
    assert totals(confirmed) == ("2.500000", 1)
    assert active(api, confirmed["ETag"]).status_code == 304  # cached again

    chain.revert(snapshot)  # the block with the payment leaves the canonical chain
    chain.mine(4)
    assert confirmed_recheck() == [response.pk]
    assert totals(active(api, confirmed["ETag"])) == ("0.000000", 0)
