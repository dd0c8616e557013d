"""The public challenge answers are cached and go stale the moment a challenge changes or a claim
is confirmed. The cache here is the test settings' local-memory cache; bench/ runs the same code
against Redis."""

from decimal import Decimal

import pytest
from django.db.models import F
from django.utils import timezone

from challenges.models import Challenge
from challenges.services import challenge_close
from config.public_cache import public_answers_mark_stale
from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve
from responses.services import response_confirm

pytestmark = pytest.mark.django_db


def test_active_is_served_from_the_cache_without_a_query(api, make_challenge, django_assert_num_queries):
    make_challenge(title="Cached")
    assert api.get("/api/challenges/active").json()["poemTitle"] == "Cached"
    with django_assert_num_queries(0):
        again = api.get("/api/challenges/active")
    assert again.status_code == 200
    assert again.json()["poemTitle"] == "Cached"


def test_null_active_is_cached_too(api, django_assert_num_queries):
    assert api.get("/api/challenges/active").json() is None
    with django_assert_num_queries(0):
        assert api.get("/api/challenges/active").json() is None


def test_a_challenge_change_invalidates_after_commit(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge(title="Before")
    assert api.get("/api/challenges/active").json()["status"] == "active"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        challenge_close(challenge=challenge)
    assert callbacks, "the version is bumped on commit"
    assert api.get("/api/challenges/active").json() is None


def test_nothing_is_invalidated_before_commit(api, make_challenge, django_capture_on_commit_callbacks):
    """A reader must not cache the old rows under a new version while the write is uncommitted."""
    challenge = make_challenge(title="Before")
    api.get("/api/challenges/active")
    with django_capture_on_commit_callbacks(execute=False):
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
        public_answers_mark_stale()
        assert api.get("/api/challenges/active").json()["poemTitle"] == "Before"


def test_a_bulk_update_needs_the_explicit_call(api, make_challenge, django_capture_on_commit_callbacks):
    """The chain app moves staked_sum with QuerySet.update (no signal): it calls the function."""
    challenge = make_challenge()
    assert api.get("/api/challenges/active").json()["stakedSum"] == "0.000000"
    Challenge.objects.filter(pk=challenge.pk).update(staked_sum=F("staked_sum") + Decimal("5"))
    assert api.get("/api/challenges/active").json()["stakedSum"] == "0.000000"  # cached, as designed
    with django_capture_on_commit_callbacks(execute=True):
        public_answers_mark_stale()
    assert api.get("/api/challenges/active").json()["stakedSum"] == "5.000000"


def test_confirming_a_claim_invalidates_winners(api, make_challenge, make_response, django_capture_on_commit_callbacks):
    challenge = make_challenge(solution="10, 10", threshold=1000)
    late = make_response(challenge, "10, 10", "3", block=200)
    pending = make_response(challenge, "10, 10", "2", block=100, status=ResponseStatus.PENDING)
    Response.objects.filter(pk=pending.pk).update(status=ResponseStatus.REJECTED)
    with django_capture_on_commit_callbacks(execute=True):
        challenge_resolve(challenge=challenge)
    first = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert first["earliest"]["id"] == late.pk

    # A claim confirmed by the service verification calls (responses/services.py, response_confirm)
    # changes the earliest winner; here it is pending again and marked correct by hand beforehand.
    Response.objects.filter(pk=pending.pk).update(status=ResponseStatus.PENDING, is_correct=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert response_confirm(
            response=pending,
            submission_timestamp=timezone.now(),
            block_number=pending.block_number,
            block_hash="0x" + "cd" * 32,
            transaction_index=0,
            log_index=0,
        )
    assert api.get(f"/api/challenges/{challenge.pk}/winners").json()["earliest"]["id"] == pending.pk


def test_resolved_list_follows_resolution(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    assert api.get("/api/challenges/resolved").json() == []
    with django_capture_on_commit_callbacks(execute=True):
        challenge_resolve(challenge=challenge)
    assert [c["id"] for c in api.get("/api/challenges/resolved").json()] == [challenge.pk]


def test_a_404_is_not_cached(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    assert api.get(f"/api/challenges/{challenge.pk}/winners").status_code == 404
    # Resolving without running the commit hooks: a cached 404 would still answer 404.
    challenge_resolve(challenge=challenge)
    assert api.get(f"/api/challenges/{challenge.pk}/winners").status_code == 200


def test_a_new_pending_claim_keeps_the_cache(
    api, make_challenge, make_response, django_capture_on_commit_callbacks, django_assert_num_queries
):
    challenge = make_challenge()
    api.get("/api/challenges/active")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        make_response(challenge, "1, 1", status=ResponseStatus.PENDING)
    assert callbacks == []
    with django_assert_num_queries(0):
        api.get("/api/challenges/active")


def test_a_hit_answers_the_same_bytes_as_the_miss(api, make_challenge):
    make_challenge(title="Same bytes")
    miss = api.get("/api/challenges/active")
    hit = api.get("/api/challenges/active")
    assert hit.content == miss.content
    assert hit["Content-Type"] == miss["Content-Type"] == "application/json"


def test_an_entry_built_before_a_bump_is_never_served(api, make_challenge, django_capture_on_commit_callbacks):
    """The race: a reader built from old rows and stored them after the writer bumped the version."""
    from django.core.cache import cache

    from config.public_cache import VERSION_KEY

    challenge = make_challenge(title="Old")
    api.get("/api/challenges/active")
    old_version = cache.get(VERSION_KEY)
    with django_capture_on_commit_callbacks(execute=True):
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="New")
        public_answers_mark_stale()
    cache.set("challenges:public:active", (old_version, b'{"poemTitle": "Old"}'))
    assert api.get("/api/challenges/active").json()["poemTitle"] == "New"
